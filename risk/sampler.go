package risk

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/pkg/errors"

	"locksim/model"
	"locksim/network"
	"locksim/sim"
)

// Tilt is an importance-sampling proposal's change to the profile, in two
// knobs that keep a run's weight tame however many faults the profile
// puts in a run:
//
//   - Boost raises every fault process that the profile makes rarer than
//     Boost arrivals per run to Boost arrivals per run (its rate times
//     k = Boost / expected arrivals); a process already that frequent is
//     left alone.
//   - Tail makes that many of a run's sized faults, on average, draw their
//     size uniformly among the distribution's tail segments (those
//     starting at or above the TailFrom quantile) instead of by the
//     profile's weights: each size is a tail draw with probability
//     Tail / (expected sized faults per run).
//
// The zero Tilt is the profile itself.
type Tilt struct {
	Boost float64 `json:"boost"`
	Tail  float64 `json:"tail"`
}

// TailFrom is where a distribution's tail starts, as a quantile.
const TailFrom = 0.9

// Proposal is what runs are drawn from: a defensive mixture that draws a
// run from the profile itself with probability Defensive and from the
// tilted profile otherwise. Each run's weight, the profile's density over
// the mixture's, is then at most 1/Defensive (Hesterberg 1995), which
// bounds the estimate's variance and gives an upper bound when no run
// broke anything. Defensive 1 is plain Monte Carlo (every weight 1).
type Proposal struct {
	Tilt      Tilt    `json:"tilt"`
	Defensive float64 `json:"defensive"`
}

// PlainProposal draws every run from the profile.
var PlainProposal = Proposal{Defensive: 1}

// Sampler draws fault schedules from a profile for one design: fault
// arrivals as Poisson processes per process and node over the run's
// horizon, sizes from the profile's distributions. It is never the
// bug-hunting generator of `check` (scenarios.Gen), whose draws have no
// probability under any environment.
type Sampler struct {
	p       Profile
	base    model.Spec // defaults applied; Faults empty
	horizon time.Duration
	procs   []arrivalProcess
	nodes   []string
}

// arrivalProcess is one Poisson process of faults: kind at target.
type arrivalProcess struct {
	kind     sim.FaultKind
	target   string
	from, to string // a drop's link
	perHour  float64
	size     *Dist // nil: a drop (no size)
	backward float64
	clients  []string // a partition's other side
}

// NewSampler prepares the sampler of a profile for a design: base names the
// design, its options, fencing and topology; the profile sets the clients,
// the workload, the network and the faults.
func NewSampler(p Profile, base model.Spec) (*Sampler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s := base
	s.Clients = nil
	for i := range p.Workload.Clients {
		s.Clients = append(s.Clients, string(rune('A'+i)))
	}
	h := p.HorizonOrDefault()
	cycle := time.Duration(float64(time.Second) * float64(p.Workload.Clients) / p.Workload.AcquisitionsPerSecond)
	s.Workload = model.Workload{Duration: h, Think: max(0, cycle-p.Workload.Section.Mean()), Work: p.Workload.Section.Mean()}
	if p.Network.LatencyMax > 0 {
		s.Network.Default = network.Latency{Min: time.Duration(p.Network.LatencyMin), Max: time.Duration(p.Network.LatencyMax)}
	}
	s.Faults = nil
	s = s.WithDefaults()
	if _, err := s.Config(); err != nil {
		return nil, errors.Wrap(err, "the design cannot run")
	}
	r := s.Roster()
	sm := &Sampler{p: p, base: s, horizon: h, nodes: r.Nodes}
	if a := p.Pauses; a != nil && a.PerHour > 0 {
		for _, c := range s.Clients {
			sm.procs = append(sm.procs, arrivalProcess{kind: sim.FaultPause, target: c, perHour: a.PerHour, size: &a.Size})
		}
	}
	for _, n := range r.Nodes {
		if a := p.Partitions; a != nil && a.PerHour > 0 {
			sm.procs = append(sm.procs, arrivalProcess{kind: sim.FaultPartition, target: n, perHour: a.PerHour, size: &a.Size, clients: s.Clients})
		}
		if a := p.NodeCrashes; a != nil && a.PerHour > 0 {
			sm.procs = append(sm.procs, arrivalProcess{kind: sim.FaultNodeCrash, target: n, perHour: a.PerHour, size: &a.Size})
		}
		if j := p.ClockJumps; j != nil && j.PerHour > 0 {
			sm.procs = append(sm.procs, arrivalProcess{kind: sim.FaultClockJump, target: n, perHour: j.PerHour, size: &j.Size, backward: j.BackwardFraction})
		}
	}
	if p.Network.DropsPerLinkHour > 0 {
		for _, c := range s.Clients {
			for _, n := range r.Nodes {
				sm.procs = append(sm.procs, arrivalProcess{kind: sim.FaultDrop, from: c, to: n, perHour: p.Network.DropsPerLinkHour})
			}
		}
	}
	return sm, nil
}

// Spec is the design as the sampler runs it, without faults.
func (sm *Sampler) Spec() model.Spec { return sm.base }

// Horizon is one run's virtual time.
func (sm *Sampler) Horizon() time.Duration { return sm.horizon }

// ExpectedFaults is how many faults a run of the tilt draws on average.
func (sm *Sampler) ExpectedFaults(t Tilt) float64 {
	var n float64
	for _, pr := range sm.procs {
		n += sm.mean(pr) * sm.boost(pr, t)
	}
	return n
}

