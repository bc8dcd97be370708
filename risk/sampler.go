package risk

import (
	"math"
	"math/rand/v2"
	"slices"
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
//
//   - Tail makes that many of a run's sized faults, on average, draw their
//     size uniformly among the distribution's tail segments (those
//     starting at or above the TailFrom quantile) instead of by the
//     profile's weights: each size is a tail draw with probability
//     Tail / (expected sized faults per run).
//
//   - Window puts that share of a tilted run's arrivals of each process
//     inside its danger window: for a client's pauses, the spans from each
//     acquire-start to the end of the critical section in a fault-free
//     reference run of the design; for a node's faults, the union of every
//     client's. The rest arrive uniformly over the run, so every instant
//     keeps a density above zero. With Tail 0 it moves arrival times
//     alone: that share of every arrival of the tilted processes lands in
//     the window, its size drawn by the profile's weights.
//
//   - Kind, if set, confines the tilt to that fault kind's processes
//     (the others keep the profile's rates and sizes, and have no part in
//     the weight), and Boost then counts the kind's arrivals per run
//     across all its processes (each raised by the same factor). A tilt
//     of every kind raises every rare process at once, and with a few
//     very rare ones (the built-in profile's partitions, crashes and
//     jumps) almost every tilted run holds schedules the profile makes
//     10^-20 likely: their weights vanish, the runs that carry the risk
//     (few boosted arrivals) are almost never drawn, and the interval
//     misses the risk by orders of magnitude. The pilot tries one kind at
//     a time (PilotTilts).
//
// The zero Tilt is the profile itself.
//
//   - Top draws the tail sizes from the distribution's last segment only
//     (the largest sizes), not uniformly among the tail segments: the
//     other tail segments' draws add to the weight's spread and rarely to
//     the risk.
//
//   - Sharp (above 1) draws a tail size's position in its segment toward
//     the segment's top: u^(1/Sharp) for a uniform u (density Sharp x
//     w^(Sharp-1) at position w), for risks that only the very largest
//     sizes reach (a TTL near the profile's longest pause).
//
//   - Follow takes Window's danger windows from the run itself instead
//     of from one fault-free reference run: before the tilted kind's
//     arrivals are drawn, the run is made once with the same simulation
//     seed and every fault drawn so far (the drift and the other kinds'
//     faults) but none of the tilted kind's, and the windows are its
//     spans: a client's from each acquire-start to the end of its
//     section; a node's, the holds that lose their quorum if this node
//     loses the key (the node granted the hold, and the hold has no more
//     nodes than the quorum: every hold of a one-node design, a redlock
//     hold of exactly a majority). Until its first fault of the tilted
//     kind the run is that run, so its first such fault lands where the
//     run is in danger. The windows are a function of the seed and the
//     faults drawn before them, never of the arrivals they place, so the
//     weight stays the profile's density over the proposal's and the
//     estimate unbiased; a run costs up to two simulations. Runs the
//     risk package does not make (NewExternalSampler) draw it unwindowed.
type Tilt struct {
	Kind   sim.FaultKind `json:"kind,omitempty"`
	Boost  float64       `json:"boost"`
	Tail   float64       `json:"tail"`
	Top    bool          `json:"top,omitempty"`
	Sharp  float64       `json:"sharp,omitempty"`
	Window float64       `json:"window,omitempty"`
	Follow bool          `json:"follow,omitempty"`
}

// applies reports whether the tilt changes process p.
func (t Tilt) applies(p arrivalProcess) bool { return t.Kind == "" || t.Kind == p.kind }

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
	p    Profile
	base model.Spec // defaults applied; Faults empty
	// horizon is the counted window's length; settle the time before it
	// (faults already arriving, so the window starts warm) and after it
	// (clients still working, so a fault near its end has its effect).
	// Faults arrive over [0, settle+horizon); clients work until
	// horizon+2*settle; an estimate counts the acquisitions started, and
	// the violations that began, in [settle, settle+horizon).
	horizon, settle time.Duration
	procs           []arrivalProcess
	nodes           []string
	// reference: the sampler may run the design (not an external one):
	// windows from a reference run, and Follow's from the run itself.
	reference bool
}

