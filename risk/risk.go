package risk

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/pkg/errors"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// Method chooses how runs are drawn.
type Method string

// The methods.
const (
	// Auto runs a seeded pilot over a few tilts and draws the estimate's
	// runs from the one whose estimate of "any counted invariant broken"
	// had the smallest relative variance (plain sampling among them).
	Auto Method = "auto"
	// Plain draws every run from the profile (weights 1): for validation,
	// and for risks of 1e-4 and above.
	Plain Method = "plain"
)

// PilotTilts are the auto method's search: plain sampling, then for each
// fault kind the profile has (in a fixed order) three tilts of that kind
// alone: one arrival a run if rarer and one size a run from the tail
// segments; two and two from the top segment only (Tilt.Top); the same
// sharpened toward the top of that segment (Tilt.Sharp, PilotSharp). A
// kind whose tail is one segment gets the first and the sharpened one; a
// kind without sizes (drops) one and two arrivals a run. Two tail draws
// a run, not one, so that the pilot's few runs see a violation that only
// the largest sizes cause (the heavy-pause advice of docs/risk.md at ttl
// 2s saw none in 30 pilot runs with one). PilotRuns runs
// each (from a seed of their own), drawn as a mixture with DefensiveShare.
//
// Top segments: a tail draw spread over every tail segment spends most
// draws on sizes that break nothing while multiplying the weight's spread;
// measured on set-px-lua at ttl 1s under the built-in profile (1000 runs
// each), pauses Boost 2, Tail 4 over the tail segments gave 6.6e-8
// [0, 1.7e-7] per acquisition (30 broken, relative half-width 1.28),
// the top segment alone 5.9e-7 [2.2e-7, 9.5e-7] (28 broken, 0.63): the
// first's low estimate is the skew of its weights (the hits that carry
// the risk are drawn rarely and weigh much), as a back-of-the-envelope
// 3e-7 to 6e-7 says (docs/risk.md, Speed).
//
// One kind at a time (Tilt.Kind): a tilt of every kind at once raises the
// built-in profile's partitions, crashes and clock jumps (each about 1e-5
// a run) to a few a run together, so almost every tilted run weighs about
// 1e-26 and the runs that carry the pause risk come only from the
// defensive share; measured on set-px-lua (ttl 1s, 1000 runs of the tilt
// Boost 2, Tail 4 of every kind) the estimate was 3e-26 [0, 9e-26] per
// acquisition, against about 5e-7 (docs/risk.md, Speed).
//
// No tilt here uses danger windows (Tilt.Window): on the validation table,
// frequent faults shift a run's timing away from the fault-free reference
// run, so the windows miss the real critical sections and the estimates
// came out 3 to 7 times below plain sampling's, their intervals barely
// overlapping: unbiased in theory, too skewed to trust at these run counts.
// Nor windows that follow the run (Tilt.Follow): each of their runs costs
// two simulations, and their use, redlock's clock steps (docs/risk.md,
// Speed), needs a window the pilot's few runs rarely hold; a caller picks
// them with a Campaign.
//
// PilotSharp is the pilot's sharpened tilts' Sharp.
const PilotSharp = 10

func PilotTilts(p Profile) []Tilt {
	ts := []Tilt{{}}
	for _, k := range profileKinds(p) {
		d := kindSizes(p, k)
		switch {
		case d == nil: // drops: no sizes to tilt
			ts = append(ts, Tilt{Kind: k, Boost: 1}, Tilt{Kind: k, Boost: 2})
		case len(tailSegments(*d)) == 1: // the top segment is the tail
			ts = append(ts, Tilt{Kind: k, Boost: 1, Tail: 1}, Tilt{Kind: k, Boost: 2, Tail: 2, Sharp: PilotSharp})
		default:
			ts = append(ts, Tilt{Kind: k, Boost: 1, Tail: 1}, Tilt{Kind: k, Boost: 2, Tail: 2, Top: true}, Tilt{Kind: k, Boost: 2, Tail: 2, Top: true, Sharp: PilotSharp})
		}
	}
	return ts
}

// kindSizes is the size distribution of a kind's faults in the profile
// (nil for drops).
func kindSizes(p Profile, k sim.FaultKind) *Dist {
	var a *Arrivals
	switch k {
	case sim.FaultPause:
		a = p.Pauses
	case sim.FaultStarve:
		a = p.starvations()
	case sim.FaultPartition:
		a = p.Partitions
	case sim.FaultNodeCrash:
		a = p.NodeCrashes
	case sim.FaultClockJump:
		a = p.jumps()
	}
	if a == nil {
		return nil
	}
	return &a.Size
}

// profileKinds are the fault kinds a profile draws, in a fixed order.
func profileKinds(p Profile) []sim.FaultKind {
	var ks []sim.FaultKind
	for _, k := range []struct {
		kind sim.FaultKind
		a    *Arrivals
	}{{sim.FaultPause, p.Pauses}, {sim.FaultStarve, p.starvations()}, {sim.FaultPartition, p.Partitions},
		{sim.FaultNodeCrash, p.NodeCrashes}, {sim.FaultClockJump, p.jumps()}} {
		if k.a != nil && k.a.PerHour > 0 {
			ks = append(ks, k.kind)
		}
	}
	if p.Network.DropsPerLinkHour > 0 {
		ks = append(ks, sim.FaultDrop)
	}
	return ks
}

