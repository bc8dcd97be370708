package scenarios

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"locksim/clock"
	"locksim/model"
	"locksim/network"
	"locksim/sim"
)

// full uses every directive once.
const full = `# every directive
name full
title Every directive # a comment
design redlock
designs redlock set-px-lua
topology masters=5 replicas=1 persistence=aof-always min-replicas-to-write=1 min-replicas-max-lag=2s
sentinel down-after=1s discovery=100ms
maxmemory 3000 volatile-ttl
fill every=10ms size=50 ttl=2s start=1s
priority r2=5 r4=1
clients A B C
ttl 2s
work 100ms
think 5ms
stagger 10ms
duration 30s
cycles 4
reentry 2
latency 1ms 3ms
loss 1000ppm
fencing strict
option deadline=true margin=5ms drift-factor=0.05
option quorum=3 wait-replicas=1 node-timeout=20ms
option wait-accept=1 wait-check=false
clock r1 rate=+20000ppm
clock A offset=-1s
until 1m
limits events=100000 time=2m
fault partition r1,A | r3,B,sentinel at 100ms for 40s
fault node-crash r1 at 2s for 5s
fault pause A for 1.5s after A acquired #2 +10ms
fault clock-jump r3 by=-2s after A acquired
fault delay A->resource +1.5s for 10ms after A write
fault drop r1->* count=1 after r1 exec
fault crash B restart for 1s after B reply #3
fault clock-drift B rate=-1000ppm at 3s
fault evict r5 key=lock at 4s
expect breaks something
expect survives something else
----

The text.
  Indented line.
`

