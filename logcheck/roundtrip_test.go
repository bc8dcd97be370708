package logcheck

import (
	"bytes"

	"fmt"
	"locksim/model/history"
	"locksim/sim"
	"testing"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
)

// RoundTrip runs a spec, exports its history and checks the export with no
// skew; it returns, per log-judgeable invariant that both judge, the
// simulation's verdict (broken) and the log's (broken: a certain
// violation).
func roundTrip(t *testing.T, sp model.Spec, seed uint64) (sim, log map[invariant.ID]bool, res *Result, r *model.Result) {
	t.Helper()
	r, err := model.Run(sp, seed)
	if err != nil || r.Err != nil {
		t.Fatalf("run: %v %v", err, r.Err)
	}
	var b bytes.Buffer
	if err := Export(&b, r.History); err != nil {
		t.Fatal(err)
	}
	res, err = Check([]Input{{Name: "export.jsonl", R: &b}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := sp.CheckConfig()
	sim, log = map[invariant.ID]bool{}, map[invariant.ID]bool{}
	for _, id := range Judged {
		simJudges, _ := cfg.Judged(id)
		var v Verdict
		for _, x := range res.Verdicts {
			if x.Invariant == id {
				v = x
			}
		}
		logJudges := v.Verdict != "not judged"
		switch {
		case id == invariant.Liveness:
			continue // the simulation counts from when the faults healed, which a log does not know
		case id == invariant.Fencing && !logJudges:
			continue // no rejected write logged: nothing says the resource fences
		case id == invariant.Fencing && !simJudges:
			// A strict resource rejects an older token itself: the log
			// must find nothing either.
		case !simJudges || !logJudges:
			if simJudges != logJudges && id != invariant.TokenUnique {
				t.Errorf("%s: the simulation judges it: %v, the log: %v (%s)", id, simJudges, logJudges, v.Why)
			}
			continue
		}
		log[id] = v.Certain > 0
		sim[id] = false
		for _, x := range r.Violations {
			if x.Invariant == id {
				sim[id] = true
			}
		}
	}
	return sim, log, res, r
}

// Every catalogue scenario with every design it applies to, simulated,
// exported and checked from the log, gets the same verdict on each
// invariant a log judges as the simulation gave it.
func TestRoundTripCatalogue(t *testing.T) {
	pairs, broken := 0, map[invariant.ID]int{}
	var skipped []string
	judged := map[invariant.ID]int{}
	for _, s := range scenarios.All() {
		for _, design := range scenarios.KnownDesigns {
			sp, err := s.SpecFor(design)
			if err != nil {
				continue
			}
			sim, log, res, r := roundTrip(t, sp, 1)
			pairs++
			if why := clientClockStepped(r.History); why != "" {
				// A belief budgeted on a wall clock that stepped lasts
				// longer (or shorter) than the validity the lock call
				// reported; a log has the validity, not the step.
				skipped = append(skipped, s.Name+"/"+design)
				continue
			}
			for id, want := range sim {
				if log[id] != want {
					var b bytes.Buffer
					res.Text(&b)
					t.Errorf("%s with %s: %s broken in the simulation: %v, from the log: %v\nsimulation: %v\nlog:\n%s", s.Name, design, id, want, log[id], r.Violations, b.String())
				}
				if want {
					broken[id]++
				}
				judged[id]++
			}
		}
	}
	t.Logf("%d scenario-design pairs; judged by both: %v; broken in both: %v; skipped (a client's wall clock stepped under a wall-clock lease): %v",
		pairs, fmt.Sprint(judged), fmt.Sprint(broken), skipped)
	if broken[invariant.MutualExclusion] == 0 || broken[invariant.TokenUnique] == 0 || len(skipped) > pairs/10 {
		t.Errorf("the round trip judged too little: %v broken, %d of %d pairs skipped", broken, len(skipped), pairs)
	}
}

// clientClockStepped says whether a client's wall clock stepped in a run
// whose holds budget their lease on the wall clock: then the client's
// belief is not the validity its lock call reported, and a log (which
// carries that validity) cannot tell when the belief ended.
func clientClockStepped(h sim.History) string {
	clients, wall := map[string]bool{}, false
	for _, e := range h {
		switch e.Kind {
		case history.KindAcquireStart:
			clients[e.Actor] = true
		case history.KindAcquired:
			wall = wall || history.Acquired(e).Wall()
		}
	}
	for _, e := range h {
		if e.Kind == sim.KindClockJump && clients[e.Actor] && wall {
			return e.Actor
		}
	}
	return ""
}
