package engine

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// explore builds the explorer of c, failing the test on an error.
func explore(t *testing.T, c ExhaustiveConfig) *explorer {
	t.Helper()
	x, res, err := newExplorer(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() {
		t.Fatalf("the fault-free run of %s breaks", c.Base.Design)
	}
	return x
}

func exhaustive(t *testing.T, c ExhaustiveConfig) *ExhaustiveResult {
	t.Helper()
	r, err := Exhaustive(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// redlock3 is Redlock on three masters, A first, with a critical section
// long enough for B to contend while A holds: where two faults break it.
func redlock3() model.Spec {
	return model.Spec{Design: model.Redlock, Topology: model.Topology{Masters: 3},
		Workload: model.Workload{Work: 500 * time.Millisecond, Start: 10 * time.Millisecond}}
}

// Every schedule's run is the fault-free run up to its point, and its
// fault takes hold at the point's instant, right after it: what makes a
// trigger on the fault-free run name the same moment in the faulted one.
func TestPointsShareTheFaultFreePrefix(t *testing.T) {
	specs := []model.Spec{{Design: model.SetPxGetdel}, {Design: model.WaitReplica}, {Design: model.Watchdog,
		Workload: model.Workload{Work: 700 * time.Millisecond}}, redlock3()}
	if testing.Short() { // make test: one node and several masters; make long: all four
		specs = []model.Spec{specs[0], specs[3]}
	}
	for _, s := range specs {
		x := explore(t, ExhaustiveConfig{Base: s})
		for _, sc := range x.depthOne() {
			p := x.points[sc.point]
			spec := x.spec
			spec.Faults = sc.Faults
			r, err := model.Run(spec, x.seed)
			if err != nil {
				t.Fatal(err)
			}
			h := r.History
			if len(h) <= p.Rep || !slices.EqualFunc(h[:p.Rep+1], x.base[:p.Rep+1], func(a, b sim.Event) bool { return a.Line() == b.Line() }) {
				t.Fatalf("%s: %s: the run differs from the fault-free run before its point", s.Design, sc.Lines())
			}
			at := p.At + sc.Faults[0].At // the offset of a crash just after a node replied
			took := slices.ContainsFunc(h[p.Rep+1:], func(e sim.Event) bool { return history.IsFault(e.Kind) && e.At == at })
			if !took {
				t.Fatalf("%s: %s: no fault took hold at %v, right after the point", s.Design, sc.Lines(), at)
			}
		}
	}
}

// A point stands for several events only if a fault placed at any of
// them does what it does at the point's own: each fault of each point,
// moved to every other event of the point, breaks the same invariants.
func TestPointDedupIsSound(t *testing.T) {
	for _, s := range []model.Spec{{Design: model.SetPxGetdel}, {Design: model.WaitReplica}, {Design: model.ReentrantHash}} {
		x := explore(t, ExhaustiveConfig{Base: s})
		moved := 0
		for _, sc := range x.depthOne() {
			p := x.points[sc.point]
			at := x.run(sc).Broken
			for pos := p.First; pos < p.First+p.Events; pos++ {
				if pos == p.Rep {
					continue
				}
				f := sc.Faults[0]
				tr := triggerAt(x.base, pos)
				f.After = &tr
				other := x.run(Schedule{Faults: []sim.Fault{f}})
				if other.Error != "" || !slices.Equal(other.Broken, at) {
					t.Errorf("%s: %s breaks %v at its point but %v (%s) at %s", s.Design, sc.Lines(), at, other.Broken, other.Error, tr)
				}
				moved++
			}
		}
		if moved == 0 {
			t.Fatalf("%s: no point stands for more than one event", s.Design)
		}
	}
}

// triggerAt names the event at position pos of h as a trigger.
func triggerAt(h sim.History, pos int) sim.Trigger {
	e := h[pos]
	n := 0
	for _, o := range h[:pos+1] {
		if o.Actor == e.Actor && o.Kind == e.Kind {
			n++
		}
	}
	return sim.Trigger{Actor: e.Actor, Kind: e.Kind, Nth: n}
}

// The danger maps of three designs: set-px-lua's pause-after-acquire
// zone loses data; set-px-getdel's release, between its GET and its DEL,
// breaks the lease (the stale release); fenced with strict-reads has no
// zone where one fault loses data.
func TestDangerMaps(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec model.Spec
		// want maps a point's trigger to the harm one fault there does.
		want map[string]invariant.Harm
		// noData: no point may lose data.
		noData bool
	}{
		{"set-px-lua", model.Spec{Design: model.SetPxLua}, map[string]invariant.Harm{
			"A acquired #1": invariant.HarmData, "A read #1": invariant.HarmData, "A write #1": invariant.HarmData,
			"A acquire-start #1": invariant.HarmNone, "A released #1": invariant.HarmNone}, false},
		{"set-px-getdel", model.Spec{Design: model.SetPxGetdel}, map[string]invariant.Harm{
			"A acquired #1": invariant.HarmData, "A release-send #1": invariant.HarmLease, "A released #1": invariant.HarmNone}, false},
		{"fenced-strict-reads", model.Spec{Design: model.Fenced, Fencing: model.FenceStrictReads}, map[string]invariant.Harm{
			"A acquired #1": invariant.HarmLease}, true},
		// The deadline option shrinks A's red zone: a pause after the read
		// is caught by the check before the write; the pause right after
		// the check (A's write event) still loses data (gc-pause).
		{"set-px-lua-deadline", model.Spec{Design: model.SetPxLua, Options: model.Options{Deadline: true}}, map[string]invariant.Harm{
			"A read #1": invariant.HarmNone, "A write #1": invariant.HarmData}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := exhaustive(t, ExhaustiveConfig{Base: tc.spec})
			got := map[string]invariant.Harm{}
			for _, d := range r.Danger {
				got[d.Trigger] = max(got[d.Trigger], d.Harm)
				if tc.noData && d.Harm == invariant.HarmData {
					t.Errorf("%s loses data: %s", d.Trigger, d.WorstFault)
				}
			}
			for trig, h := range tc.want {
				if g, ok := got[trig]; !ok || g != h {
					t.Errorf("danger at %s: %v, want %v", trig, g, h)
				}
			}
		})
	}
}

// Depth 2 finds, from the fault-free run of Redlock on three masters, the
// breaks that need two faults: a clock jump of a node in A's majority that
// B then takes the lock with, and a node that restarts empty (persistence
// off) and grants B the lock A still holds. Depth 1 finds neither.
func TestDepthTwoFindsRedlockBreaks(t *testing.T) {
	for _, tc := range []struct {
		name      string
		kinds     []sim.FaultKind
		durations []string
		// culprit is the fault kind whose node B must have taken the lock
		// with.
		culprit sim.FaultKind
	}{
		{"clock-jump", []sim.FaultKind{sim.FaultPartition, sim.FaultClockJump}, []string{"ttl+"}, sim.FaultClockJump},
		{"restart-empty", []sim.FaultKind{sim.FaultNodeCrash}, []string{"node-timeout+"}, sim.FaultNodeCrash},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ExhaustiveConfig{Base: redlock3(), Kinds: tc.kinds, Durations: tc.durations, Invariants: []invariant.ID{invariant.MutualExclusion}}
			if one := exhaustive(t, c); one.Failed() {
				t.Fatalf("one fault already breaks it: %s", one.Breaks[0].Smallest.Lines())
			}
			c.Depth, c.StopAtFirst = 2, true
			r := exhaustive(t, c)
			if !r.Stopped || len(r.Breaks) != 1 {
				t.Fatalf("depth 2 found no break in %d schedules", r.Total())
			}
			s := r.Breaks[0].Smallest
			run, err := r.Rerun(s)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(invariant.Broken(run.Failures()), invariant.MutualExclusion) {
				t.Fatalf("%s does not break mutual exclusion on replay", s.Lines())
			}
			ix := history.New(run.History)
			var a, b *history.Section
			for i := range ix.Sections {
				switch sec := &ix.Sections[i]; sec.Client {
				case "A":
					a = cmpOr(a, sec)
				case "B":
					b = cmpOr(b, sec)
				}
			}
			if a == nil || b == nil {
				t.Fatalf("%s: no sections of both A and B", s.Lines())
			}
			hit := false
			for _, f := range s.Faults {
				if f.Kind == tc.culprit && slices.Contains(a.Nodes, f.Target) && slices.Contains(b.Nodes, f.Target) {
					hit = true
				}
			}
			if !hit {
				t.Errorf("%s: B (granted by %v) took no node of A's majority %v through a %s", s.Lines(), b.Nodes, a.Nodes, tc.culprit)
			}
			t.Logf("%s after %d schedules: %s", r.Breaks[0].Mechanism, r.Total(), strings.Join(s.Lines(), "; "))
		})
	}
}

