package engine

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

// summaries are a check's outputs: its JSON (locksim.check/v1), the case
// saved as locksim-failure.json, and every field of its result the
// renderers read (report.SummaryText, SummaryMarkdown, SummaryHTML are
// functions of it alone), as text.
type summaries struct{ json, result string }

// resultText renders every field of a check's result, the minimal case by
// its history's hash, its faults and its violations: two results with the
// same text render the same summaries.
func resultText(r *CheckResult) string {
	deref := func(o *RunOutcome) string {
		if o == nil {
			return "none"
		}
		return fmt.Sprintf("%+v", *o)
	}
	s := fmt.Sprintf("design %s: %d runs of %d planned, %d broken, counts %v, uncounted %v, failovers %d, vacuous %d\n"+
		"coverage %+v\ncounted %v, judged %v, interrupted %v\nfirst failure %s\nfirst error %s\nno verdict %q\n",
		r.Design, r.Runs, r.Planned, r.BrokenRuns, r.Counts, r.Uncounted, r.FailoverRuns, r.VacuousRuns,
		r.Coverage, r.Counted, r.Judged, r.Interrupted, deref(r.FirstFail), deref(r.FirstError), r.NoVerdict())
	if m := r.Minimal; m != nil {
		s += fmt.Sprintf("minimal seed %d, history %s, faults %v, violations %v\n", m.Seed, m.History.Hash(), m.Spec.Faults, m.Violations)
	}
	return s
}

func summarize(t *testing.T, res *CheckResult, js *bytes.Buffer, jw *JSONWriter) summaries {
	t.Helper()
	const casePath = "locksim-failure.json"
	if err := jw.Finish(res, casePath); err != nil {
		t.Fatal(err)
	}
	return summaries{js.String(), resultText(res)}
}

// checkJSON runs c and returns its outputs.
func checkJSON(t *testing.T, c CheckConfig) (summaries, *CheckResult) {
	t.Helper()
	var js bytes.Buffer
	jw := NewJSONWriter(&js, c)
	c.Each = jw.Run
	res, err := Check(c)
	if err != nil {
		t.Fatal(err)
	}
	return summarize(t, res, &js, jw), res
}

// shardDocs runs c as n shards and returns each shard's JSON.
func shardDocs(t *testing.T, c CheckConfig, n int) []string {
	t.Helper()
	var docs []string
	for i := range n {
		s := c
		s.Shard, s.Shards = i, n
		out, _ := checkJSON(t, s)
		docs = append(docs, out.json)
	}
	return docs
}

func open(t *testing.T, docs []string) []*Shard {
	t.Helper()
	var shards []*Shard
	for i, d := range docs {
		s, err := OpenShard(fmt.Sprintf("shard-%d.json", i), strings.NewReader(d))
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, s)
	}
	return shards
}

// mergeJSON merges the documents and returns the merged outputs.
func mergeJSON(t *testing.T, docs []string) (summaries, *CheckResult) {
	t.Helper()
	m, err := Merge(open(t, docs)...)
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	jw := NewJSONWriter(&js, m.Config)
	m.Config.Each = jw.Run
	res, err := m.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return summarize(t, res, &js, jw), res
}

