package realclient

import (
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/sim"
)

// TestSplitProcesses: with two goroutines per process, every fault on a
// process acts on both of its goroutines, and only on them: a pause or
// crash is copied per goroutine, a partition side and a link end naming
// the process name both goroutines, a trigger on the process counts its
// first goroutine's events, and node faults and wildcards are left alone.
func TestSplitProcesses(t *testing.T) {
	cfg := sim.Config{Clients: []sim.ClientConfig{{Name: "A"}, {Name: "B"}}, Faults: []sim.Fault{
		{Kind: sim.FaultPause, Target: "A", Dur: time.Second, After: &sim.Trigger{Actor: "A", Kind: "acquired"}},
		{Kind: sim.FaultPartition, A: []string{"A", "r1"}, B: []string{"B"}},
		{Kind: sim.FaultDelay, From: "A", To: "*"},
		{Kind: sim.FaultNodeCrash, Target: "r1"},
	}}
	splitProcesses(&cfg, 2)
	var names []string
	for _, c := range cfg.Clients {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, ","); got != "A.1,A.2,B.1,B.2" {
		t.Fatalf("clients %s, want A.1,A.2,B.1,B.2", got)
	}
	var got []string
	for _, f := range cfg.Faults {
		s := string(f.Kind) + " " + f.Target + " " + strings.Join(f.A, "+") + "|" + strings.Join(f.B, "+") + " " + f.From + ">" + f.To
		if f.After != nil {
			s += " after " + f.After.Actor
		}
		got = append(got, s)
	}
	want := []string{
		"pause A.1 | > after A.1",
		"pause A.2 | > after A.1",
		"partition  A.1+A.2+r1|B.1+B.2 >",
		"delay  | A.1>*",
		"delay  | A.2>*",
		"node-crash r1 | >",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("faults after the split:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	one := sim.Config{Clients: []sim.ClientConfig{{Name: "A"}}, Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A"}}}
	splitProcesses(&one, 1)
	if one.Clients[0].Name != "A" || len(one.Faults) != 1 {
		t.Fatalf("one goroutine per process changed the config: %+v", one)
	}
}

// TestGoroutinesRefused: a goroutine count out of range, and a process
// name that would read as a goroutine's, are refused with the reason.
func TestGoroutinesRefused(t *testing.T) {
	for _, tc := range []struct {
		n       int
		clients []string
		want    string
	}{
		{17, nil, "want 1 to 16 goroutines"},
		{-1, nil, "want 1 to 16 goroutines"},
		{2, []string{"A.1", "B"}, `client "A.1": with WithGoroutines a process's name must not contain "."`},
	} {
		err := validateGoroutines(model.Spec{Clients: tc.clients}, tc.n)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("WithGoroutines(%d), clients %v: got %v, want an error saying %q", tc.n, tc.clients, err, tc.want)
		}
	}
	if _, err := newConfig([]Option{WithGoroutines(17)}); err == nil {
		t.Error("newConfig took WithGoroutines(17)")
	}
	if err := validateGoroutines(model.Spec{Clients: []string{"A.1"}}, 1); err != nil {
		t.Errorf("one goroutine per process refused a dotted name: %v", err)
	}
}

// TestGoroutinesExhaustiveRefused: exhaustive mode refuses several
// goroutines per process, saying why, rather than running one.
func TestGoroutinesExhaustiveRefused(t *testing.T) {
	c, err := newConfig([]Option{WithGoroutines(2), WithExhaustive(1)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.exhaustiveCheck(t, nil); err == nil || !strings.Contains(err.Error(), "WithGoroutines(2) with exhaustive mode") {
		t.Fatalf("exhaustive mode with two goroutines per process: got %v, want a refusal", err)
	}
}
