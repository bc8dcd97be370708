package report

import (
	"bytes"
	"strings"
	"testing"

	"locksim/engine"
	"locksim/model"
)

func exhaustive(t *testing.T, c engine.ExhaustiveConfig) *engine.ExhaustiveResult {
	t.Helper()
	r, err := engine.Exhaustive(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The danger maps of the seeds' examples as golden files (which points
// break what is engine's TestDangerMaps): set-px-lua's pause-after-acquire
// zone loses data; set-px-getdel's stale release breaks the lease; fenced
// with strict-reads has no zone where one fault loses data; the deadline
// option shrinks set-px-lua's red zone.
func TestDangerMapGoldens(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec model.Spec
	}{
		{"set-px-lua", model.Spec{Design: model.SetPxLua}},
		{"set-px-getdel", model.Spec{Design: model.SetPxGetdel}},
		{"fenced-strict-reads", model.Spec{Design: model.Fenced, Fencing: model.FenceStrictReads}},
		{"set-px-lua-deadline", model.Spec{Design: model.SetPxLua, Options: model.Options{Deadline: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := exhaustive(t, engine.ExhaustiveConfig{Base: tc.spec})
			var b bytes.Buffer
			if err := DangerText(&b, DangerMap(r), 0); err != nil {
				t.Fatal(err)
			}
			golden(t, "danger-"+tc.name+".txt", b.Bytes())
		})
	}
}

// A schedule that stops with an error stops exhaustive mode: the text
// gives no verdicts and no danger map.
func TestExhaustiveTextOfAStoppedExploration(t *testing.T) {
	lua := &model.LuaScripts{Acquire: "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])",
		Release: "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('not mine') end return redis.call('DEL', KEYS[1])"}
	r := exhaustive(t, engine.ExhaustiveConfig{Base: model.Spec{Design: model.LuaDesignID, Lua: lua}})
	if r.FirstError == nil {
		t.Fatalf("no schedule stopped: %s", r.Guarantee())
	}
	var b strings.Builder
	if err := ExhaustiveText(&b, r, 5, nil); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "held in all") || strings.Contains(out, "Danger map") || !strings.Contains(out, "no verdict") {
		t.Errorf("a stopped run reads as verdicts:\n%s", out)
	}
}
