package model

import (
	"os"
	"strings"
	"testing"
	"time"

	"locksim/sim"
)

// TestOptionTableRows: every row names a field of its kind, renders the
// word a scenario's option line reads back, and keys are unique.
func TestOptionTableRows(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range OptionTable {
		if seen[r.Key] {
			t.Errorf("option %s listed twice", r.Key)
		}
		seen[r.Key] = true
		if r.Doc == "" || r.Default == "" {
			t.Errorf("option %s lacks its doc line or its default", r.Key)
		}
		var o Options
		switch r.Kind {
		case OptBool:
			r.Set(&o, !r.Invert) // the field on
		case OptDuration:
			if r.Max <= 0 {
				t.Errorf("duration option %s has no limit", r.Key)
			}
			r.Set(&o, 3*time.Millisecond)
		case OptCount:
			r.Set(&o, r.Lo)
		case OptFraction:
			r.Set(&o, 0.5)
		}
		if w := o.Words(); len(w) != 1 || !strings.HasPrefix(w[0], r.Key+"=") {
			t.Errorf("option %s set renders %q, want one %s= word", r.Key, w, r.Key)
		}
	}
}

// TestOptionsDocIsTheTable: docs/options.md lists the options the table
// has, as OptionsDoc renders them (between its markers).
func TestOptionsDocIsTheTable(t *testing.T) {
	b, err := os.ReadFile("../docs/options.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- options table: model.OptionsDoc -->\n", "<!-- end of options table -->"
	_, rest, ok1 := strings.Cut(string(b), begin)
	got, _, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatalf("docs/options.md lacks the markers %q and %q", begin, end)
	}
	if want := OptionsDoc(); got != want {
		t.Errorf("docs/options.md's option table is not model.OptionTable's; put this between its markers:\n%s", want)
	}
}

// TestRetryJitterSpreadsRetries: the example option added as one row plus
// its behaviour. A client waiting for a lock held 400ms retries every 5-10ms
// without jitter; with 100ms of jitter its sleeps are about ten times
// longer, so it sends far fewer tries. (Zero jitter draws nothing more:
// the goldens, made without the option, are unchanged.)
func TestRetryJitterSpreadsRetries(t *testing.T) {
	spec := func(jitter time.Duration) Spec {
		return Spec{Design: SetPxLua, Clients: []string{"A", "B"},
			Workload: Workload{Cycles: 1, Work: 400 * time.Millisecond, Start: time.Millisecond},
			Options:  Options{TTL: 2 * time.Second, RetryMin: 10 * time.Millisecond, RetryMax: 10 * time.Millisecond, RetryJitter: jitter}}
	}
	calls := func(s Spec) (int, *Result) {
		r, err := Run(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range r.History {
			if e.Actor == "B" && e.Kind == sim.KindCall {
				n++
			}
		}
		return n, r
	}
	plain, r0 := calls(spec(0))
	jittered, r1 := calls(spec(100 * time.Millisecond))
	if len(r0.Failures()) > 0 || len(r1.Failures()) > 0 {
		t.Fatalf("the runs broke: %v / %v", r0.Failures(), r1.Failures())
	}
	if !(jittered*3 < plain) {
		t.Errorf("B sent %d calls with 100ms retry jitter and %d without: want far fewer with it", jittered, plain)
	}
	t.Logf("B's calls: %d without jitter, %d with 100ms", plain, jittered)
	if err := (Options{RetryJitter: -time.Millisecond}).WithDefaults(1).Validate(1); err == nil || !strings.Contains(err.Error(), "retry-jitter") {
		t.Errorf("a negative retry-jitter: %v, want an error naming it", err)
	}
}
