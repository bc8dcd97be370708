package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"locksim/risk"
)

// shortProfile writes a profile of short runs with a heavy pause tail, so
// a test estimate takes a second.
func shortProfile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "short.json")
	os.WriteFile(p, []byte(`{"name": "short", "horizon": "3s",
		"workload": {"clients": 2, "acquisitions_per_second": 10, "section": {"fixed": "20ms"}},
		"pauses": {"per_hour": 3600, "size": {"quantiles": {"0": "1ms", "0.9": "50ms", "0.99": "900ms", "1": "4s"}}}}`), 0o644)
	return p
}

func TestRiskExitCodes(t *testing.T) {
	prof := shortProfile(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"risk", "--design", "set-px-lua", "--profile", prof, "--runs", "40", "--method", "plain"}, 0, "per acquisition"},
		{[]string{"risk", "--design", "set-px-lua", "--profile", prof, "--runs", "40", "--method", "plain", "--target", "1e-9"}, 1, "not met"},
		{[]string{"risk", "--design", "fenced", "--profile", prof, "--runs", "40", "--format", "markdown"}, 0, "| mutual-exclusion |"},
		{[]string{"risk", "--design", "set-px-lua", "--runs", "5"}, 2, "runs 5 is outside"},
		{[]string{"risk", "--design", "nope"}, 2, "nope"},
		{[]string{"risk"}, 2, "give --design"},
		{[]string{"risk", "--design", "set-px-lua", "--method", "guess", "--runs", "10"}, 2, "method"},
		{[]string{"risk", "--design", "set-px-lua", "--profile", "/nonexistent"}, 2, "nonexistent"},
		{[]string{"risk", "--design", "set-px-lua", "--shard", "0/2", "--runs", "10"}, 2, "--format json"},
		{[]string{"risk", "--design", "set-px-lua", "--invariants", "fifo", "--runs", "10"}, 2, "not judged"},
		{[]string{"risk", "profile", "testdata/risk/gc.log"}, 2, "profile"},
	} {
		code, out, errs := runCLI(c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d (want %d), output lacks %q:\n%.600s\n%.300s", c.args, code, c.code, c.want, out, errs)
		}
	}
}

func TestRiskProfileRoundTripAndImport(t *testing.T) {
	code, out, errs := runCLI("risk", "profile")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := risk.Parse(strings.NewReader(out)); err != nil {
		t.Fatalf("the printed default does not parse back: %v", err)
	}
	code, out, errs = runCLI("risk", "profile", "--from-jvm-gc", "testdata/risk/gc.log")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	p, err := risk.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	// Six pauses over 25 s: 864 an hour, the largest the full GC.
	if p.Pauses.PerHour != 6/(25.0/3600) || p.Pauses.Size.Quantile(1).Milliseconds() != 1450 {
		t.Errorf("imported %v an hour, largest %v", p.Pauses.PerHour, p.Pauses.Size.Quantile(1))
	}
	if !strings.Contains(p.Sources["pauses"], "6 pauses") {
		t.Errorf("the source does not say what was imported: %q", p.Sources["pauses"])
	}
	code, out, _ = runCLI("risk", "profile", "--horizon", "5s")
	if p, err := risk.Parse(strings.NewReader(out)); code != 0 || err != nil || p.HorizonOrDefault().String() != "5s" {
		t.Errorf("--horizon 5s: exit %d, %v, horizon %v", code, err, p.HorizonOrDefault())
	}
	if code, _, errs := runCLI("risk", "profile", "--horizon", "0s"); code != 2 || !strings.Contains(errs, "give 1s") {
		t.Errorf("--horizon 0s: exit %d, %s", code, errs)
	}
}

// TestRiskShardsMerge: three shards merged give the unsharded JSON.
func TestRiskShardsMerge(t *testing.T) {
	prof := shortProfile(t)
	dir := t.TempDir()
	args := []string{"risk", "--design", "set-px-lua", "--profile", prof, "--runs", "30", "--format", "json"}
	_, whole, errs := runCLI(args...)
	var files []string
	for i := range 3 {
		f := filepath.Join(dir, "s"+string(rune('0'+i))+".json")
		if code, _, errs := runCLI(append(args, "--shard", string(rune('0'+i))+"/3", "-o", f)...); code != 0 {
			t.Fatalf("shard %d: %s", i, errs)
		}
		files = append(files, f)
	}
	code, merged, errs2 := runCLI(append([]string{"risk", "merge", "--format", "json"}, files...)...)
	if code != 0 {
		t.Fatalf("merge: %s %s", errs, errs2)
	}
	var a, b map[string]any
	json.Unmarshal([]byte(whole), &a)
	json.Unmarshal([]byte(merged), &b)
	ja, _ := json.Marshal(a["estimates"])
	jb, _ := json.Marshal(b["estimates"])
	if string(ja) != string(jb) || len(ja) < 10 {
		t.Errorf("merged estimates differ:\n%s\n%s", ja, jb)
	}
	if code, _, _ := runCLI("risk", "merge", files[0], files[1]); code != 2 {
		t.Errorf("a merge missing a shard exits %d, want 2", code)
	}
}

