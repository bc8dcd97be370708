package verdict

import "testing"

// TestDecideRanksAndExits: each fact alone decides its kind and exit code,
// and the ranking holds when several are true (interrupted over stopped
// over nothing judged over broken over possibly broken over held).
func TestDecideRanksAndExits(t *testing.T) {
	for _, c := range []struct {
		f    Facts
		kind Kind
		cert Certainty
		exit int
		text string
	}{
		{Facts{}, Held, Certain, ExitHeld, "held"},
		{Facts{Broken: true}, Broken, Certain, ExitBroken, "broken"},
		{Facts{PossiblyBroken: true}, Broken, Possible, ExitHeld, "possibly broken"},
		{Facts{Broken: true, PossiblyBroken: true}, Broken, Certain, ExitBroken, "broken"},
		{Facts{Nothing: "no run was made", PossiblyBroken: true}, None, Certain, ExitNoVerdict, "no verdict: no run was made"},
		{Facts{Stopped: "run 3 (seed 4) stopped: boom", Broken: true, Nothing: "x"}, Stopped, Certain, ExitNoVerdict, "run 3 (seed 4) stopped: boom"},
		{Facts{Stuck: "run 1 stuck", Stopped: "y"}, Stuck, Certain, ExitNoVerdict, "run 1 stuck"},
		{Facts{Interrupted: "interrupted after 2 runs: a partial tally", Stuck: "s", Stopped: "y", Broken: true}, Interrupted, Certain, ExitInterrupted, "no verdict: interrupted after 2 runs: a partial tally"},
	} {
		v := Decide(c.f)
		if v.Kind != c.kind || v.Certainty != c.cert || v.ExitCode() != c.exit || v.String() != c.text {
			t.Errorf("Decide(%+v) = %+v (exit %d, %q); want kind %s, exit %d, %q", c.f, v, v.ExitCode(), v.String(), c.kind, c.exit, c.text)
		}
		if v.Judged() != (c.kind == Held || c.kind == Broken) {
			t.Errorf("Decide(%+v).Judged() = %v", c.f, v.Judged())
		}
	}
	if got := Decide(Facts{PossiblyBroken: true}).ExitCodeWith(ExitBroken); got != ExitBroken {
		t.Errorf("a possible break with --possible-exits 1 exits %d", got)
	}
}