// The shards of a check, merged, are the unsharded check byte for byte: its
// JSON, its text summary, its markdown, the first failure and its shrunk
// history; whether the check fails, holds, stops at an errored run, has a
// run count the shards do not divide, or one run per shard (more shards
// than runs is refused: a shard with no runs judges nothing).
func TestMergeIsTheUnshardedCheck(t *testing.T) {
	stops := base()
	stops.Runs = 200
	stops.Base = model.Spec{Design: model.LuaDesignID, Lua: &model.LuaScripts{
		Acquire: "if tonumber(ARGV[1]:sub(-2), 36) % 400 == 0 then while true do end end return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])",
		Release: "return redis.call('DEL', KEYS[1])",
	}}
	stops.Gen.Kinds = []sim.FaultKind{sim.FaultPause}
	holds := CheckConfig{Campaign: Campaign{Base: model.Spec{Design: model.Fenced, Fencing: model.FenceStrictReads},
		Gen:  scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultPause, sim.FaultDelay}, Swarm: true},
		Runs: 120, Seed: 3, Invariants: []invariant.ID{invariant.LostUpdate}}}
	odd := base()
	odd.Runs = 123
	few := base()
	few.Runs = 4
	shrink := base()
	shrink.ShrinkRuns = 3
	for _, tc := range []struct {
		name   string
		c      CheckConfig
		shards int
	}{
		{"fails", base(), 4}, {"holds", holds, 4}, {"stops", stops, 4}, {"123 runs in 4", odd, 4},
		{"4 runs in 4", few, 4}, {"one shard", base(), 1}, {"7 shards", base(), 7}, {"shrink budget", shrink, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wres := checkJSON(t, tc.c)
			got, gres := mergeJSON(t, shardDocs(t, tc.c, tc.shards))
			if diff := cmp.Diff(want.result, got.result); diff != "" {
				t.Errorf("result (-unsharded +merged):\n%s", diff)
			}
			if diff := cmp.Diff(want.json, got.json); diff != "" {
				t.Errorf("JSON (-unsharded +merged):\n%s", diff)
			}
			if (wres.Minimal == nil) != (gres.Minimal == nil) || wres.Minimal != nil && wres.Minimal.History.Hash() != gres.Minimal.History.Hash() {
				t.Errorf("the minimal case differs")
			}
			t.Logf("%d runs, %d broken, error: %v", gres.Runs, gres.BrokenRuns, gres.FirstError != nil)
		})
	}
	// The cases cover what they claim.
	if _, r := checkJSON(t, stops); r.FirstError == nil || r.FirstError.Index < 4 {
		t.Errorf("the stopping check stops at %+v: want an error past the first round of shards", r.FirstError)
	}
}

// With a time budget each shard makes the runs its budget reached; the
// merge tallies all of them, in run order.
func TestMergeTimeBudgets(t *testing.T) {
	c := base()
	c.Runs = 0
	c.For = 30 * time.Millisecond
	c.Workers = 1
	var docs []string
	total := 0
	for i, step := range []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond} {
		s := c
		s.Shard, s.Shards = i, 3
		now := time.Unix(0, 0)
		s.Now = func() time.Time { now = now.Add(step); return now }
		out, res := checkJSON(t, s)
		docs = append(docs, out.json)
		total += res.Runs
	}
	got, res := mergeJSON(t, docs)
	if res.Runs != total || res.Planned != 0 {
		t.Errorf("merged %d runs of %d, %d planned (want 0: a time budget's):\n%s", res.Runs, total, res.Planned, got.result)
	}
	// The first failure is the first by index among all the runs made.
	var all []RunOutcome
	for _, d := range docs {
		s := open(t, []string{d})[0]
		for {
			o, ok, err := s.next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			all = append(all, o)
		}
	}
	first := -1
	for _, o := range all {
		if len(o.Broken) > 0 && (first < 0 || o.Index < first) {
			first = o.Index
		}
	}
	if res.FirstFail == nil || res.FirstFail.Index != first {
		t.Errorf("first failure %+v, want run %d", res.FirstFail, first)
	}
}

