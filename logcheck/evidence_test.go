package logcheck

import (
	"strings"
	"testing"
	"time"

	"locksim/model/invariant"
)

// A verdict of "held" needs something that could have broken it (new-user
// trial): a log where one client alone tried for each key had nobody to
// exclude, so mutual-exclusion is not judged (it read "held");
// --liveness and --available measure waits from acquire-attempt events, so
// a log without one judges neither (they read "held"); token-unique needs
// two tokens to compare. A log where no invariant could be judged is
// nothing judged (exit 2), as a log with no grant is.
func TestHeldNeedsEvidence(t *testing.T) {
	one := `{"time":1000,"host":"h","client":"c","key":"k","kind":"granted","token":7,"validity":"1s"}
{"time":2000,"host":"h","client":"c","key":"k","kind":"released"}
{"time":3000,"host":"h2","client":"d","key":"other","kind":"granted"}
`
	r, err := checkText(t, Options{Liveness: time.Second, Available: time.Second}, one)
	if err != nil {
		t.Fatal(err)
	}
	for id, why := range map[invariant.ID]string{
		invariant.MutualExclusion: "no two clients tried for one key",
		invariant.Liveness:        "no acquire-attempt",
		invariant.Available:       "no acquire-attempt",
		invariant.TokenUnique:     "one granted event carries a token",
	} {
		if v := verdict(r, id); v.Verdict != "not judged" || !strings.Contains(v.Why, why) {
			t.Errorf("%s: %q (%s), want not judged: %q", id, v.Verdict, v.Why, why)
		}
	}
	// premature-loss is still judged (the holder's own refused loss would
	// show), so something was judged.
	if r.NothingJudged != "" || verdict(r, invariant.PrematureLoss).Verdict != "held" {
		t.Errorf("premature-loss %+v, nothing judged %q", verdict(r, invariant.PrematureLoss), r.NothingJudged)
	}
	// Without a validity nothing at all can be judged: no verdict.
	r, err = checkText(t, Options{}, strings.ReplaceAll(one, `,"token":7,"validity":"1s"`, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.NothingJudged, "no invariant could be judged") {
		t.Errorf("nothing judged %q, want no invariant could be judged; verdicts %+v", r.NothingJudged, r.Verdicts)
	}
	// A second client that tried for the key and was refused was
	// excluded: judged, and held.
	r, err = checkText(t, Options{}, one+`{"time":4000,"host":"h2","client":"d","key":"k","kind":"acquire-attempt"}
{"time":5000,"host":"h2","client":"d","key":"k","kind":"refused"}
`)
	if err != nil {
		t.Fatal(err)
	}
	if v := verdict(r, invariant.MutualExclusion); v.Verdict != "held" {
		t.Errorf("a refused second client: mutual-exclusion %q (%s), want held", v.Verdict, v.Why)
	}
	// Two clients granted one key: judged, and held.
	two := one + `{"time":4000,"host":"h2","client":"d","key":"k","kind":"acquire-attempt"}
{"time":5000,"host":"h2","client":"d","key":"k","kind":"granted","token":8}
`
	r, err = checkText(t, Options{Liveness: time.Second}, two)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []invariant.ID{invariant.MutualExclusion, invariant.Liveness, invariant.TokenUnique} {
		if v := verdict(r, id); v.Verdict != "held" {
			t.Errorf("two clients: %s %q (%s), want held", id, v.Verdict, v.Why)
		}
	}
}

// A --host-skew bound for a host the log never names is refused: a typo
// ("web1" for "web-1") would otherwise leave that host at --skew, and the
// verdicts certain where the user meant a wider bound (new-user trial).
func TestHostSkewNamesLoggedHosts(t *testing.T) {
	log := `{"time":1000,"host":"web-1","client":"c","key":"k","kind":"granted"}
`
	if _, err := checkText(t, Options{HostSkew: map[string]time.Duration{"web-1": time.Second}}, log); err != nil {
		t.Fatalf("a logged host: %v", err)
	}
	_, err := checkText(t, Options{HostSkew: map[string]time.Duration{"web1": time.Second, "web-1": time.Second}}, log)
	if err == nil || !strings.Contains(err.Error(), `"web1"`) || !strings.Contains(err.Error(), "web-1") {
		t.Errorf("a host the log does not name: err %v, want a refusal naming it and the logged hosts", err)
	}
	// A fleet-wide list naming a host that logged nothing this time, and
	// no near-miss of a logged one, is judged.
	if _, err := checkText(t, Options{HostSkew: map[string]time.Duration{"web-1": time.Second, "web-3": time.Second}}, log); err != nil {
		t.Errorf("a fleet-wide list with a host that logged nothing: %v, want it judged", err)
	}
	// No host named logs at all: the wrong log.
	if _, err := checkText(t, Options{HostSkew: map[string]time.Duration{"db-1": time.Second}}, log); err == nil {
		t.Errorf("no named host logs: want a refusal")
	}
}
