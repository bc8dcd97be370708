package sim

import (
	"strings"
	"testing"
	"time"
)

// starveWorkload: A's main calls every 100ms for 1s; its watchdog, started
// at once, renews every 300ms (PEXPIRE of a key it set).
func starveWorkload() func(c *Ctx) error {
	return func(c *Ctx) error {
		c.Call("m1", 50*ms, "SET", "lock", "a", "PX", "400")
		c.Go("watchdog", func(c *Ctx) error {
			for i := 0; i < 3; i++ {
				c.Sleep(300 * ms)
				c.Call("m1", 50*ms, "PEXPIRE", "lock", "400")
			}
			return nil
		})
		for i := 0; i < 10; i++ {
			c.Sleep(100 * ms)
			c.Call("m1", 50*ms, "INCR", "work")
		}
		return nil
	}
}

// callsBy returns the true times of task's calls of A.
func callsBy(h History, task string) []time.Duration {
	var out []time.Duration
	for _, e := range h {
		if e.Actor == "A" && e.Kind == KindCall && e.Task == task {
			out = append(out, e.At)
		}
	}
	return out
}

// TestStarvedWatchdogRunsLate: starving A's watchdog from 250ms to 850ms
// holds its first renewal (due at 301ms) until 850ms, when it leaves; the
// lock key's 400ms TTL runs out meanwhile (it expires on Redis), while A's
// main task goes on calling every 100ms through the window: a starvation
// is not a pause.
func TestStarvedWatchdogRunsLate(t *testing.T) {
	cfg := oneNode(ClientConfig{Name: "A", Main: starveWorkload()})
	cfg.Network.Default.Max = cfg.Network.Default.Min
	cfg.Faults = []Fault{{Kind: FaultStarve, Target: "A", Task: "watchdog", At: 250 * ms, Dur: 600 * ms}}
	h := mustRun(t, cfg, 1)

	wd := callsBy(h, "watchdog")
	if len(wd) == 0 || wd[0] != 850*ms {
		t.Fatalf("the watchdog's calls at %v: want the first at 850ms, when its starvation ends\n%s", wd, h.Text())
	}
	inWindow := 0
	for _, at := range callsBy(h, "main") {
		if at > 250*ms && at < 850*ms {
			inWindow++
		}
	}
	if inWindow < 5 {
		t.Errorf("main called %d times during the watchdog's starvation, want about 6: the rest of the process runs\n%s", inWindow, h.Text())
	}
	if exp := kinds(h, "r1", KindExpire); len(exp) != 1 || exp[0].At >= 850*ms {
		t.Errorf("expiries %v: want the lock key to expire during the starvation\n%s", exp, h.Text())
	}
	st, end := kinds(h, "A", KindStarve), kinds(h, "A", KindStarveEnd)
	if len(st) != 1 || len(end) != 1 || st[0].Task != "watchdog" || end[0].At != 850*ms || end[0].N != 1 {
		t.Errorf("starve %v, starve-end %v: want one window of the watchdog ending at 850ms with its one held wake-up\n%s", st, end, h.Text())
	}
}

// TestStarvedMainWhileWatchdogRenews: starving the main task leaves the
// watchdog renewing on time.
func TestStarvedMainWhileWatchdogRenews(t *testing.T) {
	cfg := oneNode(ClientConfig{Name: "A", Main: starveWorkload()})
	cfg.Network.Default.Max = cfg.Network.Default.Min
	cfg.Faults = []Fault{{Kind: FaultStarve, Target: "A", Task: "main", At: 150 * ms, Dur: 700 * ms}}
	h := mustRun(t, cfg, 1)
	for _, at := range callsBy(h, "main") {
		if at > 150*ms && at < 850*ms {
			t.Errorf("main called at %v, inside its starvation (150ms to 850ms)\n%s", at, h.Text())
		}
	}
	if wd := callsBy(h, "watchdog"); len(wd) != 3 || wd[0] != 302*ms {
		t.Errorf("watchdog calls at %v: want three, the first on time at 302ms", wd)
	}
	if exp := kinds(h, "r1", KindExpire); len(exp) != 1 || exp[0].At < 1300*ms {
		t.Errorf("expiries %v: want the key to expire only after the watchdog's last renewal (906ms + 400ms)", exp)
	}
}

