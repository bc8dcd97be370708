package risk

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/pkg/errors"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// Outcome is one run's contribution to an estimate.
type Outcome struct {
	Weight float64
	// Attempts is how many acquisitions the run's clients started.
	Attempts int
	// Involved counts, per invariant, the acquisitions a violation of it
	// involved (each acquisition once per invariant).
	Involved map[invariant.ID]int
	// Undecided are the invariants the run judged without a verdict.
	Undecided []invariant.ID
	Faults    int
	Err       error
}

// RunOne runs one sampled schedule and counts, in its counted window, the
// acquisitions started and what the violations that began in it involved:
// an acquisition is involved in a violation when it is the latest one its
// client started at or before the end of the violation's window.
func RunOne(smp Sample, seed uint64) Outcome {
	rs, err := smp.Spec.Resolve()
	if err != nil {
		return Outcome{Err: err}
	}
	s := rs.Spec
	cfg, err := rs.Config()
	if err != nil {
		return Outcome{Err: err}
	}
	w, err := sim.New(cfg, seed)
	if err != nil {
		return Outcome{Err: err}
	}
	h, err := w.Run()
	if err != nil {
		return Outcome{Err: err, Faults: len(s.Faults)}
	}
	ix := history.New(h)
	cc := rs.Check
	vs := invariant.CheckIndexAll(ix, cc)
	r := Count(smp, ix, vs, model.UndecidedOf(ix, cc, vs))
	r.Faults = len(s.Faults)
	return r
}

// Count is RunOne's tally of a run made elsewhere (a real client's,
// package realclient): from the run's history, every violation its
// checkers found (invariant.CheckIndexAll, uncapped) and the invariants it
// had no verdict on, the acquisitions started in the sample's counted
// window and, per invariant, the acquisitions involved in a violation that
// began in it.
func Count(smp Sample, ix *history.Index, vs []invariant.Violation, undecided []invariant.ID) Outcome {
	r := Outcome{Faults: len(smp.Spec.Faults), Undecided: undecided}
	for _, a := range ix.Attempts {
		if at := ix.H[a.Start].At; at >= smp.CountFrom && at < smp.CountTo {
			r.Attempts++
		}
	}
	seen := map[invariant.ID]map[int]bool{}
	for _, v := range vs {
		if v.From < smp.CountFrom || v.From >= smp.CountTo {
			continue
		}
		end := max(v.To, v.From)
		for _, c := range v.Clients {
			i := latestAttempt(ix, c, end)
			if i < 0 {
				continue
			}
			if seen[v.Invariant] == nil {
				seen[v.Invariant] = map[int]bool{}
			}
			seen[v.Invariant][i] = true
		}
	}
	if len(seen) > 0 {
		r.Involved = map[invariant.ID]int{}
		for id, m := range seen {
			r.Involved[id] = len(m)
		}
	}
	return r
}

// latestAttempt is the index of client c's last attempt started at or
// before t, or -1.
func latestAttempt(ix *history.Index, c string, t time.Duration) int {
	best := -1
	for i, a := range ix.Attempts {
		if a.Client == c && ix.H[a.Start].At <= t {
			best = i
		}
	}
	return best
}

// Tally is the sums an estimate is made of. Every sum is exact (Sum), so
// tallies of shards merge into the bytes one process would have made.
type Tally struct {
	Runs int `json:"runs"`
	// Errors counts runs that stopped early (a limit): they have no
	// verdict, and an estimate with any is refused.
	Errors     int    `json:"errors,omitempty"`
	FirstError string `json:"first_error,omitempty"`
	// W and W2 sum the weights and their squares.
	W  Sum `json:"w"`
	W2 Sum `json:"w2"`
	// A and A2 sum weight x attempts and its square.
	A  Sum `json:"a"`
	A2 Sum `json:"a2"`
	// MaxAttempts is the most acquisitions one run started.
	MaxAttempts int `json:"max_attempts"`
	// Faults counts the faults every run drew.
	Faults int `json:"faults"`
	// Inv holds each judged invariant's sums.
	Inv map[invariant.ID]*InvTally `json:"invariants"`
}

// InvTally is one invariant's sums.
type InvTally struct {
	// Hits counts runs with a violation; Undecided runs without a verdict.
	Hits      int `json:"hits"`
	Undecided int `json:"undecided,omitempty"`
	// V, V2 sum weight x involved acquisitions and its square; VA sums
	// (weight x involved) x (weight x attempts); R sums the weight of runs
	// with a violation, R2 its square.
	V  Sum `json:"v"`
	V2 Sum `json:"v2"`
	VA Sum `json:"va"`
	R  Sum `json:"r"`
	R2 Sum `json:"r2"`
}

// NewTally makes an empty tally of the invariants.
func NewTally(ids []invariant.ID) *Tally {
	t := &Tally{Inv: map[invariant.ID]*InvTally{}}
	for _, id := range ids {
		t.Inv[id] = &InvTally{}
	}
	return t
}