func cmpOr(a, b *history.Section) *history.Section {
	if a != nil {
		return a
	}
	return b
}

// The result does not depend on the worker count, at either depth.
func TestExhaustiveWorkersDoNotMatter(t *testing.T) {
	for _, c := range []ExhaustiveConfig{
		{Base: model.Spec{Design: model.SetPxGetdel}},
		{Base: model.Spec{Design: model.SetPxLua}, Depth: 2, Kinds: []sim.FaultKind{sim.FaultPause, sim.FaultNodeCrash}, Durations: []string{"ttl/2"}},
	} {
		c.Workers = 1
		one := exhaustive(t, c)
		c.Workers = 3
		three := exhaustive(t, c)
		opt := cmp.AllowUnexported(Schedule{}, DangerPoint{})
		if diff := cmp.Diff(one.Breaks, three.Breaks, opt); diff != "" {
			t.Errorf("depth %d: breaks differ between 1 and 3 workers:\n%s", c.Depth, diff)
		}
		if diff := cmp.Diff(one.Danger, three.Danger, opt); diff != "" {
			t.Errorf("depth %d: danger maps differ:\n%s", c.Depth, diff)
		}
		if !slices.Equal(one.Schedules, three.Schedules) || one.Guarantee() != three.Guarantee() {
			t.Errorf("depth %d: %s vs %s", c.Depth, one.Guarantee(), three.Guarantee())
		}
	}
}