// Documents that are not every shard of one check, each once, are refused
// with an error that says which and why.
func TestMergeRefuses(t *testing.T) {
	c := base()
	c.Runs = 40
	docs := shardDocs(t, c, 3)
	other := c
	other.Seed = 8
	otherDocs := shardDocs(t, other, 3)
	two := shardDocs(t, c, 2)
	goDesign := c
	goDesign.Base = model.Spec{Design: "my-lock"}
	var goDoc bytes.Buffer
	jw := NewJSONWriter(&goDoc, goDesign)
	jw.Run(RunOutcome{Index: 0, Seed: 7})
	jw.Finish(&CheckResult{Runs: 1, Counts: map[invariant.ID]int{}}, "")
	cut := docs[1][:len(docs[1])/2]
	noRuns := docs[2][:strings.Index(docs[2], "\n    {")] + docs[2][strings.Index(docs[2], "\n  ],"):]
	for _, tc := range []struct {
		name string
		docs []string
		want string
	}{
		{"none", nil, "needs the JSON of every shard"},
		{"missing", docs[:2], "shard 2 of 3 missing"},
		{"twice", []string{docs[0], docs[1], docs[1], docs[2]}, "are both shard 1 of 3"},
		{"another seed", []string{docs[0], otherDocs[1], docs[2]}, "their campaigns differ in seed (7 vs 8)"},
		{"another split", []string{docs[0], two[1]}, "is shard 1 of 2, shard-0.json shard 0 of 3"},
		{"cut short", []string{docs[0], cut, docs[2]}, "shard-1.json is cut short after"},
		{"runs out of order", []string{docs[0], strings.Replace(docs[1], `"index":4,`, `"index":5,`, 1), docs[2]}, "run 5 where run 4 was due"},
		{"runs missing", []string{docs[0], docs[1], noRuns}, "shard-2.json: its summary counts 13 runs, its runs are 0"},
		{"runs and count missing", []string{docs[0], docs[1], strings.Replace(noRuns, `"runs": 13,`, `"runs": 0,`, 1)}, "shard-2.json ends after 0 runs; shard 2 of 3 has 13"},
		{"another schema", []string{strings.Replace(docs[0], CheckSchema, "locksim.report/v2", 1)}, `schema "locksim.report/v2"`},
		{"a Go design", []string{goDoc.String()}, `design "my-lock" is a Go design`},
		{"another simulator's shard", []string{docs[0], strings.Replace(docs[1], `"fingerprint":"`+Fingerprint+`"`, `"fingerprint":"00000000000000ff"`, 1), docs[2]},
			"shard-0.json and shard-1.json were written by different simulators: fingerprint " + Fingerprint + " (locksim " + ThisBuild().String() + ") and fingerprint 00000000000000ff"},
		{"another simulator's shards", []string{
			strings.Replace(docs[0], `"fingerprint":"`+Fingerprint+`"`, `"fingerprint":"00000000000000ff"`, 1),
			strings.Replace(docs[1], `"fingerprint":"`+Fingerprint+`"`, `"fingerprint":"00000000000000ff"`, 1),
			strings.Replace(docs[2], `"fingerprint":"`+Fingerprint+`"`, `"fingerprint":"00000000000000ff"`, 1)},
			"shard-0.json was written by a simulator with fingerprint 00000000000000ff (locksim " + Version + " fingerprint 00000000000000ff); this merge's simulator has fingerprint " + Fingerprint},
		{"another version, same sources", []string{docs[0], strings.Replace(docs[1], `"version":"`+Version+`"`, `"version":"0.3.9"`, 1), strings.Replace(docs[2], `"fingerprint":"`, `"fingerprint":"0`, 1)},
			"shard-0.json and shard-2.json were written by different simulators"}, // the version is not what decides
		{"no fingerprint", []string{docs[0], docs[1], strings.Replace(docs[2], `,"fingerprint":"`+Fingerprint+`"`, "", 1)},
			"shard-2.json has no simulator fingerprint (written by locksim " + Version + " (no fingerprint)"},
		{"no config_hash", []string{strings.Replace(docs[0], `"config_hash": "`, `"config_hash_was": "`, 1)}, "shard-0.json has no config_hash"},
		{"an edited campaign", []string{docs[0], strings.Replace(docs[1], `"runs":40,`, `"runs":41,`, 1), docs[2]}, "shard-1.json: its config_hash sha256:"},
		{"another config_hash", []string{docs[0], strings.Replace(docs[1], `"config_hash": "sha256:`, `"config_hash": "sha256:0`, 1), docs[2]}, "is not its campaign's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := func() error {
				var shards []*Shard
				for i, d := range tc.docs {
					s, err := OpenShard(fmt.Sprintf("shard-%d.json", i), strings.NewReader(d))
					if err != nil {
						return err
					}
					shards = append(shards, s)
				}
				m, err := Merge(shards...)
				if err != nil {
					return err
				}
				_, err = m.Finish()
				return err
			}()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// The simulator fingerprint decides, not the VCS stamp or the version
// string: shards with this fingerprint merge (the unsharded check's
// result) even when one says another commit and another version, as a
// -buildvcs=false build and a checkout of the same sources do.
func TestMergeComparesTheFingerprint(t *testing.T) {
	c := base()
	c.Runs = 40
	want, _ := checkJSON(t, c)
	docs := shardDocs(t, c, 3)
	if !strings.Contains(docs[0], `"locksim": {"version":"`+Version+`","fingerprint":"`+Fingerprint+`"}`) {
		t.Fatalf("a shard does not carry the fingerprint:\n%.300s", docs[0])
	}
	docs[1] = strings.Replace(docs[1], `"fingerprint":"`+Fingerprint+`"`, `"fingerprint":"`+Fingerprint+`","commit":"0123456789abcdef","modified":true`, 1)
	docs[2] = strings.Replace(docs[2], `"version":"`+Version+`"`, `"version":"0.3.9"`, 1)
	got, _ := mergeJSON(t, docs)
	if diff := cmp.Diff(want.result, got.result); diff != "" {
		t.Errorf("result (-unsharded +merged):\n%s", diff)
	}
}

// A Go design merges from Go, given the design.
func TestMergeGoDesign(t *testing.T) {
	d, err := model.LookupDesign(model.SetPxLua)
	if err != nil {
		t.Fatal(err)
	}
	c := base()
	c.Base = model.Spec{Design: d.Name(), Custom: d}
	want, _ := checkJSON(t, c)
	m, err := Merge(open(t, shardDocs(t, c, 2))...)
	if err != nil {
		t.Fatal(err)
	}
	m.Config.Base.Custom = d
	var js bytes.Buffer
	jw := NewJSONWriter(&js, m.Config)
	m.Config.Each = jw.Run
	res, err := m.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if got := summarize(t, res, &js, jw); got != want {
		t.Errorf("a Go design's merge differs from its check:\n%s\nwant:\n%s", got.result, want.result)
	}
}

// endless is a reader of a shard whose first run holds a string of size
// bytes, generated as it is read: no memory holds the file.
type endless struct {
	head, tail string
	size, off  int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case e.off < int64(len(e.head)):
			k := copy(p[n:], e.head[e.off:])
			n, e.off = n+k, e.off+int64(k)
		case e.off < int64(len(e.head))+e.size:
			k := min(int64(len(p)-n), int64(len(e.head))+e.size-e.off)
			for i := range k {
				p[n+int(i)] = 'x'
			}
			n, e.off = n+int(k), e.off+k
		default:
			t := e.off - int64(len(e.head)) - e.size
			if t >= int64(len(e.tail)) {
				return n, io.EOF
			}
			k := copy(p[n:], e.tail[t:])
			n, e.off = n+k, e.off+int64(k)
		}
	}
	return n, nil
}