func TestAdviseExitCodes(t *testing.T) {
	prof := shortProfile(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"advise", "--design", "set-px-lua", "--profile", prof, "--target", "0.99", "--runs", "20", "--invariants", "mutual-exclusion"}, 0, "recommended: ttl"},
		{[]string{"advise", "--design", "set-px-lua", "--profile", prof, "--target", "1e-9", "--runs", "20", "--budget", "200"}, 1, "budget of 200 runs ran out"},
		{[]string{"advise", "--design", "set-px-lua", "--runs", "20"}, 2, "target"},
		{[]string{"advise", "--target", "0.1"}, 2, "give --design"},
		{[]string{"advise", "--design", "set-px-lua", "--target", "0.1", "--format", "html"}, 2, "--format"},
	} {
		code, out, errs := runCLI(c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d (want %d), output lacks %q:\n%.800s\n%.300s", c.args, code, c.code, c.want, out, errs)
		}
	}
}

// TestRiskHTMLPlot writes the page and checks it holds the table and a
// point per TTL and pause scale.
func TestRiskHTMLPlot(t *testing.T) {
	prof := shortProfile(t)
	out := filepath.Join(t.TempDir(), "risk.html")
	code, _, errs := runCLI("risk", "--design", "set-px-lua", "--profile", prof, "--runs", "20", "--method", "plain", "--invariants", "mutual-exclusion", "--format", "html", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if n := strings.Count(page, "<circle"); n != len(risk.CurveTTLs)*len(risk.CurveScales) {
		t.Errorf("%d points, want %d", n, len(risk.CurveTTLs)*len(risk.CurveScales))
	}
	for _, want := range []string{"<table>", "mutual-exclusion", "pauses x2", "<svg"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if code, _, errs := runCLI("risk", "--design", "set-px-lua", "--format", "html"); code != 2 || !strings.Contains(errs, "-o FILE") {
		t.Errorf("html without -o: exit %d, %s", code, errs)
	}
}

// TestDangerMapWithProfile: each danger point says how likely the profile
// makes its smallest breaking fault; a point sharing its instant with the
// next has no span; --profile needs --exhaustive.
func TestDangerMapWithProfile(t *testing.T) {
	code, out, errs := runCLI("check", "--design", "set-px-lua", "--exhaustive", "--faults", "pause", "--profile", "default", "--save-dir", "", "--format", "json")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Danger []struct {
			At       int64    `json:"at_ns"`
			Actor    string   `json:"actor"`
			Worst    string   `json:"worst_fault"`
			Chance   *float64 `json:"profile_chance"`
			ChanceOf string   `json:"profile_chance_of"`
		} `json:"danger"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	with := 0
	for i, d := range doc.Danger {
		if d.Worst == "" {
			if d.Chance != nil {
				t.Errorf("point %d breaks nothing but has a chance", i)
			}
			continue
		}
		if d.Chance == nil || !strings.Contains(d.ChanceOf, "pause of at least") {
			t.Errorf("point %d (%s): no chance: %q", i, d.Worst, d.ChanceOf)
			continue
		}
		with++
		if *d.Chance < 0 || *d.Chance > 1e-3 {
			t.Errorf("point %d: chance %v of a pause over the TTL in milliseconds", i, *d.Chance)
		}
		for _, o := range doc.Danger[i+1:] {
			if o.Actor == d.Actor {
				if o.At == d.At && *d.Chance != 0 {
					t.Errorf("point %d shares its instant with the next but has chance %v", i, *d.Chance)
				}
				break
			}
		}
	}
	if with == 0 {
		t.Error("no danger point has a chance")
	}
	if code, _, errs := runCLI("check", "--design", "set-px-lua", "--profile", "default"); code != 2 || !strings.Contains(errs, "--profile goes with --exhaustive") {
		t.Errorf("--profile without --exhaustive: exit %d, %s", code, errs)
	}
}