// Bad bounds and names are errors that say what to change, before any
// faulted run.
func TestExhaustiveRefuses(t *testing.T) {
	for _, tc := range []struct {
		c    ExhaustiveConfig
		want string
	}{
		{ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua}, MaxSchedules: 10}, "more than the bound of 10"},
		{ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua}, Depth: 2, MaxSchedules: 1000}, "two-fault schedules, more than the bound of 1000"},
		{ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua}, Depth: 3}, "depth 3"},
		{ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua}, Durations: []string{"down-after+"}}, `no duration class "down-after+"`},
		{ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua}, Kinds: []sim.FaultKind{sim.FaultEvict}}, `"evict" is not placed exhaustively`},
		{ExhaustiveConfig{Base: model.Spec{Design: "nope"}}, "nope"},
	} {
		_, err := Exhaustive(tc.c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.c.Depth, err, tc.want)
		}
	}
}

// A design that breaks with no fault at all says so, and explores nothing.
func TestExhaustiveFaultFreeBreak(t *testing.T) {
	r := exhaustive(t, ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua, Workload: model.Workload{Work: 1500 * time.Millisecond}}})
	if !r.Failed() || r.Total() != 0 || len(r.Breaks) != 1 || r.Breaks[0].Mechanism != "no fault at all" {
		t.Fatalf("%s", r.Guarantee())
	}
	if g := r.Guarantee(); !strings.Contains(g, "with no fault at all") {
		t.Errorf("guarantee %q", g)
	}
}

// The guarantee names every counted invariant it judged, 0 included, and
// the sizes of what it explored.
func TestGuaranteeSentence(t *testing.T) {
	r := exhaustive(t, ExhaustiveConfig{Base: model.Spec{Design: model.Fenced, Fencing: model.FenceStrictReads}})
	g := r.Guarantee()
	for _, want := range []string{"explored all " + thousands(r.Total()) + " one-fault schedules of design fenced",
		thousands(r.Points) + " points of the fault-free run", "7 fault kinds", "0 broke lost-update", "0 broke liveness"} {
		if !strings.Contains(g, want) {
			t.Errorf("guarantee %q lacks %q", g, want)
		}
	}
	if strings.Contains(g, "reentrancy") {
		t.Errorf("guarantee %q names an invariant the design is not judged by", g)
	}
}

// A schedule that stops with an error stops exhaustive mode: no guarantee,
// no verdicts, no danger map.
func TestExhaustiveStoppedNoGuarantee(t *testing.T) {
	lua := &model.LuaScripts{Acquire: "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])",
		Release: "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('not mine') end return redis.call('DEL', KEYS[1])"}
	r := exhaustive(t, ExhaustiveConfig{Base: model.Spec{Design: model.LuaDesignID, Lua: lua}})
	if r.FirstError == nil {
		t.Fatalf("no schedule stopped: %s", r.Guarantee())
	}
	if g := r.Guarantee(); !strings.HasPrefix(g, "no guarantee: schedule ") || strings.Contains(g, "explored all") {
		t.Errorf("guarantee %q", g)
	}
}

// Looking for a counterexample, the bound ends the search and says so: no
// count first, no guarantee after.
func TestStopAtFirstHitsTheBound(t *testing.T) {
	r := exhaustive(t, ExhaustiveConfig{Base: model.Spec{Design: model.Fenced, Fencing: model.FenceStrictReads}, Depth: 2,
		Kinds: []sim.FaultKind{sim.FaultPause}, Durations: []string{"ttl/2"}, Invariants: []invariant.ID{invariant.LostUpdate},
		StopAtFirst: true, MaxSchedules: 300})
	if !r.HitBound || r.Failed() || r.Total() != 300 {
		t.Fatalf("hit the bound %v, failed %v, %d schedules", r.HitBound, r.Failed(), r.Total())
	}
	if g := r.Guarantee(); !strings.HasPrefix(g, "no break in the first 300 schedules") || !strings.Contains(g, "not a guarantee") {
		t.Errorf("guarantee %q", g)
	}
}

