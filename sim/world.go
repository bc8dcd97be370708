package sim

import (
	"hash/fnv"
	"math/rand/v2"
	"time"

	"locksim/clock"
	"locksim/network"
)

// World is one simulation run: the event loop and everything it drives.
// A World is used once: build it with New, call Run.
type World struct {
	cfg  Config
	seed uint64
	now  time.Duration
	seq  uint64
	q    queue
	// sched picks among same-instant events (interleave.go); nil for
	// the fixed order.
	sched *scheduler
	log   eventLog
	net   *network.Network

	events int   // events processed, bounded by cfg.Limits.MaxEvents
	err    error // the error that stopped the run, if any
	done   bool

	procs    map[string]*proc
	procList []*proc // config order
	nodes    map[string]*node
	nodeList []*node
	groups   map[string]*group
	services map[string]*service
	sentinel *sentinel
	cluster  *cluster // nil unless Config.Cluster.Enabled

	callSlab []call            // calls not handed out yet (newCall)
	slabs    []*[callSlab]call // every slab the run took, for releaseCalls

	triggers []*armedTrigger
	// faultOut is what became of each of cfg.Faults (FaultOutcomes);
	// netHits ties delay and drop faults to their network windows.
	faultOut []FaultOutcome
	netHits  []netHit
	liveMain int // client Mains still running
	current  *task

	// Stepping state (step.go): drainUntil is when the drain after the
	// last client ends stops (-1 until it starts).
	started    bool
	finished   bool
	drainUntil time.Duration
	// ext holds the external processes and their streams (external.go,
	// stream.go); nil when the run has none.
	ext *externals
	// version is the release the nodes model (Config.Server).
	version Version
}

type armedTrigger struct {
	f     Fault
	i     int // index in Config.Faults
	count int // matching events so far; -1 once fired
	since int // Since events so far (counting starts after SinceNth of them)
}

// New validates cfg and builds a world for one run with the given seed.
func New(cfg Config, seed uint64) (*World, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &World{
		cfg: cfg, seed: seed,
		procs: map[string]*proc{}, nodes: map[string]*node{},
		groups: map[string]*group{}, services: map[string]*service{},
		log: newEventLog(cfg.HistoryBuf),
	}
	w.version, _ = ParseVersion(cfg.Server) // validated
	var err error
	w.net, err = network.New(cfg.Network, w.rng("network"))
	if err != nil {
		return nil, err
	}
	for _, nc := range cfg.Nodes {
		n, err := newNode(w, nc)
		if err != nil {
			return nil, err
		}
		w.nodes[nc.Name] = n
		w.nodeList = append(w.nodeList, n)
	}
	for _, gc := range cfg.Groups {
		g := &group{name: gc.Name, primary: gc.Primary, members: append([]string{gc.Primary}, gc.Replicas...)}
		w.groups[gc.Name] = g
		for _, m := range g.members {
			w.nodes[m].group = g
		}
		w.nodes[gc.Primary].role = rolePrimary
		for _, r := range gc.Replicas {
			w.nodes[r].role = roleReplica
			w.nodes[r].following = gc.Primary
		}
		w.nodes[gc.Primary].connectReplicas()
	}
	for _, sc := range cfg.Services {
		w.services[sc.Name] = &service{name: sc.Name, h: sc.Handler, ctx: ServiceCtx{w: w, name: sc.Name}}
	}
	w.sentinel = newSentinel(w)
	if cfg.Cluster.Enabled {
		w.cluster = newCluster(w)
	}
	w.sched = w.newScheduler()
	for _, cc := range cfg.Clients {
		c, _ := clock.New(cc.Clock) // validated
		p := &proc{w: w, name: cc.Name, clock: c, main: cc.Main, rng: w.rng("client/" + cc.Name), process: cc.Process}
		if cc.External {
			w.newExternal(p)
		}
		w.procs[cc.Name] = p
		w.procList = append(w.procList, p)
	}
	return w, nil
}

