package zoo

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"locksim"
	"locksim/clock"
	"locksim/logcheck"
	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
)

var fieldRoundTrip = flag.Bool("checklog.field", false, "TestFieldJudgementsRoundTrip: premature-loss (200 seeds) and available too, not only acquire-deadline (make long)")

// The field judgements round trip where the simulated history carries
// them: the zoo's mutants that break premature-loss (a renewal that
// moves the expiry from the previous expiry), acquire-deadline (a wait
// that sleeps a TTL between tries) and available (Redlock waiting 2s on a
// silent master) each fail a check; their saved case, replayed, exported
// as the lock log a wrapper would write and checked with check-log, is
// broken on the same invariant, certain, and the twin's clean runs are
// not. (available is judged from a log only with --available: a log does
// not show which faults were active, so the bound is the design's own.)
//
// In make test only acquire-deadline runs (about a second of CPU); with
// -checklog.field (make long) all three.
func TestFieldJudgementsRoundTrip(t *testing.T) {
	ids := map[string]invariant.ID{
		"renewal from now (the expiry moved from the previous expiry)": invariant.PrematureLoss,
		"the acquire deadline (sleeping a TTL between tries)":          invariant.AcquireDeadline,
		"the per-node timeout (redlock waiting 2s on a silent master)": invariant.Available,
	}
	seen := 0
	for _, m := range zoo() {
		id, ok := ids[m.name]
		if !ok {
			continue
		}
		seen++
		if id != invariant.AcquireDeadline && !*fieldRoundTrip {
			continue
		}
		t.Run(string(id), func(t *testing.T) {
			dir := t.TempDir()
			f := &fakeTB{TB: t, Test: "field"}
			locksim.Check(f, m.design, append(append(m.opts, m.mutOpts...), locksim.WithCaseDir(dir))...)
			if !f.Broke {
				t.Fatalf("the mutant was not caught: %s", strings.Join(f.Logs, "\n"))
			}
			c, err := locksim.LoadCase(dir + "/field.json")
			if err != nil {
				t.Fatal(err)
			}
			custom, _ := m.design.(model.Design)
			r, err := c.Replay(custom)
			if err != nil {
				t.Fatal(err)
			}
			simBroken := false
			for _, v := range r.Violations {
				simBroken = simBroken || v.Invariant == id
			}
			if !simBroken {
				t.Fatalf("the replayed case does not break %s: %v", id, r.Violations)
			}
			cfg := r.Spec.CheckConfig()
			var b bytes.Buffer
			if err := logcheck.Export(&b, r.History); err != nil {
				t.Fatal(err)
			}
			res, err := logcheck.Check([]logcheck.Input{{Name: "export.jsonl", R: &b}},
				logcheck.Options{AcquireTolerance: cfg.AcquireTolerance, Available: cfg.AvailableBound})
			if err != nil {
				t.Fatal(err)
			}
			if id == invariant.PrematureLoss {
				// A log sees a premature loss only through an observation
				// inside the lost promise: another client's grant, or the
				// store answering the holder that its key is gone. The
				// saved run's loss may be seen by nobody in time (an
				// expiry 10ms early, both clients elsewhere); the same
				// faults on other seeds give runs that show it.
				prematureRoundTrip(t, c.Spec, custom, c.Seed)
				return
			}
			for _, v := range res.Verdicts {
				if v.Invariant == id && (v.Verdict != "broken" || v.Certain == 0) {
					var out bytes.Buffer
					res.Text(&out)
					t.Errorf("the simulation broke %s, the log says %q:\n%s", id, v.Verdict, out.String())
				}
			}
		})
	}
	if seen != len(ids) {
		t.Fatalf("found %d of the %d field mutants in the zoo", seen, len(ids))
	}
}

// prematureRoundTrip runs the case's spec on 200 seeds from seed and
// holds the log's premature-loss to the simulation's: never broken where
// the simulation is not (unless a fault the simulation excuses ended the
// lease), and broken wherever the simulation's loss is seen inside the
// promise; at least one run must show it both ways.
func prematureRoundTrip(t *testing.T, sp model.Spec, custom model.Design, seed uint64) {
	t.Helper()
	sp.Custom = custom
	both, unseen := 0, 0
	for s := seed; s < seed+200; s++ {
		r, err := model.Run(sp, s)
		if err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
		var b bytes.Buffer
		if err := logcheck.Export(&b, r.History); err != nil {
			t.Fatal(err)
		}
		exported := b.String()
		res, err := logcheck.Check([]logcheck.Input{{Name: "export.jsonl", R: &b}}, logcheck.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var logBroken bool
		for _, v := range res.Verdicts {
			logBroken = logBroken || v.Invariant == invariant.PrematureLoss && v.Certain > 0
		}
		var simV []invariant.Violation
		for _, v := range r.Violations {
			if v.Invariant == invariant.PrematureLoss {
				simV = append(simV, v)
			}
		}
		switch {
		case logBroken && len(simV) == 0:
			if len(invariant.PrematureExcused(history.New(r.History), r.Spec.CheckConfig())) == 0 {
				t.Errorf("seed %d: the log finds a premature loss the simulation does not:\n%s", s, exported)
			}
		case logBroken:
			both++
		case len(simV) > 0:
			for _, v := range simV {
				if seen(exported, v) {
					t.Errorf("seed %d: the simulation's loss %s is seen in the log, which holds:\n%s", s, v.Explanation, exported)
				}
			}
			unseen++
		}
	}
	t.Logf("200 seeds: premature-loss broken in both %d times; broken in the simulation only, seen by no client in time, %d times", both, unseen)
	if both == 0 {
		t.Error("no run showed the premature loss in its log")
	}
}

// seen says whether the exported log shows, inside the simulated loss's
// window (from the loss to the section's end), another client's grant or
// the holder's lost with cause refused.
func seen(exported string, v invariant.Violation) bool {
	from, to := clock.Epoch.Add(v.From).UnixNano(), clock.Epoch.Add(v.To).UnixNano()
	for i, l := range strings.Split(strings.TrimSpace(exported), "\n") {
		e, err := logcheck.ParseLine([]byte(l), "export.jsonl", i+1)
		if err != nil || e.Time <= from || e.Time >= to {
			continue
		}
		if e.Kind == logcheck.Granted && e.Client != v.Clients[0] || e.Kind == logcheck.Lost && e.Client == v.Clients[0] && e.Cause == logcheck.CauseRefused {
			return true
		}
	}
	return false
}