// The JSON says no-verdict where the text does: an invariant without a
// verdict in every schedule judged is not "held".
func TestExhaustiveJSONNoVerdict(t *testing.T) {
	r := &ExhaustiveResult{Design: "d", Schedules: []int{10}, Counted: invariant.All, Judged: map[invariant.ID]string{},
		Counts: map[invariant.ID]int{}, Uncounted: map[invariant.ID]int{}, Undecided: map[invariant.ID]int{invariant.Liveness: 10}}
	var b strings.Builder
	if err := ExhaustiveJSON(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Locksim    Build                          `json:"locksim"`
		Invariants []struct{ ID, Verdict string } `json:"invariants"`
	}
	if err := json.Unmarshal([]byte(b.String()), &j); err != nil {
		t.Fatal(err)
	}
	if j.Locksim.Fingerprint != Fingerprint || j.Locksim.Version != Version {
		t.Errorf("the JSON names the simulator %+v, want fingerprint %s", j.Locksim, Fingerprint)
	}
	for _, v := range j.Invariants {
		want := "held"
		if v.ID == string(invariant.Liveness) {
			want = "no-verdict"
		}
		if v.Verdict != want {
			t.Errorf("%s: %s, want %s", v.ID, v.Verdict, want)
		}
	}
	r.Undecided[invariant.Liveness] = 9 // one schedule decided it
	b.Reset()
	if err := ExhaustiveJSON(&b, r, nil); err != nil || !strings.Contains(b.String(), `"verdict": "held"`) || strings.Contains(b.String(), "no-verdict") {
		t.Errorf("9 of 10 undecided: %v\n%s", err, b.String())
	}
}

// The JSON of a fault-free break says so, as the text does.
func TestExhaustiveJSONFaultFreeOnly(t *testing.T) {
	r := exhaustive(t, ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua, Workload: model.Workload{Work: 1500 * time.Millisecond}}})
	var b strings.Builder
	if err := ExhaustiveJSON(&b, r, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"fault_free_only": true`) {
		t.Errorf("no fault_free_only:\n%s", b.String())
	}
}

// A schedule whose run wrote nothing (every answer of the resource to a
// write dropped from the history: writes sent, none accepted) judged
// lost-update and stale-write without a verdict, as a check's run does:
// exhaustive mode tallies it as undecided, not as held. With Run set and
// no Undecided given, the default is the model outcome's rule; a runner's
// own Undecided (a real client's checker configuration) replaces it.
func TestExhaustiveNoWriteScheduleIsNotHeldForWrites(t *testing.T) {
	unwritten := func(s model.Spec, seed uint64) (*model.Result, []int, error) {
		r, steps, err := observed(s, seed)
		if err != nil || r.Err != nil {
			return r, steps, err
		}
		var h []sim.Event
		var st []int
		for i, e := range r.History {
			if e.Kind != history.KindResWrite {
				h, st = append(h, e), append(st, steps[i])
			}
		}
		r.History = h
		return r, st, nil
	}
	c := ExhaustiveConfig{Base: model.Spec{Design: model.SetPxLua}, Kinds: []sim.FaultKind{sim.FaultPause}, Durations: []string{"ttl/2"}, Workers: 1, Run: unwritten}
	res := exhaustive(t, c)
	judged := res.JudgedSchedules()
	if judged == 0 {
		t.Fatal("no schedule judged")
	}
	for _, id := range []invariant.ID{invariant.StaleWrite, invariant.LostUpdate} {
		if res.Undecided[id] != judged {
			t.Errorf("%s: undecided in %d of %d schedules, want all (no schedule wrote)", id, res.Undecided[id], judged)
		}
	}
	if res.Undecided[invariant.MutualExclusion] != 0 {
		t.Errorf("mutual-exclusion undecided in %d schedules, want 0", res.Undecided[invariant.MutualExclusion])
	}
	c.Undecided = func(*model.Result) []invariant.ID { return []invariant.ID{invariant.MutualExclusion} }
	own := exhaustive(t, c)
	if own.Undecided[invariant.MutualExclusion] != own.JudgedSchedules() || own.Undecided[invariant.StaleWrite] != 0 {
		t.Errorf("the runner's own Undecided was not used: %v", own.Undecided)
	}
}
