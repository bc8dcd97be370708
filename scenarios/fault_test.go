package scenarios

import (
	"locksim/model"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"locksim/sim"
)

func trig(actor string, kind sim.Kind, nth int) *sim.Trigger {
	return &sim.Trigger{Actor: actor, Kind: kind, Nth: nth}
}

// faultCases are well-formed faults of every kind, with the canonical text
// FormatFault gives them.
var faultCases = []struct {
	f    sim.Fault
	text string
}{
	{sim.Fault{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: trig("A", "acquired", 0)},
		"pause A for 1.5s after A acquired"},
	{sim.Fault{Kind: sim.FaultPause, Target: "A", Dur: time.Second, At: 2 * time.Second},
		"pause A at 2s for 1s"},
	{sim.Fault{Kind: sim.FaultPause, Target: "A", Dur: time.Second, At: 100 * time.Millisecond, After: trig("A", "reply", 4)},
		"pause A for 1s after A reply #4 +100ms"},
	{sim.Fault{Kind: sim.FaultCrash, Target: "A", After: trig("A", "reply", 1)},
		"crash A after A reply #1"},
	{sim.Fault{Kind: sim.FaultCrash, Target: "B", Restart: true, Dur: 2 * time.Minute, At: time.Hour},
		"crash B restart at 1h for 2m"},
	{sim.Fault{Kind: sim.FaultNodeCrash, Target: "r1", At: 2 * time.Second, Dur: 5 * time.Second},
		"node-crash r1 at 2s for 5s"},
	{sim.Fault{Kind: sim.FaultNodeCrash, Target: "r1", After: trig("A", "acquired", 0)},
		"node-crash r1 after A acquired"},
	{sim.Fault{Kind: sim.FaultPartition, A: []string{"r1", "A"}, B: []string{"r2", "r3", "B", "sentinel"}, At: 100 * time.Millisecond, Dur: 40 * time.Second},
		"partition r1,A | r2,r3,B,sentinel at 100ms for 40s"},
	{sim.Fault{Kind: sim.FaultPartition, A: []string{"A"}, B: []string{"r1"}, OneWay: true, After: trig("fault", "heal", 0)},
		"partition A | r1 oneway after fault heal"},
	{sim.Fault{Kind: sim.FaultDelay, From: "A", To: "resource", Extra: 1500 * time.Millisecond, Dur: 10 * time.Millisecond, After: trig("A", "write", 0)},
		"delay A->resource +1.5s for 10ms after A write"},
	{sim.Fault{Kind: sim.FaultDelay, From: "r1", To: "*", Extra: time.Second, At: 20 * time.Millisecond, After: trig("r1", "exec", 3)},
		"delay r1->* +1s after r1 exec #3 +20ms"},
	{sim.Fault{Kind: sim.FaultDrop, From: "r1", To: "A", Count: 1, After: trig("r1", "exec", 0)},
		"drop r1->A count=1 after r1 exec"},
	{sim.Fault{Kind: sim.FaultDrop, From: "*", To: "r2", Count: 7, At: time.Second},
		"drop *->r2 count=7 at 1s"},
	{sim.Fault{Kind: sim.FaultClockJump, Target: "r3", By: 2 * time.Second, At: 100 * time.Millisecond, After: trig("A", "acquired", 0)},
		"clock-jump r3 by=+2s after A acquired +100ms"},
	{sim.Fault{Kind: sim.FaultClockJump, Target: "A", By: -1500 * time.Microsecond, At: 0},
		"clock-jump A by=-1.5ms at 0s"},
	{sim.Fault{Kind: sim.FaultClockDrift, Target: "r1", RatePPM: 50000, At: time.Second},
		"clock-drift r1 rate=+50000ppm at 1s"},
	{sim.Fault{Kind: sim.FaultClockDrift, Target: "B", RatePPM: -10, After: trig("B", "acquired", 2)},
		"clock-drift B rate=-10ppm after B acquired #2"},
	{sim.Fault{Kind: sim.FaultPartition, A: []string{"A"}, B: []string{"r1"}, Blackhole: true, At: time.Second},
		"partition A | r1 mode=blackhole at 1s"},
	{sim.Fault{Kind: sim.FaultEvict, Target: "r1", Key: "lock", At: 3 * time.Second},
		"evict r1 key=lock at 3s"},
	{sim.Fault{Kind: sim.FaultPause, Target: "A", Dur: 1, At: 1234567891},
		"pause A at 1.234567891s for 1ns"},
	{sim.Fault{Kind: sim.FaultMemoryPressure, Target: "r1", Size: 2000, At: time.Second},
		"memory-pressure r1 size=2000 at 1s"},
	{sim.Fault{Kind: sim.FaultMemoryPressure, Target: "r1", Size: 340, Policy: sim.VolatileTTL, Dur: 2 * time.Second, After: &sim.Trigger{Actor: "A", Kind: "acquired", Nth: 2}},
		"memory-pressure r1 size=340 policy=volatile-ttl for 2s after A acquired #2"},
}