// DefensiveShare is the share of an importance-sampling campaign's runs
// drawn from the profile itself: it caps every weight at 1/DefensiveShare.
const DefensiveShare = 0.1

// pilotSalt separates the pilot's seeds from the estimate's.
const pilotSalt = 0x5eed_0f_91107

// Limits of a risk campaign.
const (
	MaxRuns = 10_000_000
	// MinRuns is the fewest runs an estimate makes.
	MinRuns = 10
)

// Config is a risk estimate: a design under a profile.
type Config struct {
	// Spec names the design and its settings (options, fencing,
	// topology); the profile sets the clients, workload and faults.
	Spec    model.Spec
	Profile Profile
	Runs    int
	Seed    uint64
	Method  Method
	// Shard and Shards split the runs (index % Shards == Shard); every
	// shard runs the same pilot, so their tallies merge exactly (Merge).
	Shard, Shards int
	// Invariants, if set, are the ones estimated (default: every one the
	// design's runs judge).
	Invariants []invariant.ID
	Context    context.Context
	Progress   func(done, planned int)
	// Judge, if set, makes each run (the pilot's too) instead of RunOne:
	// a harness that runs what the simulator alone cannot (a real
	// client, package realclient) and counts it with Count. The sampler
	// then makes no fault-free reference run (NewExternalSampler).
	Judge func(Sample, uint64) Outcome
}

// Result is a finished estimate (or one shard's tally of it).
type Result struct {
	Design  string   `json:"design"`
	Profile string   `json:"profile"`
	Seed    uint64   `json:"seed"`
	Runs    int      `json:"runs"`
	Shard   int      `json:"shard"`
	Shards  int      `json:"shards"`
	Horizon Duration `json:"horizon"`
	// Settle is how long each run goes on before and after its counted
	// window (Settle).
	Settle   Duration `json:"settle"`
	Method   Method   `json:"method"`
	Proposal Proposal `json:"proposal"`
	// PilotRuns is how many runs the pilot made per tilt, PilotTilts
	// how many tilts it tried.
	PilotRuns  int `json:"pilot_runs,omitempty"`
	PilotTilts int `json:"pilot_tilts,omitempty"`
	// ExpectedFaults is the mean faults per run under the profile, and
	// under the chosen tilt.
	ExpectedFaults       float64 `json:"expected_faults_per_run"`
	ExpectedFaultsTilted float64 `json:"expected_faults_per_run_tilted,omitempty"`
	Tally                *Tally  `json:"tally"`
	// Estimates is empty for a shard that is not the whole campaign:
	// merge the shards first.
	Estimates []Estimate `json:"estimates,omitempty"`
}