// arrivalProcess is one Poisson process of faults: kind at target.
type arrivalProcess struct {
	kind     sim.FaultKind
	target   string
	from, to string // a drop's link
	perHour  float64
	window   window // where a windowed tilt puts its arrivals
	size     *Dist  // nil: a drop (no size)
	backward float64
	clients  []string // a partition's other side
	task     string   // a starvation's task
}

// NewSampler prepares the sampler of a profile for a design: base names the
// design, its options, fencing and topology; the profile sets the clients,
// the workload, the network and the faults.
func NewSampler(p Profile, base model.Spec) (*Sampler, error) {
	return newSampler(p, base, true)
}

// NewExternalSampler is NewSampler for runs the risk package does not make
// (Config.Judge: a real client's): it makes no fault-free reference run,
// so windowed tilts (Tilt.Window) draw as unwindowed ones.
func NewExternalSampler(p Profile, base model.Spec) (*Sampler, error) {
	return newSampler(p, base, false)
}

func newSampler(p Profile, base model.Spec, reference bool) (*Sampler, error) {
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
	s.Workload = model.Workload{Think: max(0, cycle-p.Workload.Section.Mean()), Work: p.Workload.Section.Mean()}
	if p.Network.LatencyMax > 0 {
		s.Network.Default = network.Latency{Min: time.Duration(p.Network.LatencyMin), Max: time.Duration(p.Network.LatencyMax)}
	}
	s.Faults = nil
	// The TTL the run takes (its default when unset) decides how long
	// it runs, which decides its defaults (a run of a given duration
	// takes no cycle count): resolved once for the TTL, once as it runs.
	rs, err := s.Resolve()
	if err != nil {
		return nil, errors.Wrap(err, "the design cannot run")
	}
	settle := Settle(p, rs.Spec.Options.TTL)
	s.Workload.Duration = h + 2*settle
	if rs, err = s.Resolve(); err != nil {
		return nil, errors.Wrap(err, "the design cannot run")
	}
	if _, err := rs.Config(); err != nil {
		return nil, errors.Wrap(err, "the design cannot run")
	}
	s, r := rs.Spec, rs.Roster
	sm := &Sampler{p: p, base: s, horizon: h, settle: settle, nodes: r.Nodes, reference: reference}
	own, all := map[string]window{}, window{}
	if reference {
		var err error
		if own, all, err = dangerWindows(s, sm.span()); err != nil {
			return nil, err
		}
	}
	if a := p.Pauses; a != nil && a.PerHour > 0 {
		for _, c := range s.Clients {
			sm.procs = append(sm.procs, arrivalProcess{kind: sim.FaultPause, target: c, perHour: a.PerHour, size: &a.Size, window: own[c]})
		}
	}
	if st := p.Starvations; st != nil && st.PerHour > 0 {
		for _, c := range s.Clients {
			sm.procs = append(sm.procs, arrivalProcess{kind: sim.FaultStarve, target: c, task: st.task(), perHour: st.PerHour, size: &st.Size, window: own[c]})
		}
	}
	for _, n := range r.Nodes {
		if a := p.Partitions; a != nil && a.PerHour > 0 {
			sm.procs = append(sm.procs, arrivalProcess{kind: sim.FaultPartition, target: n, perHour: a.PerHour, size: &a.Size, clients: s.Clients, window: all})
		}
		if a := p.NodeCrashes; a != nil && a.PerHour > 0 {
			sm.procs = append(sm.procs, arrivalProcess{kind: sim.FaultNodeCrash, target: n, perHour: a.PerHour, size: &a.Size, window: all})
		}
		if j := p.ClockJumps; j != nil && j.PerHour > 0 {
			sm.procs = append(sm.procs, arrivalProcess{kind: sim.FaultClockJump, target: n, perHour: j.PerHour, size: &j.Size, backward: j.BackwardFraction, window: all})
		}
	}
	if p.Network.DropsPerLinkHour > 0 {
		for _, c := range s.Clients {
			for _, n := range r.Nodes {
				sm.procs = append(sm.procs, arrivalProcess{kind: sim.FaultDrop, from: c, to: n, perHour: p.Network.DropsPerLinkHour, window: own[c]})
			}
		}
	}
	return sm, nil
}

