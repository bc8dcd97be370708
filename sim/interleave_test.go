package sim

import (
	"maps"
	"slices"
	"testing"
	"time"

	"locksim/network"
)

// sameInstant is three clients contending on a network of constant
// latency: their first requests reach the node at the same instant.
func sameInstant(il Interleave) Config {
	cfg := oneNode(
		ClientConfig{Name: "A", Main: lockLoop(2, time.Second, 20*ms)},
		ClientConfig{Name: "B", Main: lockLoop(2, time.Second, 20*ms)},
		ClientConfig{Name: "C", Main: lockLoop(2, time.Second, 20*ms)},
	)
	cfg.Network = network.Config{Default: network.Latency{Min: ms, Max: ms}}
	cfg.Interleave = il
	return cfg
}

// firstHolder is who acquired first.
func firstHolder(h History) string {
	if a := kinds(h, "", "acquired"); len(a) > 0 {
		return a[0].Actor
	}
	return ""
}

var schedulers = []string{"random", "pct:1", "pct:2", "pct:3/10"}

// TestInterleaveSameSeedSameBytes: under every scheduler the same seed
// gives the same history, byte for byte, and the fixed order (the zero
// value) is today's: the first requests arrive together and the first
// client scheduled always wins them.
func TestInterleaveSameSeedSameBytes(t *testing.T) {
	for _, name := range append([]string{"fixed"}, schedulers...) {
		il, err := ParseInterleave(name)
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 5; seed++ {
			a, b := mustRun(t, sameInstant(il), seed), mustRun(t, sameInstant(il), seed)
			if a.Text() != b.Text() || a.Hash() != b.Hash() {
				t.Fatalf("%s, seed %d: two runs gave different histories", name, seed)
			}
			if name == "fixed" {
				if got := firstHolder(a); got != "A" {
					t.Fatalf("fixed order, seed %d: %s acquired first, want A (scheduled first)", seed, got)
				}
				if h := mustRun(t, sameInstant(Interleave{}), seed); h.Hash() != a.Hash() {
					t.Fatalf("fixed parsed and the zero value differ at seed %d", seed)
				}
			}
		}
	}
}

// TestInterleaveExploresWhoWins: the random and PCT schedulers let each
// client win the same-instant race for some seed; the fixed order never
// lets anyone but A.
func TestInterleaveExploresWhoWins(t *testing.T) {
	for _, name := range schedulers {
		il, _ := ParseInterleave(name)
		won := map[string]bool{}
		choices := 0
		for seed := uint64(1); seed <= 40; seed++ {
			w, err := New(sameInstant(il), seed)
			if err != nil {
				t.Fatal(err)
			}
			h, err := w.Run()
			if err != nil {
				t.Fatal(err)
			}
			won[firstHolder(h)] = true
			st := w.InterleaveStats()
			choices = max(choices, st.Choices)
			if st.Choices == 0 || st.Lanes < 3 {
				t.Fatalf("%s, seed %d: stats %+v: the three first requests compete", name, seed, st)
			}
		}
		if !won["A"] || !won["B"] || !won["C"] {
			t.Fatalf("%s: first holders over 40 seeds: %v, want each of A, B, C", name, won)
		}
	}
}