// Estimate runs a risk campaign.
func Run(cfg Config) (*Result, error) {
	if cfg.Runs < MinRuns || cfg.Runs > MaxRuns {
		return nil, errors.Errorf("runs %d is outside %d to %d", cfg.Runs, MinRuns, MaxRuns)
	}
	shards := max(cfg.Shards, 1)
	if cfg.Shard < 0 || cfg.Shard >= shards {
		return nil, errors.Errorf("shard %d of %d does not exist", cfg.Shard, shards)
	}
	newSampler := NewSampler
	if cfg.Judge != nil {
		newSampler = NewExternalSampler
	}
	sm, err := newSampler(cfg.Profile, cfg.Spec)
	if err != nil {
		return nil, err
	}
	ids := cfg.Invariants
	if ids == nil {
		ids = Judged(sm.Spec())
	} else {
		for _, id := range ids {
			if ok, why := sm.Spec().CheckConfig().Judged(id); !ok {
				return nil, errors.Errorf("invariant %s is not judged for this design: %s", id, why)
			}
		}
	}
	res := &Result{Design: designName(cfg.Spec), Profile: cfg.Profile.Name, Seed: cfg.Seed, Runs: cfg.Runs,
		Shard: cfg.Shard, Shards: shards, Horizon: Duration(sm.Horizon()), Settle: Duration(sm.settle), Method: cfg.Method,
		ExpectedFaults: sm.ExpectedFaults(Tilt{})}
	switch cfg.Method {
	case Plain:
		res.Proposal = PlainProposal
	case Auto, "":
		res.Method = Auto
		res.PilotRuns = pilotRuns(cfg.Runs)
		res.PilotTilts = len(PilotTilts(cfg.Profile))
		pr, err := choose(sm, cfg, ids, res.PilotRuns)
		if err != nil {
			return nil, err
		}
		res.Proposal = pr
		res.ExpectedFaultsTilted = sm.ExpectedFaults(pr.Tilt)
	default:
		return nil, errors.Errorf("method %q: use auto or plain", cfg.Method)
	}
	t, err := Campaign{Sampler: sm, Proposal: res.Proposal, Runs: cfg.Runs, Seed: cfg.Seed, Shard: cfg.Shard, Shards: shards,
		Context: cfg.Context, Progress: cfg.Progress, Invariants: ids, Judge: cfg.Judge}.Tally()
	if err != nil {
		return nil, err
	}
	res.Tally = t
	if shards == 1 {
		if res.Estimates, err = t.Estimates(res.Proposal, sm.Horizon().Hours()); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// Merge puts the shards of one campaign together and estimates: the result
// is the bytes one process would have made.
func Merge(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("nothing to merge")
	}
	first := parts[0]
	seen := make([]bool, first.Shards)
	out := *first
	out.Shard, out.Shards = 0, 1
	out.Tally = nil
	for _, p := range parts {
		if p.Design != first.Design || p.Profile != first.Profile || p.Seed != first.Seed || p.Runs != first.Runs ||
			p.Shards != first.Shards || p.Proposal != first.Proposal || p.Horizon != first.Horizon {
			return nil, errors.New("the shards are of different campaigns (design, profile, seed, runs, shards or proposal differ)")
		}
		if p.Shard < 0 || p.Shard >= len(seen) || seen[p.Shard] {
			return nil, errors.Errorf("shard %d is given twice or does not exist", p.Shard)
		}
		seen[p.Shard] = true
		if out.Tally == nil {
			out.Tally = NewTally(nil)
			for id := range p.Tally.Inv {
				out.Tally.Inv[id] = &InvTally{}
			}
		}
		if err := out.Tally.Merge(p.Tally); err != nil {
			return nil, err
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		return nil, errors.Errorf("shard %d of %d is missing", i, len(seen))
	}
	est, err := out.Tally.Estimates(out.Proposal, time.Duration(out.Horizon).Hours())
	if err != nil {
		return nil, err
	}
	out.Estimates = est
	return &out, nil
}

func designName(s model.Spec) string {
	if s.Custom != nil && s.Design == "" {
		return "custom"
	}
	return s.Design
}

// pilotRuns is the pilot's runs per tilt.
func pilotRuns(runs int) int { return min(200, max(20, runs/20)) }

// choose runs the pilot and returns the proposal whose estimate of "any
// counted invariant broken" per run had the smallest relative variance;
// when no tilt saw a violation, plain sampling, whose bound for no
// violating run is ten times tighter than the mixture's.
func choose(sm *Sampler, cfg Config, ids []invariant.ID, m int) (Proposal, error) {
	best, bestScore := PlainProposal, math.Inf(1)
	for _, t := range PilotTilts(cfg.Profile) {
		pr := Proposal{Tilt: t, Defensive: DefensiveShare}
		if t == (Tilt{}) {
			pr = PlainProposal
		}
		var sum, sum2 float64
		for i := range m {
			if cfg.Context != nil && cfg.Context.Err() != nil {
				return Proposal{}, errors.New("interrupted during the pilot")
			}
			smp := sm.Draw(cfg.Seed^pilotSalt, i, pr)
			var r Outcome
			if cfg.Judge != nil {
				r = cfg.Judge(smp, RunSeed(cfg.Seed^pilotSalt, i))
			} else {
				r = RunOne(smp, RunSeed(cfg.Seed^pilotSalt, i))
			}
			if r.Err != nil {
				return Proposal{}, errors.Wrap(r.Err, "a pilot run stopped early")
			}
			for _, id := range ids {
				if r.Involved[id] > 0 {
					sum += smp.Weight
					sum2 += smp.Weight * smp.Weight
					break
				}
			}
		}
		if sum == 0 {
			continue
		}
		// Relative variance of the mean of w*I: (m*sum2/sum^2 - 1).
		if score := float64(m)*sum2/(sum*sum) - 1; score < bestScore {
			best, bestScore = pr, score
		}
	}
	return best, nil
}

// CurvePoint is the risk of one invariant at one TTL with every pause
// scaled by Scale: a point of the risk report's plot.
type CurvePoint struct {
	TTL      Duration `json:"ttl"`
	Scale    float64  `json:"pause_scale"`
	Estimate Estimate `json:"estimate"`
}

// CurveTTLs and CurveScales are the plot's axes: the advisor's TTLs, and
// pauses at half, the profile's and twice their length.
var (
	CurveTTLs   = GridTTL
	CurveScales = []float64{0.5, 1, 2}
)

// Curve estimates the design at every TTL of CurveTTLs under the profile
// with its pauses scaled by each of CurveScales, for one invariant, each
// point with cfg.Runs runs.
func Curve(cfg Config, id invariant.ID) ([]CurvePoint, error) {
	var out []CurvePoint
	for _, sc := range CurveScales {
		for _, ttl := range CurveTTLs {
			c := cfg
			c.Spec.Options.TTL = ttl
			c.Profile = cfg.Profile.PausesScaled(sc)
			c.Invariants = []invariant.ID{id}
			c.Shard, c.Shards, c.Progress = 0, 1, nil
			r, err := Run(c)
			if err != nil {
				return nil, errors.Wrapf(err, "ttl %v, pauses x%g", ttl, sc)
			}
			out = append(out, CurvePoint{TTL: Duration(ttl), Scale: sc, Estimate: r.Estimates[0]})
		}
	}
	return out, nil
}