// Spec is the design as the sampler runs it, without faults.
func (sm *Sampler) Spec() model.Spec { return sm.base }

// Horizon is the length of a run's counted window.
func (sm *Sampler) Horizon() time.Duration { return sm.horizon }

// span is how long faults arrive for: the settle time and the window.
func (sm *Sampler) span() time.Duration { return sm.settle + sm.horizon }

// Settle is how long before and after its counted window a run goes on:
// twice the TTL plus the longest of the profile's 0.999 quantiles of a
// fault's size, at most a quarter of the horizon. Faults that outlast it
// are rare by definition; their effects beyond it are not counted.
func Settle(p Profile, ttl time.Duration) time.Duration {
	longest := time.Duration(0)
	for _, a := range []*Arrivals{p.Pauses, p.starvations(), p.Partitions, p.NodeCrashes, p.jumps()} {
		if a != nil && a.PerHour > 0 {
			longest = max(longest, a.Size.Quantile(0.999))
		}
	}
	return min(p.HorizonOrDefault()/4, 2*ttl+longest)
}

// ExpectedFaults is how many faults a run of the tilt draws on average.
func (sm *Sampler) ExpectedFaults(t Tilt) float64 {
	var n float64
	for _, pr := range sm.procs {
		n += sm.mean(pr) * sm.boost(pr, t)
	}
	return n
}

// mean is a process's expected arrivals per run under the profile.
func (sm *Sampler) mean(p arrivalProcess) float64 { return p.perHour * sm.span().Hours() }