// wall returns clock c's wall-clock reading now: Config.Epoch (by default
// clock.Epoch) plus the clock's local reading.
func (w *World) wall(c *clock.Clock) time.Time {
	if w.cfg.Epoch.IsZero() {
		return c.Wall(w.now)
	}
	return w.cfg.Epoch.Add(c.Local(w.now))
}

// rng derives an independent generator for one component from the seed.
func (w *World) rng(component string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(component))
	return rand.New(rand.NewPCG(w.seed, h.Sum64()))
}

// Now returns the current true time.
func (w *World) Now() time.Duration { return w.now }

// Seed returns the run's seed.
func (w *World) Seed() uint64 { return w.seed }

// schedule runs fn at true time at (never before now).
func (w *World) schedule(at time.Duration, fn func()) {
	w.scheduleAction(at, action{kind: actFunc, fn: fn})
}

// scheduleAction runs a at true time at (never before now).
func (w *World) scheduleAction(at time.Duration, a action) {
	if at < w.now {
		at = w.now
	}
	w.seq++
	w.q.push(event{at: at, seq: w.seq, a: a})
}

// run carries out one action.
func (w *World) run(a action) {
	switch a.kind {
	case actFunc:
		a.fn()
	case actPerform:
		w.perform(a.t)
	case actRequest:
		w.deliverRequest(a.c)
	case actReply:
		w.deliverReply(a.c)
	case actCallTimeout:
		w.callTimedOut(a.c)
	default: // the wake-ups
		w.wake(a)
	}
}

// record appends e to the history, stamping Seq and At, and fires the
// triggers it matches. e is the caller's, filled in and copied once into
// the log (an Event is 216 bytes: passed by value it was copied three
// times on its way there).
func (w *World) record(e *Event) {
	e.Reply = boundText(e.Reply)
	w.recordBounded(e)
}

// recordBounded is record of an event whose Reply is bounded already
// (recordedReply, call.text): cut again, its "...(N bytes)" would count
// the cut text.
func (w *World) recordBounded(e *Event) {
	e.Seq = w.log.total
	e.At = w.now
	e.Args = boundArgs(e.Args)
	w.log.add(e)
	if w.cfg.Observe != nil {
		w.cfg.Observe(w, *e)
	}
	if len(w.triggers) == 0 {
		return
	}
	for _, tr := range w.triggers {
		t := tr.f.After
		if tr.count < 0 || t.Actor != e.Actor {
			continue
		}
		if t.Since != "" && tr.since < max(t.SinceNth, 1) {
			if e.Kind == t.Since {
				tr.since++
			}
			continue
		}
		if t.Kind != e.Kind || t.Task != "" && t.Task != e.Task {
			continue
		}
		tr.count++
		if tr.count < max(t.Nth, 1) {
			continue
		}
		tr.count = -1 // fired; never again
		f, i := tr.f, tr.i
		if f.At == 0 {
			w.applyFault(i, f)
		} else {
			w.faultOut[i] = FaultAfterEnd // until it comes due
			w.schedule(w.now+f.At, func() { w.applyFault(i, f) })
		}
	}
}

// fail stops the run with err (the first error wins).
func (w *World) fail(err error) {
	if w.err == nil {
		w.err = err
	}
	w.done = true
}

// Run runs the world to its end and returns the history. The error is
// non-nil when the run hit a limit, a client panicked, or a client's Main
// returned an error; the history up to that point is still returned. It is
// Start, Step until it reports the end, and Finish (see step.go), which a
// driver of external processes calls itself.
func (w *World) Run() (History, error) {
	w.Start()
	for w.Step() {
	}
	return w.Finish()
}

// shutdown stops every coroutine still suspended, so no goroutine outlives
// the run, and hands the nodes' miniredis instances and Lua states back for
// other runs.
func (w *World) shutdown() {
	for _, p := range w.procList {
		p.killTasks()
	}
	for _, n := range w.nodeList {
		n.release()
	}
	w.releaseCalls()
}

// Events returns how many events the loop processed.
func (w *World) Events() int { return w.events }

// Run builds a world from cfg and seed and runs it.
func Run(cfg Config, seed uint64) (History, error) {
	w, err := New(cfg, seed)
	if err != nil {
		return nil, err
	}
	return w.Run()
}