// TestStarveUnderPauseAndCrash: a pause over the starvation's end holds
// what the window released until the resume; a crash ends the
// starvation, and what it held never runs.
func TestStarveUnderPauseAndCrash(t *testing.T) {
	cfg := oneNode(ClientConfig{Name: "A", Main: starveWorkload()})
	cfg.Network.Default.Max = cfg.Network.Default.Min
	cfg.Faults = []Fault{
		{Kind: FaultStarve, Target: "A", Task: "watchdog", At: 250 * ms, Dur: 300 * ms},
		{Kind: FaultPause, Target: "A", At: 500 * ms, Dur: 200 * ms},
	}
	h := mustRun(t, cfg, 1)
	if wd := callsBy(h, "watchdog"); len(wd) == 0 || wd[0] != 700*ms {
		t.Errorf("watchdog calls at %v: want the first at 700ms, the pause's resume", wd)
	}

	cfg.Faults = []Fault{
		{Kind: FaultStarve, Target: "A", Task: "watchdog", At: 250 * ms, Dur: 300 * ms},
		{Kind: FaultCrash, Target: "A", At: 400 * ms},
	}
	h = mustRun(t, cfg, 1)
	if wd := callsBy(h, "watchdog"); len(wd) != 0 {
		t.Errorf("watchdog calls at %v after a crash during its starvation: want none", wd)
	}
	if end := kinds(h, "A", KindStarveEnd); len(end) != 0 {
		t.Errorf("a crashed process's starvation ended with %v: a crash ends it", end)
	}
}

// TestStarveFaultLine: the fault's line parses back through the table, and
// validation refuses one without a task or a length, or on an external
// client.
func TestStarveFaultLine(t *testing.T) {
	f := Fault{Kind: FaultStarve, Target: "A", Task: "watchdog", Dur: 2 * time.Second, After: &Trigger{Actor: "A", Kind: "acquired"}}
	if got, want := f.String(), "starve A task=watchdog for 2s after A acquired"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	info, _ := FaultKindOf(FaultStarve)
	if err := info.Check(Fault{Kind: FaultStarve, Target: "A", Dur: ms}); err == nil || !strings.Contains(err.Error(), "task=") {
		t.Errorf("a starve without a task: %v", err)
	}
	if err := info.Check(Fault{Kind: FaultStarve, Target: "A", Task: "main"}); err == nil || !strings.Contains(err.Error(), "duration") {
		t.Errorf("a starve without a length: %v", err)
	}
	cfg := oneNode(ClientConfig{Name: "A", External: true})
	cfg.Faults = []Fault{{Kind: FaultStarve, Target: "A", Task: "main", At: ms, Dur: ms}}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "only task=watchdog") {
		t.Errorf("a starve of an external client's main task: %v, want it refused", err)
	}
	cfg.Faults[0].Task = "watchdog"
	if err := cfg.Validate(); err != nil {
		t.Errorf("a starve of an external client's watchdog: %v, want it accepted", err)
	}
}

// TestStarvedTaskReadsItsReplyLate: a reply that reaches a starved task
// waits: the watchdog's first renewal leaves at 302ms, Redis extends the
// key at once, and the watchdog, starved from 302.5ms for 100ms, reads the
// reply at 402.5ms.
func TestStarvedTaskReadsItsReplyLate(t *testing.T) {
	cfg := oneNode(ClientConfig{Name: "A", Main: starveWorkload()})
	cfg.Network.Default.Max = cfg.Network.Default.Min
	cfg.Faults = []Fault{{Kind: FaultStarve, Target: "A", Task: "watchdog", At: 302*ms + ms/2, Dur: 100 * ms}}
	h := mustRun(t, cfg, 1)
	var replies []time.Duration
	for _, e := range h {
		if e.Actor == "A" && e.Task == "watchdog" && e.Kind == KindReply {
			replies = append(replies, e.At)
		}
	}
	if len(replies) == 0 || replies[0] != 402*ms+ms/2 {
		t.Errorf("the watchdog read its replies at %v: want the first at 402.5ms, its starvation's end\n%s", replies, h.Text())
	}
	for _, e := range kinds(h, "r1", KindExec) {
		if e.Args[0] == "PEXPIRE" {
			if e.At != 303*ms {
				t.Errorf("r1 executed the first renewal at %v: want 303ms, before the starvation", e.At)
			}
			break
		}
	}
}

// TestStarveFromTheTasksOwnEvent: a starvation triggered by an event the
// task itself records holds the operation it yields next: the request
// leaves at the window's end (the renewal leaves late).
func TestStarveFromTheTasksOwnEvent(t *testing.T) {
	main := func(c *Ctx) error {
		c.Go("watchdog", func(c *Ctx) error {
			c.Sleep(100 * ms)
			c.Record(Event{Kind: "renew-start"})
			c.Call("m1", 50*ms, "PEXPIRE", "lock", "400")
			return nil
		})
		c.Sleep(time.Second)
		return nil
	}
	cfg := oneNode(ClientConfig{Name: "A", Main: main})
	cfg.Faults = []Fault{{Kind: FaultStarve, Target: "A", Task: "watchdog", Dur: 200 * ms, After: &Trigger{Actor: "A", Kind: "renew-start"}}}
	h := mustRun(t, cfg, 1)
	if wd := callsBy(h, "watchdog"); len(wd) != 1 || wd[0] != 300*ms {
		t.Errorf("the watchdog's request left at %v: want 300ms, when the starvation its own event set off ends\n%s", wd, h.Text())
	}
}