// A shard is read as a stream with bounded memory: a run holding a 300 MB
// string (which took 1.13 GB before) is refused at the value limit, having
// allocated a small multiple of it; a file past the file limit is refused
// too.
func TestMergeShardLimits(t *testing.T) {
	c := base()
	c.Runs = 4
	doc := shardDocs(t, c, 1)[0]
	i := strings.Index(doc, `"config":"`) + len(`"config":"`)
	huge := &endless{head: doc[:i], tail: doc[i:], size: 300 << 20}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := func() error {
		s, err := OpenShard("huge.json", huge)
		if err != nil {
			return err
		}
		m, err := Merge(s)
		if err != nil {
			return err
		}
		_, err = m.Finish()
		return err
	}()
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "huge.json: the value at byte") || !strings.Contains(err.Error(), "limits: shard-bytes") {
		t.Fatalf("error %v, want the value limit", err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > 10*MaxShardValueBytes {
		t.Errorf("reading %d MB of it allocated %d MB, want at most %d", huge.off>>20, alloc>>20, 10*MaxShardValueBytes>>20)
	}
	t.Logf("refused after reading %d MB, %d MB allocated", huge.off>>20, alloc>>20)
	if huge.off > 3*MaxShardValueBytes {
		t.Errorf("read %d bytes of the file before refusing it", huge.off)
	}
	defer func(n int64) { shardBytesMax = n }(shardBytesMax)
	shardBytesMax = int64(len(doc) - 10)
	s, err := OpenShard("big.json", strings.NewReader(doc))
	if err == nil {
		var m *Merged
		if m, err = Merge(s); err == nil {
			_, err = m.Finish()
		}
	}
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("big.json is past %d bytes", len(doc)-10)) {
		t.Errorf("error %v, want the file limit", err)
	}
}
