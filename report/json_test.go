package report

import (
	"bytes"
	"encoding/json"
	"locksim/model/invariant"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJSONGolden(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			r, meta := f.fn()
			var b bytes.Buffer
			if err := JSON(&b, r, meta); err != nil {
				t.Fatal(err)
			}
			golden(t, f.name+".json", b.Bytes())
		})
	}
}

// TestJSONSchema decodes the report generically and checks the fields the
// schema in doc.go promises.
func TestJSONSchema(t *testing.T) {
	r, meta := gcPause()
	var b bytes.Buffer
	if err := JSON(&b, r, meta); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema string `json:"schema"`
		Meta   struct {
			Scenario string `json:"scenario"`
			Design   string `json:"design"`
			Seed     uint64 `json:"seed"`
		} `json:"meta"`
		Spec struct {
			Design  string   `json:"design"`
			Fencing string   `json:"fencing"`
			TTL     int64    `json:"ttl_ns"`
			Clients []string `json:"clients"`
			Faults  []string `json:"faults"`
		} `json:"spec"`
		History []struct {
			Seq  int    `json:"seq"`
			At   int64  `json:"at_ns"`
			Kind string `json:"kind"`
		} `json:"history"`
		Violations []struct {
			Invariant   string `json:"invariant"`
			Explanation string `json:"explanation"`
			Story       string `json:"story"`
		} `json:"violations"`
		Verdicts []struct {
			Invariant  string `json:"invariant"`
			Verdict    string `json:"verdict"`
			Violations int    `json:"violations"`
		} `json:"verdicts"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := []any{doc.Schema, doc.Meta.Scenario, doc.Meta.Design, doc.Meta.Seed, doc.Spec.Design, doc.Spec.Fencing,
		doc.Spec.TTL, doc.Spec.Clients, doc.Spec.Faults, len(doc.History), len(doc.Violations), len(doc.Verdicts)}
	want := []any{Schema, "gc-pause", "set-px-lua", uint64(1), "set-px-lua", "off",
		int64(1e9), []string{"A", "B"}, []string{"pause A for 1.5s after A acquired"}, len(r.History), 2, len(invariant.All)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded report (-want +got):\n%s", diff)
	}
	if doc.Violations[0].Story == "" || doc.Verdicts[0].Verdict != "broken" || doc.Verdicts[2].Verdict != "held" {
		t.Errorf("violations %+v, verdicts %+v: want a story and broken/held verdicts", doc.Violations, doc.Verdicts)
	}
	for i, e := range doc.History {
		if e.Seq != i {
			t.Fatalf("history[%d].seq = %d", i, e.Seq)
		}
	}
}

// TestJSONEmpty checks that an empty result still gives arrays, not null.
func TestJSONEmpty(t *testing.T) {
	r, _ := clean()
	r.History = nil
	var b bytes.Buffer
	if err := JSON(&b, r, Meta{}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"history", "violations", "verdicts"} {
		if _, ok := doc[k].([]any); !ok {
			t.Errorf("%s = %#v, want an array", k, doc[k])
		}
	}
}