// TestFaultRoundTrip: FormatFault gives the canonical text, and ParseFault
// reads it back to an equal fault.
func TestFaultRoundTrip(t *testing.T) {
	for _, tc := range faultCases {
		text := FormatFault(tc.f)
		if text != tc.text {
			t.Errorf("FormatFault(%+v)\n got: %s\nwant: %s", tc.f, text, tc.text)
		}
		got, err := ParseFault(text)
		if err != nil {
			t.Errorf("ParseFault(%q): %v", text, err)
			continue
		}
		if diff := cmp.Diff(tc.f, got); diff != "" {
			t.Errorf("ParseFault(%q) (-want +got):\n%s", text, diff)
		}
	}
}

// TestSimStringParses: sim.Fault.String's form parses to the same fault,
// except that String drops "#1" (Nth 1 and 0 mean the same to sim).
func TestSimStringParses(t *testing.T) {
	for _, tc := range faultCases {
		f := tc.f
		got, err := ParseFault(f.String())
		if err != nil {
			t.Errorf("ParseFault(%q): %v", f.String(), err)
			continue
		}
		if f.After != nil && f.After.Nth == 1 {
			got.After.Nth = 1
		}
		if diff := cmp.Diff(f, got); diff != "" {
			t.Errorf("ParseFault(%q) (-want +got):\n%s", f.String(), diff)
		}
	}
}

// TestFaultClauseOrder: clauses may come in any order; spaces around the
// partition's | and , are optional.
func TestFaultClauseOrder(t *testing.T) {
	want := sim.Fault{Kind: sim.FaultPartition, A: []string{"r1", "A"}, B: []string{"r2"}, OneWay: true, At: time.Second, Dur: 2 * time.Second}
	for _, s := range []string{
		"partition r1,A | r2 oneway at 1s for 2s",
		"partition r1, A|r2 for 2s oneway at 1s",
		"partition r1 ,A |r2 at 1s oneway for 2s",
	} {
		got, err := ParseFault(s)
		if err != nil {
			t.Errorf("ParseFault(%q): %v", s, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ParseFault(%q) (-want +got):\n%s", s, diff)
		}
	}
}

func TestParseFaultErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "fault needs a kind"},
		{"pause", "pause needs a target"},
		{"pause A for 1s", "a fault needs at TIME or after"},
		{"pause A for 1s at 1s at 2s", "at given twice"},
		{"pause A for 1s after A acquired +1s +2s", "the trigger delay given twice"},
		{"pause A for 1s at 1s +5ms", "a +DELAY needs a trigger"},
		{"pause A for 1s after A", "after needs an actor and an event kind"},
		{"pause A at 1s for 0s", "pause needs a positive duration"},
		{"partition A at 1s", "partition needs two sides"},
		{"partition A | B | C at 1s", "partition needs two sides"},
		{"partition A, | B at 1s", `partition: empty name in "A,"`},
		{"delay A->B at 1s", "delay needs the extra delay"},
		{"delay A-B +1s at 1s", `want a link FROM->TO, got "A-B"`},
		{"delay A->B +0s at 1s", "the extra delay must be positive"},
		{"drop A->B at 1s", "drop needs count=N"},
		{"drop A->B count=0 at 1s", "drop count: 0 is out of range"},
		{"clock-jump r1 by=0s at 1s", "by must not be zero"},
		{"clock-jump r1 2s at 1s", `want by=±DURATION, got "2s"`},
		{"clock-drift r1 rate=5000 at 1s", "want a rate like +20000ppm"},
		{"clock-drift r1 rate=+600000ppm at 1s", "out of range"},
		{"evict r1 at 1s", "evict needs key=KEY"},
		{"memory-pressure r1 at 1s", "memory-pressure needs size=BYTES"},
		{"memory-pressure r1 size=0 at 1s", "memory-pressure size: 0 is out of range"},
		{"memory-pressure r1 size=10 policy=lru at 1s", `unknown policy "lru"`},
		{"memory-pressure r1 size=10 ttl=1s at 1s", `want size=BYTES [policy=POLICY], got "ttl=1s"`},
		{"memory-pressure r1 size=10 size=20 at 1s", `got "size=20"`},
		{"pause A for 1s at 1s restart", `unexpected "restart" in a pause fault`},
		{"crash A restart restart at 1s", `unexpected "restart"`},
		{"pause A for 1s at -1s", "at: duration -1s is negative"},
		{"pause A for 1s after A acquired +-1s", "trigger delay: duration -1s is negative"},
	} {
		_, err := ParseFault(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseFault(%q) = %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
}

func TestFmtDur(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", time.Minute: "1m", 90 * time.Second: "1m30s", time.Hour: "1h",
		90 * time.Minute: "1h30m", -2 * time.Minute: "-2m", time.Hour + time.Second: "1h0m1s",
		1500 * time.Millisecond: "1.5s",
	} {
		if got := fmtDur(d); got != want {
			t.Errorf("fmtDur(%v) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(want); err != nil || back != d {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", want, back, err, d)
		}
	}
}

