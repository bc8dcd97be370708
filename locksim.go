package locksim

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"pgregory.net/rapid"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/report"
	"locksim/sim"
)

// config is what Check runs; options change it.
type config struct {
	spec    model.Spec
	kinds   []sim.FaultKind
	caseDir string
	// invariants that count as a failure; nil means all.
	invariants []invariant.ID
	genFault   func(t *rapid.T, topo Topo) []sim.Fault
}

// Option configures Check.
type Option func(*config)

// WithTTL sets the lease TTL (default 1s).
func WithTTL(d time.Duration) Option { return func(c *config) { c.spec.Options.TTL = d } }

// WithOptions sets every design option at once (TTL, deadline, quorum...).
func WithOptions(o model.Options) Option { return func(c *config) { c.spec.Options = o } }

// WithDeadline turns on the client-deadline option (seed 000's advice).
func WithDeadline() Option { return func(c *config) { c.spec.Options.Deadline = true } }

// WithClients names the contending clients (default A, B).
func WithClients(names ...string) Option { return func(c *config) { c.spec.Clients = names } }

// WithTopology sets masters, replicas per master and persistence.
func WithTopology(t model.Topology) Option { return func(c *config) { c.spec.Topology = t } }

// WithFencing sets the resource's fencing rule.
func WithFencing(f model.Fencing) Option { return func(c *config) { c.spec.Fencing = f } }

// WithWorkload sets what each client does (default 2 cycles, 50ms work).
func WithWorkload(w model.Workload) Option { return func(c *config) { c.spec.Workload = w } }

// WithFaults chooses the fault kinds generated schedules draw from
// (default: pause, partition, delay, drop, node-crash, clock-jump).
func WithFaults(kinds ...sim.FaultKind) Option { return func(c *config) { c.kinds = kinds } }

// WithSchedule replaces the schedule generator.
func WithSchedule(gen func(t *rapid.T, topo Topo) []sim.Fault) Option {
	return func(c *config) { c.genFault = gen }
}

// WithInvariants makes only these invariants count as a failure, e.g.
// WithInvariants(invariant.LostUpdate, invariant.Fencing) to ask whether
// the data survives rather than whether the lease held.
func WithInvariants(invariants ...invariant.ID) Option {
	return func(c *config) { c.invariants = invariants }
}

// WithCaseDir sets where failing cases are saved (default testdata/locksim).
func WithCaseDir(dir string) Option { return func(c *config) { c.caseDir = dir } }

// DefaultKinds are the fault kinds Check generates by default.
var DefaultKinds = []sim.FaultKind{sim.FaultPause, sim.FaultPartition, sim.FaultDelay, sim.FaultDrop, sim.FaultNodeCrash, sim.FaultClockJump}

// Check runs rapid property checks of a lock design under generated fault
// schedules: every run must keep every invariant. design is a catalogue ID
// (string), a model.Design (your own Go design) or *model.LuaScripts. The
// number of runs is rapid's -rapid.checks (default 100).
//
// On failure the test fails with a stable message naming the design and
// the broken invariants; rapid shrinks the schedule and the log shows the
// minimal schedule, the timeline of the violation, the file the failing
// case was saved to and the one-line command that replays it.
func Check(t rapid.TB, design any, opts ...Option) {
	t.Helper()
	c := config{kinds: DefaultKinds, caseDir: filepath.Join("testdata", "locksim")}
	c.spec.Workload = model.Workload{Cycles: 2}
	switch d := design.(type) {
	case string:
		if _, err := model.LookupDesign(d); err != nil {
			t.Fatalf("locksim.Check: %v", err)
			return
		}
		c.spec.Design = d
	case model.Design:
		c.spec.Custom, c.spec.Design = d, d.Name()
	case *model.LuaScripts:
		if err := d.Validate(); err != nil {
			t.Fatalf("locksim.Check: %v", err)
			return
		}
		c.spec.Design, c.spec.Lua = model.LuaDesignID, d
	default:
		t.Fatalf("locksim.Check: design must be a catalogue ID, a model.Design or *model.LuaScripts, got %T", design)
		return
	}
	for _, o := range opts {
		o(&c)
	}
	if len(c.invariants) > 0 {
		ids, err := invariant.Parse(invariant.Names(c.invariants))
		if err != nil {
			t.Fatalf("locksim.Check: %v", err)
			return
		}
		c.invariants = ids
	}
	topo := TopoOf(c.spec)
	if c.genFault == nil {
		c.genFault = func(rt *rapid.T, topo Topo) []sim.Fault { return GenSchedule(rt, topo, c.kinds) }
	}
	casePath := filepath.Join(c.caseDir, sanitize(t.Name())+".json")
	rapid.Check(t, func(rt *rapid.T) {
		s := c.spec
		s.Faults = c.genFault(rt, topo)
		seed := rapid.Uint64().Draw(rt, "seed")
		vs, runErr, err := model.Verdict(s, seed)
		vs = invariant.Only(vs, c.invariants)
		if err != nil {
			rt.Fatalf("locksim: design %s: %v", s.Design, err)
		}
		if runErr != nil {
			rt.Fatalf("locksim: design %s: run failed: %v", s.Design, runErr)
		}
		if len(vs) == 0 {
			return
		}
		// A failure: run it again (same seed, same history) to keep the
		// history for the report and the case file.
		r, _ := model.Run(s, seed)
		r.Count(c.invariants)
		saved := casePath
		if err := NewCase(r).Save(casePath); err != nil {
			saved = "(not saved: " + err.Error() + ")"
		}
		rt.Logf("%s", FailureReport(r, saved, t.Name()))
		// The message is the same for the same bug, so shrinking works.
		rt.Fatalf("locksim: design %s broke %s", s.Design, invariant.Names(invariant.Broken(r.Failures())))
	})
}

// FailureReport is what Check logs for a failing run: the schedule, the
// violations, the timeline lanes and key events (report.TimelineText), and
// how to replay it.
func FailureReport(r *model.Result, casePath, testName string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "design %s, seed %d\nfault schedule:\n%s", r.Spec.Design, r.Seed, Describe(r.Spec.Faults))
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "violation %s [%s, %s]: %s\n", v.Invariant, sim.FormatTime(v.From), sim.FormatTime(v.To), v.Explanation)
	}
	if len(r.Violations) > 0 {
		if err := report.TimelineText(&b, r, 64); err != nil {
			b.WriteString("  (no timeline: " + err.Error() + ")\n")
		}
	}
	if r.Spec.Custom != nil {
		fmt.Fprintf(&b, "replay: go test -run '^%s$' with rapid's -rapid.failfile above,\n   or from Go: c, _ := locksim.LoadCase(%q); c.Replay(yourDesign)\n", regexp.QuoteMeta(testName), casePath)
	} else {
		fmt.Fprintf(&b, "replay: locksim replay %s\n   or: go test -run '^%s$' with rapid's -rapid.failfile above\n", casePath, regexp.QuoteMeta(testName))
	}
	return b.String()
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func sanitize(s string) string { return unsafeName.ReplaceAllString(s, "_") }