// boost is the factor a tilt multiplies a process's rate by (1 or more).
func (sm *Sampler) boost(p arrivalProcess, t Tilt) float64 {
	if !t.applies(p) {
		return 1
	}
	m := sm.mean(p)
	if t.Kind != "" {
		// The kind's arrivals per run across its processes.
		m = 0
		for _, q := range sm.procs {
			if q.kind == t.Kind {
				m += sm.mean(q)
			}
		}
	}
	if t.Boost > m {
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
		if p.size != nil && t.applies(p) {
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
	// CountFrom and CountTo bound the counted window.
	CountFrom, CountTo time.Duration
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
	tailAll := sm.tailShare(pr.Tilt)
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
	// A Follow tilt draws the other kinds' processes first, then takes
	// the tilted kind's windows from the run made with those faults
	// (once, when first needed: an untilted draw needs them only to
	// weigh a tail-sized arrival).
	follow := pr.Tilt.Follow && pr.Tilt.Window > 0 && sm.reference
	procs := sm.procs
	if follow {
		procs = make([]arrivalProcess, 0, len(sm.procs))
		for _, p := range sm.procs {
			if !pr.Tilt.applies(p) {
				procs = append(procs, p)
			}
		}
		for _, p := range sm.procs {
			if pr.Tilt.applies(p) {
				procs = append(procs, p)
			}
		}
	}
	var followed map[string]window
	for _, p := range procs {
		// win is the process's danger window; gamma the share of tail
		// draws put in it (0 without one).
		win := func() window { return p.window }
		if follow && pr.Tilt.applies(p) {
			win = func() window {
				if followed == nil {
					s.Faults = faults
					followed = sm.followWindows(s, RunSeed(seed, index))
				}
				return followed[p.target+"\x00"+p.from]
			}
		}
		gammaOf := func() float64 {
			if pr.Tilt.Window > 0 && win().total > 0 {
				return pr.Tilt.Window
			}
			return 0
		}
		lambda := p.perHour / float64(time.Hour) // per nanosecond of virtual time
		k := sm.boost(p, pr.Tilt)
		draw := lambda
		if tilted {
			draw *= k
		}
		H := float64(sm.span())
		tail, sharp := tailAll, pr.Tilt.Sharp
		if !pr.Tilt.applies(p) {
			tail, sharp = 0, 0
		}
		var ts []int
		if p.size != nil {
			ts = tailSegments(*p.size)
			if pr.Tilt.Top {
				ts = ts[len(ts)-1:]
			}
		}
		type arrival struct {
			at   time.Duration
			seg  int
			tail bool // drawn from the tail (a sharpened position)
		}
		var arr []arrival
		nominalSeg := func() int {
			if p.size == nil {
				return -1
			}
			return sizeSegment(r, *p.size, 0)
		}
		gamma := -1.0 // not yet known
		// timeOnly: a Window without Tail moves arrival times alone: each
		// arrival of the kind, its size the profile's, lands in the
		// window with probability gamma.
		timeOnly := pr.Tilt.Tail <= 0 && pr.Tilt.Window > 0 && pr.Tilt.applies(p)
		if tilted && timeOnly {
			gamma = gammaOf()
			for t := r.ExpFloat64(); t < draw*H; t += r.ExpFloat64() {
				a := arrival{seg: nominalSeg(), at: time.Duration(r.Float64() * H)}
				if gamma > 0 && r.Float64() < gamma {
					a.at = win().at(r.Float64())
				}
				arr = append(arr, a)
			}
			slices.SortStableFunc(arr, func(x, y arrival) int { return int(x.at - y.at) })
		} else if tilted {
			gamma = gammaOf()
			// k λ H arrivals on average; each, with probability tail, a
			// tail size placed in the danger window with probability
			// gamma; else a size by the profile's weights, anywhere.
			for t := r.ExpFloat64(); t < draw*H; t += r.ExpFloat64() {
				a := arrival{seg: -1}
				if p.size != nil && r.Float64() < tail {
					a.seg, a.tail = ts[r.IntN(len(ts))], true
					if gamma > 0 && r.Float64() < gamma {
						a.at = win().at(r.Float64())
					} else {
						a.at = time.Duration(r.Float64() * H)
					}
				} else {
					a.seg = nominalSeg()
					a.at = time.Duration(r.Float64() * H)
				}
				arr = append(arr, a)
			}
			slices.SortStableFunc(arr, func(x, y arrival) int { return int(x.at - y.at) })
		} else {
			for t := r.ExpFloat64() / draw; t < H; t += r.ExpFloat64() / draw {
				arr = append(arr, arrival{at: time.Duration(t), seg: nominalSeg()})
			}
		}
		n := len(arr)
		for _, a := range arr {
			f := sim.Fault{Kind: p.kind, Target: p.target, At: a.at}
			if timeOnly {
				// The arrival time's density under the tilt over the
				// profile's: (1 - gamma) + gamma x H / window in it.
				if gamma < 0 {
					gamma = gammaOf()
				}
				if w := win(); gamma > 0 {
					hq := 1 - gamma
					if w.contains(a.at) {
						hq += gamma * H / float64(w.total)
					}
					logRatio += math.Log(hq)
				}
			}
			if p.size != nil {
				// One arrival's (time, size) density under the tilt over
				// the profile's: (1 - tail) + tail x (the tail's segment
				// weight over the profile's) x (H x the window's time
				// density) x (the sharpened position's density), the
				// last three only for a tail segment.
				u := r.Float64()
				if a.tail && sharp > 1 {
					u = math.Pow(u, 1/sharp)
				}
				ratio := 1 - tail
				if tail > 0 && slices.Contains(ts, a.seg) {
					if gamma < 0 {
						gamma = gammaOf()
					}
					hq := 1.0
					if gamma > 0 {
						hq = 1 - gamma
						if w := win(); w.contains(a.at) {
							hq += gamma * H / float64(w.total)
						}
					}
					if sharp > 1 {
						hq *= sharp * math.Pow(u, sharp-1)
					}
					ratio += tail / (float64(len(ts)) * p.size.mass(a.seg)) * hq
				}
				logRatio += math.Log(ratio)
				size := p.size.inSegment(a.seg, u)
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
			case sim.FaultStarve:
				f.Task = p.task
			}
			faults = append(faults, f)
		}
		// Poisson process of marked arrivals over [0, H): rate^n
		// e^(-rate H) times each arrival's (time, size) density; the
		// per-arrival ratios are above, the rates' part here.
		logRatio += float64(n)*math.Log(k) - (k-1)*lambda*H
	}
	s.Faults = faults
	w := 1.0
	if pr.Defensive < 1 {
		w = 1 / (pr.Defensive + (1-pr.Defensive)*math.Exp(logRatio))
	}
	return Sample{Spec: s, LogRatio: logRatio, Weight: w, Tilted: tilted, CountFrom: sm.settle, CountTo: sm.settle + sm.horizon}
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