// A trigger may count only one task's events and start counting after an
// event: "the first call of A's second acquisition", "the watchdog's
// second request". The forms round-trip through String.
func TestTriggerTaskAndSince(t *testing.T) {
	for _, s := range []string{
		"pause A for 1s after A call since acquire-start #2",
		"pause A for 1s after A call #2 task watchdog",
		"pause A for 300ms after A call #1 task main since acquire-start +5ms",
	} {
		f, err := ParseFault(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		g, err := ParseFault(f.String())
		if err != nil || !cmp.Equal(f, g) {
			t.Errorf("%s: String %q parses back to %+v (%v)", s, f.String(), g, err)
		}
	}
	for _, bad := range []string{"pause A for 1s after A call since", "pause A for 1s after A call task"} {
		if _, err := ParseFault(bad); err == nil {
			t.Errorf("%s: parsed", bad)
		}
	}
}

// TestPartitionMode: mode=reset is the default and formats as nothing;
// an unknown mode is an error naming the two.
func TestPartitionMode(t *testing.T) {
	f, err := ParseFault("partition A | r1 mode=reset at 1s")
	if err != nil || f.Blackhole || FormatFault(f) != "partition A | r1 at 1s" {
		t.Errorf("mode=reset: %+v, %v, %q", f, err, FormatFault(f))
	}
	if _, err := ParseFault("partition A | r1 mode=drop at 1s"); err == nil || !strings.Contains(err.Error(), "reset, the default, or blackhole") {
		t.Errorf("an unknown mode: %v", err)
	}
}

// TestGenBlackhole: Gen.Blackhole makes every drawn partition a
// blackhole without moving any other draw: the same seed gives the same
// faults, partitions marked.
func TestGenBlackhole(t *testing.T) {
	base := model.Spec{Design: model.SetPxLua}
	g := Gen{Kinds: []sim.FaultKind{sim.FaultPartition, sim.FaultPause}, MaxFaults: 3, Swarm: true}
	saw := false
	for seed := range uint64(50) {
		plain := g.Run(Rand(seed), base)
		gb := g
		gb.Blackhole = true
		black := gb.Run(Rand(seed), base)
		if len(plain.Faults) != len(black.Faults) {
			t.Fatalf("seed %d: %d faults without, %d with", seed, len(plain.Faults), len(black.Faults))
		}
		for i, f := range black.Faults {
			want := plain.Faults[i]
			if f.Kind == sim.FaultPartition {
				saw = true
				if !f.Blackhole {
					t.Errorf("seed %d: partition %v is not a blackhole", seed, f)
				}
				want.Blackhole = true
			}
			if diff := cmp.Diff(want, f); diff != "" {
				t.Errorf("seed %d fault %d (-want +got):\n%s", seed, i, diff)
			}
		}
	}
	if !saw {
		t.Fatal("no partition drawn in 50 seeds")
	}
}