// Add tallies one run.
func (t *Tally) Add(r Outcome) {
	t.Runs++
	t.Faults += r.Faults
	if r.Err != nil {
		t.Errors++
		if t.FirstError == "" {
			t.FirstError = r.Err.Error()
		}
		return
	}
	w := r.Weight
	t.W.Add(w)
	t.W2.Add(w * w)
	wa := w * float64(r.Attempts)
	t.A.Add(wa)
	t.A2.Add(wa * wa)
	t.MaxAttempts = max(t.MaxAttempts, r.Attempts)
	for id, it := range t.Inv {
		if slices.Contains(r.Undecided, id) {
			it.Undecided++
		}
		n := r.Involved[id]
		if n == 0 {
			continue
		}
		it.Hits++
		wv := w * float64(n)
		it.V.Add(wv)
		it.V2.Add(wv * wv)
		it.VA.Add(wv * wa)
		it.R.Add(w)
		it.R2.Add(w * w)
	}
}

// Merge adds another tally of the same campaign (another shard).
func (t *Tally) Merge(o *Tally) error {
	for id := range o.Inv {
		if t.Inv[id] == nil {
			return errors.Errorf("the tallies judge different invariants (%s)", id)
		}
	}
	if len(o.Inv) != len(t.Inv) {
		return errors.New("the tallies judge different invariants")
	}
	t.Runs += o.Runs
	t.Errors += o.Errors
	if t.FirstError == "" {
		t.FirstError = o.FirstError
	}
	t.W.Merge(o.W)
	t.W2.Merge(o.W2)
	t.A.Merge(o.A)
	t.A2.Merge(o.A2)
	t.MaxAttempts = max(t.MaxAttempts, o.MaxAttempts)
	t.Faults += o.Faults
	for id, it := range t.Inv {
		oi := o.Inv[id]
		it.Hits += oi.Hits
		it.Undecided += oi.Undecided
		it.V.Merge(oi.V)
		it.V2.Merge(oi.V2)
		it.VA.Merge(oi.VA)
		it.R.Merge(oi.R)
		it.R2.Merge(oi.R2)
	}
	return nil
}

// z95 is the standard normal quantile of a two-sided 95% interval.
const z95 = 1.959963984540054

// Estimate is one invariant's risk.
type Estimate struct {
	ID invariant.ID `json:"id"`
	// PerAcquisition is the probability that an acquisition is involved
	// in a violation: involved acquisitions over acquisitions, under the
	// profile. CI95Low and CI95High bound it (95%).
	PerAcquisition float64 `json:"per_acquisition"`
	CI95Low        float64 `json:"ci95_low"`
	CI95High       float64 `json:"ci95_high"`
	// PerHour is the expected involved acquisitions per hour of operation
	// at the profile's rate, with its interval.
	PerHour     float64 `json:"per_hour"`
	PerHourLow  float64 `json:"per_hour_ci95_low"`
	PerHourHigh float64 `json:"per_hour_ci95_high"`
	// PerRun is the probability that a run of the horizon has a
	// violation, with its interval.
	PerRun     float64 `json:"per_run"`
	PerRunLow  float64 `json:"per_run_ci95_low"`
	PerRunHigh float64 `json:"per_run_ci95_high"`
	// Samples is the runs; EffectiveSamples Kish's effective sample size
	// of their weights, (sum w)^2 / sum w^2; Hits the runs with a
	// violation; Undecided the runs that could not judge it.
	Samples          int     `json:"samples"`
	EffectiveSamples float64 `json:"effective_samples"`
	Hits             int     `json:"hits"`
	Undecided        int     `json:"undecided,omitempty"`
	// Method says how the numbers were made.
	Method string `json:"method"`
	// UpperBoundOnly: no run broke it, so the estimate is 0 and only the
	// upper bound says anything.
	UpperBoundOnly bool `json:"upper_bound_only,omitempty"`
	// Note warns where the interval is approximate.
	Note string `json:"note,omitempty"`
}

// FewHits is how many violating runs a normal interval wants; below it the
// estimate carries a note.
const FewHits = 10