func TestParseFull(t *testing.T) {
	s, err := Parse("full.txt", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	want := &Scenario{
		Name: "full", Title: "Every directive", Design: "redlock",
		Designs: []string{"redlock", "set-px-lua"},
		Layout:  &Layout{Masters: 5, Replicas: 1},
		Text:    "The text.\n  Indented line.",
		Expect:  []Expectation{{"breaks", "something"}, {"survives", "something else"}},
		File:    "full.txt", Source: full,
		Spec: model.Spec{
			Options: model.Options{TTL: 2 * time.Second, Deadline: true, Margin: 5 * time.Millisecond,
				DriftFactor: 0.05, Quorum: 3, WaitReplicas: 1, NodeTimeout: 20 * time.Millisecond, WaitAccept: 1, IgnoreWait: true},
			Fencing:  model.FenceStrict,
			Workload: model.Workload{Cycles: 4, Duration: 30 * time.Second, Work: 100 * time.Millisecond, Think: 5 * time.Millisecond, Reentry: 2, Start: 10 * time.Millisecond},
			Topology: model.Topology{Masters: 5, Replicas: 1, Persistence: sim.PersistAlways,
				MinReplicasToWrite: 1, MinReplicasMaxLag: 2 * time.Second,
				MaxMemory: 3000, Policy: sim.VolatileTTL, Fill: sim.FillConfig{Every: 10 * time.Millisecond, Size: 50, TTL: 2 * time.Second, Start: time.Second},
				Sentinel:     sim.SentinelConfig{Enabled: true, DownAfter: time.Second, DiscoveryDelay: 100 * time.Millisecond},
				NodeClocks:   map[string]clock.Config{"r1": {RatePPM: 20000}},
				ClientClocks: map[string]clock.Config{"A": {Offset: -time.Second}},
				Priorities:   map[string]int{"r2": 5, "r4": 1}},
			Clients: []string{"A", "B", "C"},
			Network: network.Config{Default: network.Latency{Min: time.Millisecond, Max: 3 * time.Millisecond}, LossPPM: 1000},
			Until:   time.Minute,
			Limits:  sim.Limits{MaxEvents: 100000, MaxTime: 2 * time.Minute},
			Faults: []sim.Fault{
				{Kind: sim.FaultPartition, A: []string{"r1", "A"}, B: []string{"r3", "B", "sentinel"}, At: 100 * time.Millisecond, Dur: 40 * time.Second},
				{Kind: sim.FaultNodeCrash, Target: "r1", At: 2 * time.Second, Dur: 5 * time.Second},
				{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, At: 10 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: "acquired", Nth: 2}},
				{Kind: sim.FaultClockJump, Target: "r3", By: -2 * time.Second, After: &sim.Trigger{Actor: "A", Kind: "acquired"}},
				{Kind: sim.FaultDelay, From: "A", To: "resource", Extra: 1500 * time.Millisecond, Dur: 10 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: "write"}},
				{Kind: sim.FaultDrop, From: "r1", To: "*", Count: 1, After: &sim.Trigger{Actor: "r1", Kind: "exec"}},
				{Kind: sim.FaultCrash, Target: "B", Restart: true, Dur: time.Second, After: &sim.Trigger{Actor: "B", Kind: "reply", Nth: 3}},
				{Kind: sim.FaultClockDrift, Target: "B", RatePPM: -1000, At: 3 * time.Second},
				{Kind: sim.FaultEvict, Target: "r5", Key: "lock", At: 4 * time.Second},
			},
		},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

// base is a minimal valid file; bad cases edit it.
const base = `name bad
title A bad file
topology masters=1 replicas=1
sentinel
clients A B
ttl 1s
fault pause A for 1s at 1s
fault node-crash r1 at 2s
----
Text.
`

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		// edit replaces old with new in base ("" old: append to the header).
		old, new string
		want     string
	}{
		{"unknown directive", "ttl 1s", "faul pause A for 1s at 0s", `bad.txt:6: unknown directive "faul" (did you mean "fault"?)`},
		{"unknown directive far", "ttl 1s", "bogus 1", `bad.txt:6: unknown directive "bogus"`},
		{"missing name", "name bad\n", "", `bad.txt:8: missing required name line (the header ends here)`},
		{"missing clients", "clients A B\n", "# no clients\n", `bad.txt:9: missing required clients line (the header ends here)`},
		{"missing title no text", "title A bad file\n", "", `bad.txt:7: missing required title line (the header ends here)`},
		{"repeated", "ttl 1s", "ttl 1s\nttl 2s", `bad.txt:7: ttl given twice (first on line 6)`},
		{"time backwards", "fault node-crash r1 at 2s", "fault node-crash r1 at 500ms", `bad.txt:8: fault at 500ms comes before the fault at 1s on line 7 (list absolute faults in time order)`},
		{"unknown node", "r1 at 2s", "r3 at 2s", `bad.txt:8: fault: unknown node "r3" (nodes: r1, r2)`},
		{"node without layout", "topology masters=1 replicas=1\nsentinel\n", "", `bad.txt:6: fault: names node r1, but the file fixes no layout: add topology masters=N replicas=N (node names depend on it)`},
		{"unknown client", "pause A for", "pause C for", `bad.txt:7: fault: unknown client "C" (clients: A, B)`},
		{"client is a node", "pause A for", "pause r1 for", `bad.txt:7: fault: r1 is a node; want a client`},
		{"unknown design", "ttl 1s", "design redlok", `bad.txt:6: design: unknown design "redlok" (known: setnx-expire, set-px-getdel, set-px-lua, watchdog, reentrant-hash, fenced, redlock, wait-replica, fair-lock, read-write-lock, explicit-lease, multi-lock, redlock-one-node, set-ifeq)`},
		{"unknown design in list", "ttl 1s", "designs set-px-lua bogus", `bad.txt:6: designs: unknown design "bogus" (known: setnx-expire, set-px-getdel, set-px-lua, watchdog, reentrant-hash, fenced, redlock, wait-replica, fair-lock, read-write-lock, explicit-lease, multi-lock, redlock-one-node, set-ifeq)`},
		{"design does not fit", "ttl 1s", "design redlock", `bad.txt:6: scenario bad fixes masters=1; design redlock needs at least 3 independent masters`},
		{"design not listed", "ttl 1s", "design redlock\ndesigns fenced", `bad.txt:6: scenario bad applies to designs fenced only; not redlock`},
		{"bad duration", "ttl 1s", "ttl 1.5", `bad.txt:6: ttl: bad duration "1.5" (want Go syntax such as 1.5s or 250ms)`},
		{"bad fault duration", "for 1s at 1s", "for 1x at 1s", `bad.txt:7: fault: for: bad duration "1x" (want Go syntax such as 1.5s or 250ms)`},
		{"negative duration", "ttl 1s", "work -1s", `bad.txt:6: work: duration -1s is negative`},
		{"huge duration", "ttl 1s", "until 1000h", `bad.txt:6: until: duration 1000h is beyond the limit of 24h`},
		{"bad number", "ttl 1s", "cycles x", `bad.txt:6: cycles: bad number "x"`},
		{"number out of range", "masters=1", "masters=0", `bad.txt:3: topology: masters: 0 is out of range [1, 64]`},
		{"bad trigger count", "at 1s\n", "after A acquired #0\n", `bad.txt:7: fault: after #N: 0 is out of range [1, 1000000]`},
		{"trigger count is not a comment", "at 1s\n", "after A acquired #2x\n", `bad.txt:7: fault: after #N: bad number "2x"`},
		{"unknown event", "at 1s\n", "after A acquire\n", `bad.txt:7: fault: trigger: unknown event kind "acquire"`},
		{"wrong actor", "at 1s\n", "after r1 acquired\n", `bad.txt:7: fault: trigger: r1 is a node, but only a client records "acquired" events`},
		{"no time", "for 1s at 1s", "for 1s", `bad.txt:7: fault: a fault needs at TIME or after ACTOR KIND, e.g. at 2s or after A acquired`},
		{"both times", "for 1s at 1s", "for 1s at 1s after A acquired", `bad.txt:7: fault: a fault takes either at TIME or after ACTOR KIND, not both`},
		{"pause without for", "for 1s at 1s", "at 1s", `bad.txt:7: fault: pause needs a positive duration: for D`},
		{"unknown fault kind", "pause A for 1s at 1s", "freeze A at 1s", `bad.txt:7: fault: unknown fault kind "freeze" (want pause, crash, partition, delay, drop, node-crash, clock-jump, clock-drift, evict, node-stall, starve, memory-pressure, slot-migrate, cluster-failover)`},
		{"fault after until", "ttl 1s", "until 1500ms", `bad.txt:8: fault at 2s is after until 1.5s`},
		{"sentinel undeclared", "sentinel\n", "", `bad.txt:7: fault: names the sentinel, but the file has no sentinel line`},
		{"sentinel no replicas", "replicas=1", "replicas=0", `bad.txt:4: a sentinel needs replicas to promote, but the layout has replicas=0`},
		{"min-replicas over replicas", "replicas=1", "replicas=1 min-replicas-to-write=2", `bad.txt:3: min-replicas-to-write=2 with replicas=1: every write would be refused`},
		{"min-replicas lag alone", "replicas=1", "replicas=1 min-replicas-max-lag=5s", `bad.txt:3: min-replicas-max-lag needs min-replicas-to-write`},
		{"min-replicas lag fraction", "replicas=1", "replicas=1 min-replicas-to-write=1 min-replicas-max-lag=1500ms", `bad.txt:3: topology: min-replicas-max-lag 1500ms: give whole seconds, at least 1s, as Redis takes it`},
		{"min-replicas range", "replicas=1", "replicas=1 min-replicas-to-write=17", `bad.txt:3: topology: min-replicas-to-write: 17 is out of range [0, 16]`},
		{"bad expect", "ttl 1s", "expect mutual-exclusion broken", `bad.txt:6: expect: want breaks or survives, then the catalogue's text, got "mutual-exclusion"`},
		{"reserved client", "clients A B", "clients A resource", `bad.txt:5: clients: client name "resource" is reserved (node, group, endpoint or syntax word)`},
		{"bad option", "ttl 1s", "option deadline=yes", `bad.txt:6: option: deadline: want true or false, got "yes"`},
		{"unknown option", "ttl 1s", "option speed=1", `bad.txt:6: option: unknown key "speed" (want ` + strings.Join(model.OptionKeys(), ", ") + `)`},
		{"partition twice", "ttl 1s", "fault partition A | A at 0s", `bad.txt:6: fault: partition names A twice`},
		{"clock unknown", "ttl 1s", "clock Z rate=+1ppm", `bad.txt:6: clock: unknown client or node "Z" (clients: A, B)`},
		{"until beyond limits", "ttl 1s", "until 10s\nlimits time=5s", `bad.txt:6: until 10s is beyond limits time=5s`},
		{"maxmemory range", "ttl 1s", "maxmemory 0 allkeys-lru", `bad.txt:6: maxmemory: bytes: 0 is out of range [1, 16777216]`},
		{"unknown policy", "ttl 1s", "maxmemory 100 allkeys-lru2", `bad.txt:6: maxmemory: unknown policy "allkeys-lru2" (want noeviction, allkeys-lru`},
		{"fill without every", "ttl 1s", "fill size=10", `bad.txt:6: fill: want every=D size=BYTES`},
		{"fill too big", "ttl 1s", "fill every=1ms size=2000000", `bad.txt:6: fill: size: 2000000 is out of range [0, 1048576]`},
		{"quorum too big", "ttl 1s", "option quorum=2", `bad.txt:6: quorum 2 is more than masters=1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base
			switch tt.name {
			case "missing title no text":
				in = strings.TrimSuffix(in, "----\nText.\n")
			case "sentinel undeclared":
				in = strings.Replace(in, "fault node-crash r1 at 2s", "fault partition r1 | sentinel at 2s", 1)
			}
			if !strings.Contains(in, tt.old) {
				t.Fatalf("base has no %q", tt.old)
			}
			in = strings.Replace(in, tt.old, tt.new, 1)
			_, err := Parse("bad.txt", []byte(in))
			if err == nil {
				t.Fatalf("Parse succeeded on:\n%s", in)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not a *ParseError", err)
			}
			if got := err.Error(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("Parse error\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

func TestParseComments(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"# all comment", ""},
		{"  # indented comment", "  "},
		{"fault x after A reply #4", "fault x after A reply #4"},
		{"fault x after A reply #4 # note", "fault x after A reply #4 "},
		{"title a#b", "title a#b"},
		{"title a #b", "title a "},
		{"#4 at line start is a comment", ""},
	} {
		if got := stripComment(tt.in); got != tt.want {
			t.Errorf("stripComment(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestApplies(t *testing.T) {
	tests := []struct {
		scenario, design string
		want             string // "" applies
	}{
		{"gc-pause", "redlock", ""},
		{"gc-pause", "bogus", `unknown design "bogus"`},
		{"stale-release", "redlock", "scenario stale-release applies to designs setnx-expire, set-px-getdel, set-px-lua, watchdog, reentrant-hash, fenced only; not redlock"},
		{"restart-empty", "wait-replica", "scenario restart-empty fixes replicas=0; design wait-replica needs 1 replica(s) per group to WAIT for"},
		{"restart-empty", "set-px-lua", ""},
		{"token-regression", "set-px-lua", "scenario token-regression applies to designs fenced only; not set-px-lua"},
		{"wait-wrong-replica", "redlock", ""},
		{"failover-lost-write", "wait-replica", ""},
	}
	for _, tt := range tests {
		s, err := Lookup(tt.scenario)
		if err != nil {
			t.Fatal(err)
		}
		ok, why := s.Applies(tt.design)
		if ok != (tt.want == "") || !strings.HasPrefix(why, tt.want) {
			t.Errorf("%s.Applies(%s) = %v, %q; want %q", tt.scenario, tt.design, ok, why, tt.want)
		}
		sp, err := s.SpecFor(tt.design)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s.SpecFor(%s): %v", tt.scenario, tt.design, err)
		case tt.want == "" && sp.Design != tt.design:
			t.Errorf("%s.SpecFor(%s).Design = %q", tt.scenario, tt.design, sp.Design)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s.SpecFor(%s) error = %v, want %q", tt.scenario, tt.design, err, tt.want)
		}
	}
}

// SpecFor's result shares nothing with the scenario.
func TestSpecForCopies(t *testing.T) {
	s, err := Parse("full.txt", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.SpecFor("redlock")
	if err != nil {
		t.Fatal(err)
	}
	sp.Clients[0] = "Z"
	sp.Faults[2].After.Nth = 99
	sp.Faults[0].A[0] = "Z"
	sp.Topology.NodeClocks["r1"] = clock.Config{}
	sp.Topology.Priorities["r2"] = 7
	again, err := Parse("full.txt", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(again.Spec, s.Spec); diff != "" {
		t.Errorf("changing SpecFor's result changed the scenario (-want +got):\n%s", diff)
	}
}

func TestLoad(t *testing.T) {
	path := t.TempDir() + "/mine.txt"
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Load of a missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(base, "ttl 1s", "ttl x", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if want := path + ":6: ttl: bad duration"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Load error = %v, want prefix %q", err, want)
	}
}

// TestParseCRLF: files written on Windows parse the same.
func TestParseCRLF(t *testing.T) {
	unix, err := Parse("a.txt", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	dos, err := Parse("a.txt", []byte(strings.ReplaceAll(full, "\n", "\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(unix, dos, cmpopts.IgnoreFields(Scenario{}, "Source")); diff != "" {
		t.Errorf("CRLF file parses differently (-LF +CRLF):\n%s", diff)
	}
}

// The format's documentation (format.txt, `locksim help scenarios`) names
// every directive the parser reads and every fault kind.
func TestFormatHelpComplete(t *testing.T) {
	for name := range directives {
		if !strings.Contains(FormatHelp, "\n    "+name+" ") {
			t.Errorf("format.txt does not document the %q directive", name)
		}
	}
	for _, info := range sim.FaultKindTable {
		if line := "    " + string(info.Kind) + " " + info.Syntax; !strings.Contains(FormatHelp, line) {
			t.Errorf("format.txt does not document the %q fault as its table's syntax: %q", info.Kind, line)
		}
	}
	// The option line's keys are model.OptionTable's rows.
	_, opt, _ := strings.Cut(FormatHelp, "\n    option KEY=VALUE")
	opt, _, _ = strings.Cut(opt, "\n    clock ")
	words := strings.Join(strings.Fields(opt), " ")
	for _, k := range model.OptionKeys() {
		if !strings.Contains(words, k) {
			t.Errorf("format.txt's option line does not name the %q option", k)
		}
	}
}
