package model_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"locksim/model"
	"locksim/sim"
)

// execs returns the commands the nodes ran in a history, joined by spaces.
func execs(h sim.History) []string {
	var out []string
	for _, e := range h {
		if e.Kind == sim.KindExec {
			out = append(out, strings.Join(e.Args, " "))
		}
	}
	return out
}

// set-ifeq locks, renews and unlocks without Lua: SET NX PX, SET IFEQ PX
// from its watchdog, and DELEX IFEQ (Redis 8.4, the release it takes by
// default) or DELIFEQ (Valkey 9.0); no fault, no violation.
func TestSetIfeqCommands(t *testing.T) {
	for _, tc := range []struct{ server, release string }{
		{"", "DELEX lock IFEQ "},
		{"redis-8.4", "DELEX lock IFEQ "},
		{"valkey-9.0", "DELIFEQ lock "},
	} {
		s := model.Spec{Design: model.SetIfeq, Workload: model.Workload{Work: 900 * time.Millisecond}}
		s.Topology.Server = tc.server
		r, err := model.Run(s, 1)
		if err != nil || r.Err != nil {
			t.Fatalf("%q: run: %v %v", tc.server, err, r.Err)
		}
		if len(r.Violations) > 0 {
			t.Errorf("%q: %v", tc.server, r.Violations)
		}
		cmds := execs(r.History)
		for _, want := range []string{"SET lock A:", "IFEQ A:", tc.release + "A:", tc.release + "B:"} {
			if !slices.ContainsFunc(cmds, func(c string) bool { return strings.Contains(c, want) }) {
				t.Errorf("%q: no command with %q in %q", tc.server, want, cmds)
			}
		}
		if slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "EVAL") }) {
			t.Errorf("%q: a script ran: %q", tc.server, cmds)
		}
		if !slices.ContainsFunc(cmds, func(c string) bool { return strings.Contains(c, " IFEQ A:") && strings.HasSuffix(c, " PX 1000") }) {
			t.Errorf("%q: the watchdog never renewed with SET IFEQ ... PX 1000: %q", tc.server, cmds)
		}
	}
}

// A release without the commands set-ifeq sends is refused with the
// reason, before any run; the other designs run on every release.
func TestSetIfeqNeedsANewerServer(t *testing.T) {
	s := model.Spec{Design: model.SetIfeq}
	s.Topology.Server = "redis-7.0"
	err := s.ValidateSettings()
	if err == nil || !strings.Contains(err.Error(), "set-ifeq sends SET IFEQ, which redis-7.0 does not have: it needs SET IFEQ (redis-8.4 or valkey-9.0)") {
		t.Errorf("ValidateSettings on redis-7.0: %v", err)
	}
	if _, err := s.Config(); err == nil {
		t.Error("Config on redis-7.0: no error")
	}
	s.Topology.Server = "redis-9.9"
	if err := s.ValidateSettings(); err == nil || !strings.Contains(err.Error(), "locksim models redis-7.0 (the default), redis-8.4 or valkey-9.0") {
		t.Errorf("an unknown release: %v", err)
	}
	for _, id := range model.DesignIDs() {
		v, err := model.Spec{Design: id}.ServerVersion()
		want := sim.Redis70
		if id == model.SetIfeq {
			want = sim.Redis84
		}
		if err != nil || v != want {
			t.Errorf("%s: default release %v %v, want %v", id, v, err, want)
		}
	}
}