// TestInterleaveKeepsLaneOrder pops a queue of same-instant events under
// each scheduler and many seeds: within a lane (a task's steps, a link's
// messages, the world's own events) the order is the scheduling order,
// the later instant comes last, and every lane's first event comes first
// for some seed.
func TestInterleaveKeepsLaneOrder(t *testing.T) {
	pa, pb := &proc{name: "A"}, &proc{name: "B"}
	t1, t2 := &task{p: pa, name: "main"}, &task{p: pa, name: "watchdog"}
	tb := &task{p: pb, name: "main"}
	reqA1, reqA2 := &call{t: t1, to: "r1"}, &call{t: t2, to: "r1"}
	reqB := &call{t: tb, to: "r1"}
	type item struct {
		at   time.Duration
		lane string
		a    action
	}
	items := []item{
		{ms, "world", action{kind: actFunc}},
		{ms, "A/main", action{kind: actWake, t: t1}},
		{ms, "A->r1", action{kind: actRequest, c: reqA1}},
		{ms, "world", action{kind: actFunc}},
		{ms, "A/watchdog", action{kind: actWake, t: t2}},
		{ms, "A->r1", action{kind: actRequest, c: reqA2}},
		{ms, "A/main", action{kind: actPerform, t: t1}},
		{ms, "B->r1", action{kind: actRequest, c: reqB}},
		{ms, "r1->B", action{kind: actReply, c: reqB}},
		{ms, "A/main", action{kind: actCallTimeout, c: reqA1}},
		{2 * ms, "late", action{kind: actFunc}},
	}
	for _, name := range schedulers {
		il, _ := ParseInterleave(name)
		firsts := map[string]bool{}
		for seed := uint64(1); seed <= 200; seed++ {
			w, err := New(Config{Interleave: il}, seed)
			if err != nil {
				t.Fatal(err)
			}
			for i, it := range items {
				w.seq++
				w.q.push(event{at: it.at, seq: uint64(i), a: it.a})
			}
			var order []int
			for w.pending() > 0 {
				order = append(order, int(w.popNext().seq))
			}
			if len(order) != len(items) || order[len(order)-1] != len(items)-1 {
				t.Fatalf("%s seed %d: popped %v", name, seed, order)
			}
			last := map[string]int{}
			for _, i := range order {
				l := items[i].lane
				if j, ok := last[l]; ok && j > i {
					t.Fatalf("%s seed %d: lane %s ran event %d after %d: %v", name, seed, l, i, j, order)
				}
				last[l] = i
			}
			firsts[items[order[0]].lane] = true
		}
		for _, l := range []string{"world", "A/main", "A->r1", "A/watchdog", "B->r1", "r1->B"} {
			if !firsts[l] {
				t.Errorf("%s: lane %s never ran first over 200 seeds (firsts %v)", name, l, slices.Sorted(maps.Keys(firsts)))
			}
		}
	}
}

func TestParseInterleave(t *testing.T) {
	for _, s := range []string{"fixed", "random", "pct:1", "pct:3", "pct:8/1000", "preempt:", "preempt:3.1,7.2"} {
		il, err := ParseInterleave(s)
		if err != nil || il.String() != s {
			t.Errorf("%q: %+v %v, String %q", s, il, err, il.String())
		}
	}
	for _, s := range []string{"pct", "pct:0", "pct:9", "pct:2/0", "pct:2/x", "Random", "pct:2/2000000", "preempt:3.0", "preempt:3.1,3.2", "preempt:x"} {
		if _, err := ParseInterleave(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
	if _, err := New(Config{Interleave: Interleave{Policy: "sideways"}}, 1); err == nil {
		t.Error("an unknown policy validated")
	}
}

// TestScriptWithoutReordersIsTheFixedOrder: exhaustive mode's script
// policy with no reorder gives the fixed order's history byte for byte,
// and records its choice points; a reorder at the first choice point
// lets another client win the same-instant race.
func TestScriptWithoutReordersIsTheFixedOrder(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		fixed := mustRun(t, sameInstant(Interleave{}), seed)
		w, err := New(sameInstant(Interleave{Policy: InterleaveScript}), seed)
		if err != nil {
			t.Fatal(err)
		}
		h, err := w.Run()
		if err != nil || h.Hash() != fixed.Hash() {
			t.Fatalf("seed %d: the script with no reorder differs from the fixed order (err %v)", seed, err)
		}
		st := w.InterleaveStats()
		if len(st.Points) != st.Choices || st.Choices == 0 || len(st.Points[0].Lanes) < 2 {
			t.Fatalf("seed %d: choice points %+v", seed, st)
		}
		il, _ := ParseInterleave("preempt:1.1")
		if got := firstHolder(mustRun(t, sameInstant(il), seed)); got == "A" {
			t.Fatalf("seed %d: a reorder at the first choice point still let A win", seed)
		}
	}
}
