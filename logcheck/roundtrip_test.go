package logcheck

import (
	"bytes"
	"time"

	"locksim/clock"

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
	cfg := r.Spec.CheckConfig() // with the run's defaults filled in
	res, err = Check([]Input{{Name: "export.jsonl", R: &b}}, Options{AcquireTolerance: cfg.AcquireTolerance})
	if err != nil {
		t.Fatal(err)
	}
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
		case id == invariant.Liveness || id == invariant.Available:
			continue // the simulation counts from when the faults healed (or which faults are tolerated), which a log does not know
		case id == invariant.Fencing && !logJudges:
			continue // no rejected write logged: nothing says the resource fences
		case id == invariant.Fencing && !simJudges:
			// A strict resource rejects an older token itself: the log
			// must find nothing either.
		case id == invariant.AcquireDeadline && !simJudges:
			continue // the design declares no tolerance: the log judges the deadline the call logged, the simulation does not
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
		if id == invariant.AcquireDeadline && !sim[id] && log[id] {
			// The simulation leaves out the time the process was paused
			// and the time a request to Redis was outstanding; a wrapper
			// around the lock call sees neither, so the log counts them.
			// Only a late return that such time explains may differ.
			for _, x := range res.Violations {
				if x.Invariant == id && !excusableLate(r.History, x.Clients[0], time.Duration(x.From-clock.Epoch.UnixNano()), time.Duration(x.To-clock.Epoch.UnixNano())) {
					t.Errorf("the log finds %s late and the simulation does not, with no pause or outstanding request to explain it: %s", x.Clients[0], x.Explanation)
				}
			}
			delete(log, id)
			delete(sim, id)
		}
		if id == invariant.PrematureLoss && !sim[id] && log[id] {
			// The simulation excuses a loss caused by a fault that ends
			// leases by itself (a clock step, a restart, a failover); a
			// log does not show faults, so it reports the loss. Only such
			// an excused loss may differ.
			if ex := invariant.PrematureExcused(history.New(r.History), cfg); len(ex) > 0 {
				delete(log, id)
				delete(sim, id)
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
		for _, design := range scenarios.Designs() {
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

// excusableLate says whether, between an acquisition's deadline and its
// return (true times), its client was paused or had a request to Redis
// outstanding: time the simulation's acquire-deadline does not count.
func excusableLate(h sim.History, client string, due, ret time.Duration) bool {
	open := false
	for _, e := range h {
		if e.At > ret {
			break
		}
		if e.Actor != client {
			continue
		}
		switch e.Kind {
		case sim.KindPause:
			if e.At+e.Dur > due {
				return true
			}
		case sim.KindCall:
			open = true
		case sim.KindReply, sim.KindTimeout, sim.KindRefused:
			if open && e.At > due {
				return true
			}
			open = false
		}
	}
	return open
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
