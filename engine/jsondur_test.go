package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"locksim/clock"
	"locksim/model"
	"locksim/sim"
)

// Case files name durations as Go does ("1.5s"), do not escape '>' and
// read back to the same case; a case with nanosecond numbers (the format
// before) still loads.
func TestCaseDurationsReadable(t *testing.T) {
	s := model.Spec{Design: model.SetPxLua, Options: model.Options{TTL: 1500 * time.Millisecond},
		Topology: model.Topology{NodeClocks: map[string]clock.Config{"r1": {Offset: -250 * time.Millisecond, RatePPM: 5}}},
		Faults: []sim.Fault{
			{Kind: sim.FaultDelay, From: "A", To: "resource", Extra: 1500 * time.Millisecond, Dur: 10 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: "write"}},
			{Kind: sim.FaultClockJump, Target: "r1", By: -990 * time.Millisecond, At: 2 * time.Second},
		}}
	r, err := model.Run(s, 3)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCase(r)
	path := filepath.Join(t.TempDir(), "c.json")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{`"TTL": "1.5s"`, `"Extra": "1.5s"`, `"By": "-990ms"`, `"Offset": "-250ms"`, `"From": "A"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the case lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), `\u003e`) || !strings.HasPrefix(string(b), "{\n  \"version\": 1,") {
		t.Errorf("escaped or reordered:\n%.300s", b)
	}
	back, err := LoadCase(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("the case does not read back (-saved +loaded):\n%s", diff)
	}
	rr, err := back.Replay(nil)
	if err != nil || rr.History.Hash() != c.HistoryHash {
		t.Errorf("replay: %v, hash %s, want %s", err, rr.History.Hash(), c.HistoryHash)
	}
	// The format before: every duration in nanoseconds.
	old, err := encode(c, "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(old), `"TTL": 1500000000`) {
		t.Fatalf("not the old format:\n%.400s", old)
	}
	os.WriteFile(path, old, 0o644)
	if again, err := LoadCase(path); err != nil || !cmp.Equal(c, again, cmpopts.EquateEmpty()) {
		t.Errorf("an old case does not load: %v", err)
	}
	os.WriteFile(path, []byte(strings.Replace(string(b), `"TTL": "1.5s"`, `"TTL": "soon"`, 1)), 0o644)
	if _, err := LoadCase(path); err == nil || !strings.Contains(err.Error(), `"soon"`) || !strings.Contains(err.Error(), "TTL") {
		t.Errorf("a bad duration: %v", err)
	}
}

// check's JSON does not escape the arrows of its fault lines either.
func TestCheckJSONNotEscaped(t *testing.T) {
	var b strings.Builder
	c := CheckConfig{Campaign: Campaign{Base: model.Spec{Design: model.SetPxLua}, Runs: 1}}
	j := NewJSONWriter(&b, c)
	j.Run(RunOutcome{Faults: []string{"delay A->r1 +2ms at 85ms for 260ms"}})
	if !strings.Contains(b.String(), "A->r1") {
		t.Errorf("escaped: %s", b.String())
	}
}

// A replay whose history differs says whether the case was edited (its
// input hash no longer matches) or the simulator changed.
func TestCaseMismatch(t *testing.T) {
	r, err := model.Run(model.Spec{Design: model.SetPxLua}, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCase(r)
	path := filepath.Join(t.TempDir(), "c.json")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadCase(path)
	if err != nil {
		t.Fatal(err)
	}
	if why := loaded.Mismatch(c.HistoryHash); why != "" {
		t.Errorf("an unchanged replay: %q", why)
	}
	if loaded.Locksim == nil || loaded.Locksim.Fingerprint != Fingerprint {
		t.Fatalf("the case does not carry the simulator's fingerprint: %+v", loaded.Locksim)
	}
	if why := loaded.Mismatch("other"); !strings.Contains(why, "saved by this simulator (fingerprint "+Fingerprint+"): the simulation was not deterministic") {
		t.Errorf("an unchanged case of this simulator with another history: %q", why)
	}
	loaded.Locksim = &Build{Version: "0.3.9", Fingerprint: "00000000000000ff"}
	if why := loaded.Mismatch("other"); !strings.Contains(why, "the simulator changed since it was saved (saved by fingerprint 00000000000000ff, locksim 0.3.9; this is fingerprint "+Fingerprint+")") {
		t.Errorf("an unchanged case of another simulator with another history: %q", why)
	}
	loaded.Locksim = nil
	if why := loaded.Mismatch("other"); !strings.Contains(why, "the simulator changed") {
		t.Errorf("an unchanged case without a fingerprint with another history: %q", why)
	}
	loaded.Seed++
	if why := loaded.Mismatch("other"); !strings.Contains(why, "does not match its contents") {
		t.Errorf("an edited case: %q", why)
	}
	loaded.InputHash = ""
	if why := loaded.Mismatch("other"); !strings.Contains(why, "edited, or the simulator changed") {
		t.Errorf("a case without an input hash: %q", why)
	}
}

// FuzzParseCase: no input makes ParseCase panic, and a case it accepts
// either builds a configuration within the limits or says why not.
func FuzzParseCase(f *testing.F) {
	r, err := model.Run(model.Spec{Design: model.SetPxLua, Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: time.Second,
		After: &sim.Trigger{Actor: "A", Kind: "acquired"}}}}, 1)
	if err != nil {
		f.Fatal(err)
	}
	good, err := marshalReadable(NewCase(r))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"version":1,"spec":{"Design":"redlock","Topology":{"Masters":100000}},"seed":1}`))
	f.Add([]byte(`{"version":1,"spec":{"Design":"set-px-lua","Options":{"TTL":"1708301h"}},"seed":1}`))
	f.Add([]byte(`{"version":1,"spec":{"Design":"set-px-lua","Faults":[{"Kind":"pause","Target":"A","Dur":"1s","After":{"Actor":"A","Kind":"call","Nth":-1}}]},"seed":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCase("fuzz.json", data)
		if err != nil {
			return
		}
		s := c.Spec.WithDefaults()
		_, _ = s.Config()
	})
}