// mean is a process's expected arrivals per run under the profile.
func (sm *Sampler) mean(p arrivalProcess) float64 { return p.perHour * sm.horizon.Hours() }

// boost is the factor a tilt multiplies a process's rate by (1 or more).
func (sm *Sampler) boost(p arrivalProcess, t Tilt) float64 {
	if m := sm.mean(p); t.Boost > m {
		return t.Boost / m
	}
	return 1
}

// tailShare is the probability that one sized fault draws its size from
// the tail under a tilt.
func (sm *Sampler) tailShare(t Tilt) float64 {
	if t.Tail <= 0 {
		return 0
	}
	var sized float64
	for _, p := range sm.procs {
		if p.size != nil {
			sized += sm.mean(p) * sm.boost(p, t)
		}
	}
	if sized == 0 {
		return 0
	}
	return min(0.5, t.Tail/sized)
}

// Sample is one drawn run.
type Sample struct {
	Spec model.Spec
	// LogRatio is log(tilted density / profile density) of the schedule.
	LogRatio float64
	// Weight is the profile's density over the proposal's (1 under plain
	// sampling): what the run counts for in an estimate.
	Weight float64
	// Tilted: the mixture drew this run from the tilted profile.
	Tilted bool
}

// Draw draws run index of a campaign with the given seed: the same
// (seed, index, proposal) always gives the same schedule.
func (sm *Sampler) Draw(seed uint64, index int, pr Proposal) Sample {
	r := rand.New(rand.NewPCG(seed, uint64(index)^0x9e3779b97f4a7c15))
	s := sm.base
	// Section length: drawn from the profile alone (not tilted), so it
	// has no part in the weight.
	s.Workload.Work = max(time.Microsecond, sm.p.Workload.Section.Quantile(r.Float64()))
	tilted := pr.Defensive < 1 && r.Float64() >= pr.Defensive
	tail := sm.tailShare(pr.Tilt)
	useTail := 0.0
	if tilted {
		useTail = tail
	}
	var faults []sim.Fault
	if ppm := sm.p.ClockDriftPPM; ppm > 0 {
		n := int64(ppm)
		for _, node := range sm.nodes {
			if d := r.Int64N(2*n+1) - n; d != 0 {
				faults = append(faults, sim.Fault{Kind: sim.FaultClockDrift, Target: node, RatePPM: d})
			}
		}
	}
	// logRatio is log(tilted density / profile density) of the schedule,
	// whichever part of the mixture drew it.
	var logRatio float64
	for _, p := range sm.procs {
		lambda := p.perHour / float64(time.Hour) // per nanosecond of virtual time
		k := sm.boost(p, pr.Tilt)
		draw := lambda
		if tilted {
			draw *= k
		}
		n := 0
		for t := r.ExpFloat64() / draw; t < float64(sm.horizon); t += r.ExpFloat64() / draw {
			n++
			f := sim.Fault{Kind: p.kind, Target: p.target, At: time.Duration(t)}
			if p.size != nil {
				seg := sizeSegment(r, *p.size, useTail)
				logRatio += math.Log(tiltedMass(*p.size, seg, tail) / p.size.mass(seg))
				size := p.size.inSegment(seg, r.Float64())
				switch p.kind {
				case sim.FaultClockJump:
					f.By = size
					if r.Float64() < p.backward {
						f.By = -size
					}
				default:
					f.Dur = max(size, time.Millisecond)
				}
			}
			switch p.kind {
			case sim.FaultPartition:
				f.Target = ""
				f.A, f.B = []string{p.target}, p.clients
			case sim.FaultDrop:
				f.Target, f.From, f.To, f.Count = "", p.from, p.to, 1
			}
			faults = append(faults, f)
		}
		// Poisson process density over [0, H): rate^n e^(-rate H); the
		// arrival times are uniform under both, so only the count and the
		// rates enter the ratio.
		logRatio += float64(n)*math.Log(k) - (k-1)*lambda*float64(sm.horizon)
	}
	s.Faults = faults
	w := 1.0
	if pr.Defensive < 1 {
		w = 1 / (pr.Defensive + (1-pr.Defensive)*math.Exp(logRatio))
	}
	return Sample{Spec: s, LogRatio: logRatio, Weight: w, Tilted: tilted}
}

// sizeSegment draws a size's segment: with probability tail uniformly among
// the tail segments, else by the distribution's own weights.
func sizeSegment(r *rand.Rand, d Dist, tail float64) int {
	if tail > 0 && r.Float64() < tail {
		ts := tailSegments(d)
		return ts[r.IntN(len(ts))]
	}
	w := make([]float64, d.segments())
	for i := range w {
		w[i] = d.mass(i)
	}
	return pick(r, w)
}

// tailSegments are the segments with weight that start at or above the
// TailFrom quantile; the last segment with weight when none does.
func tailSegments(d Dist) []int {
	var ts []int
	for i := range d.segments() {
		if d.Points[i].P >= TailFrom && d.mass(i) > 0 {
			ts = append(ts, i)
		}
	}
	if len(ts) == 0 {
		for i := d.segments() - 1; i >= 0; i-- {
			if d.mass(i) > 0 {
				return []int{i}
			}
		}
	}
	return ts
}

// tiltedMass is segment i's weight under a tail tilt.
func tiltedMass(d Dist, i int, tail float64) float64 {
	m := (1 - tail) * d.mass(i)
	if tail > 0 {
		ts := tailSegments(d)
		for _, t := range ts {
			if t == i {
				m += tail / float64(len(ts))
			}
		}
	}
	return m
}