// Estimates turns the tally into one Estimate per invariant, sorted by ID
// in registry order. defensive is the proposal's Defensive share; hours the
// virtual time of one run in hours.
func (t *Tally) Estimates(pr Proposal, hours float64) ([]Estimate, error) {
	if t.Errors > 0 {
		return nil, errors.Errorf("%d of %d runs stopped early (first: %s): they have no verdict, and leaving them out would bias the estimate", t.Errors, t.Runs, t.FirstError)
	}
	n := float64(t.Runs)
	if t.Runs < 2 {
		return nil, errors.New("an estimate needs at least 2 runs")
	}
	method := "plain Monte Carlo"
	if pr.Defensive < 1 {
		method = "defensive importance sampling"
	}
	w, w2 := t.W.Value(), t.W2.Value()
	ess := 0.0
	if w2 > 0 {
		ess = w * w / w2
	}
	meanA := t.A.Value() / n
	var out []Estimate
	for _, info := range invariant.Registry {
		it := t.Inv[info.ID]
		if it == nil {
			continue
		}
		e := Estimate{ID: info.ID, Samples: t.Runs, EffectiveSamples: ess, Hits: it.Hits, Undecided: it.Undecided}
		e.Method = method + ", normal 95% interval (delta method for the ratio)"
		if it.Hits == 0 {
			// No weighted violation: an upper bound, never zero. Under the
			// mixture a run's weight is at most 1/Defensive, so the
			// profile's chance of a violating run is at most the
			// proposal's over Defensive; the proposal's has the exact
			// (Clopper-Pearson) bound for 0 of n.
			up := (1 - math.Pow(0.025, 1/n)) / math.Max(pr.Defensive, 1e-300)
			up = math.Min(up, 1)
			e.UpperBoundOnly = true
			e.PerRunHigh = up
			if meanA > 0 {
				e.CI95High = math.Min(1, up*float64(t.MaxAttempts)/meanA)
			} else {
				e.CI95High = 1
			}
			e.PerHourHigh = up * float64(t.MaxAttempts) / hours
			e.Method = method + ", exact upper bound for no violating run (Clopper-Pearson, 95%), divided by the smallest mixture weight"
			e.Note = "no run broke it: the estimate is an upper bound, assuming no run involves more acquisitions than the most any run started"
			out = append(out, e)
			continue
		}
		sv, sv2, sva := it.V.Value(), it.V2.Value(), it.VA.Value()
		sa2 := t.A2.Value()
		meanV := sv / n
		if meanA > 0 {
			ratio := meanV / meanA
			// Var of the ratio by the delta method: the sample variance of
			// wV - ratio*wA, over n, over meanA^2.
			s2 := (sv2 - 2*ratio*sva + ratio*ratio*sa2) / (n - 1)
			se := math.Sqrt(math.Max(s2, 0)/n) / meanA
			e.PerAcquisition = ratio
			e.CI95Low, e.CI95High = math.Max(0, ratio-z95*se), math.Min(1, ratio+z95*se)
		}
		varV := math.Max((sv2-sv*sv/n)/(n-1), 0)
		seV := math.Sqrt(varV / n)
		e.PerHour = meanV / hours
		e.PerHourLow, e.PerHourHigh = math.Max(0, (meanV-z95*seV)/hours), (meanV+z95*seV)/hours
		r, r2 := it.R.Value(), it.R2.Value()
		meanR := r / n
		seR := math.Sqrt(math.Max((r2-r*r/n)/(n-1), 0) / n)
		e.PerRun, e.PerRunLow, e.PerRunHigh = meanR, math.Max(0, meanR-z95*seR), math.Min(1, meanR+z95*seR)
		if it.Hits < FewHits {
			e.Note = "fewer than 10 runs broke it: the normal interval is approximate; run more"
		}
		out = append(out, e)
	}
	return out, nil
}

// Campaign is an estimate's runs: the profile's sampler for a design, how
// many runs, the seed, the shard.
type Campaign struct {
	Sampler  *Sampler
	Proposal Proposal
	Runs     int
	Seed     uint64
	// Shard and Shards select the runs with index % Shards == Shard.
	Shard, Shards int
	// Context, if set, stops the campaign (no verdict).
	Context context.Context
	// Progress, if set, sees each run done.
	Progress func(done, planned int)
	// Judge, if set, runs a sample instead of the simulation (RunOne):
	// the tests' seam for indicators whose probability is known exactly.
	Judge func(Sample, uint64) Outcome
	// Invariants, if set, are the ones tallied (default Judged).
	Invariants []invariant.ID
}

// Judged are the invariants a design's runs judge.
func Judged(s model.Spec) []invariant.ID {
	cc := s.CheckConfig()
	var ids []invariant.ID
	for _, in := range invariant.Registry {
		if ok, _ := cc.Judged(in.ID); ok {
			ids = append(ids, in.ID)
		}
	}
	return ids
}

// Tally runs the campaign.
func (c Campaign) Tally() (*Tally, error) {
	shards := max(c.Shards, 1)
	ids := c.Invariants
	if ids == nil {
		ids = Judged(c.Sampler.base)
	}
	t := NewTally(ids)
	planned := (c.Runs - c.Shard + shards - 1) / shards
	done := 0
	for i := c.Shard; i < c.Runs; i += shards {
		if c.Context != nil && c.Context.Err() != nil {
			return t, errors.New("interrupted: the runs made are no estimate")
		}
		smp := c.Sampler.Draw(c.Seed, i, c.Proposal)
		var r Outcome
		if c.Judge != nil {
			r = c.Judge(smp, RunSeed(c.Seed, i))
		} else {
			r = RunOne(smp, RunSeed(c.Seed, i))
		}
		r.Weight = smp.Weight
		t.Add(r)
		done++
		if c.Progress != nil {
			c.Progress(done, planned)
		}
	}
	return t, nil
}
