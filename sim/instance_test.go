package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// TestRecycledInstanceLikeFresh: a run on a miniredis instance recycled
// from a run that changed everything it could gives the same history as on
// a fresh instance.
func TestRecycledInstanceLikeFresh(t *testing.T) {
	calls := func(cmds ...[]string) Config {
		return oneNode(ClientConfig{Name: "A", Main: func(c *Ctx) error {
			for _, cmd := range cmds {
				c.Call("r1", time.Second, cmd...)
			}
			return nil
		}})
	}
	dirty := calls(
		[]string{"SET", "k", "v", "PX", "500"}, []string{"HSET", "h", "f", "v"}, []string{"SADD", "s", "a", "b", "c"},
		[]string{"SPOP", "s"}, []string{"XADD", "x", "*", "f", "v"}, []string{"XGROUP", "CREATE", "x", "g", "0"},
		[]string{"SELECT", "3"}, []string{"SET", "in3", "v"}, []string{"SWAPDB", "0", "3"},
		[]string{"CLIENT", "SETNAME", "dirty"}, []string{"WATCH", "k"}, []string{"MULTI"}, []string{"SET", "k", "w"},
		[]string{"EXEC"}, []string{"SCRIPT", "LOAD", "return 1"}, []string{"INFO"}, []string{"RANDOMKEY"},
		[]string{"EVAL", "redis.call('SET', 'fromlua', 1) return redis.call('SRANDMEMBER', 's')", "0"},
	)
	probe := calls(
		[]string{"DBSIZE"}, []string{"KEYS", "*"}, []string{"SCAN", "0"}, []string{"SELECT", "3"}, []string{"KEYS", "*"},
		[]string{"SELECT", "0"}, []string{"CLIENT", "GETNAME"}, []string{"TIME"},
		[]string{"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"},
		[]string{"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"},
		[]string{"SADD", "s", "a", "b", "c", "d", "e", "f"}, []string{"SRANDMEMBER", "s", "3"}, []string{"SPOP", "s"},
		[]string{"SET", "k", "v", "PX", "300"}, []string{"PTTL", "k"}, []string{"XINFO", "GROUPS", "x"},
		[]string{"OBJECT", "IDLETIME", "k"}, []string{"MEMORY", "USAGE", "k"}, []string{"INFO"}, []string{"INFO", "stats"},
	)
	poolInstances = false
	fresh := mustRun(t, probe, 5).Text()
	poolInstances = true
	defer func() { poolInstances = true }()

	for instancePool.Get() != nil { // empty the pool: the next run makes the instance
	}
	mustRun(t, dirty, 9)
	m, _ := instancePool.Get().(*miniredis.Miniredis)
	if m == nil {
		t.Skip("the pool lost the instance (a GC ran); nothing to compare")
	}
	instancePool.Put(m)
	recycled := mustRun(t, probe, 5).Text()
	if again, _ := instancePool.Get().(*miniredis.Miniredis); again != m {
		t.Skip("the probe did not get the recycled instance; nothing to compare")
	}
	if recycled != fresh {
		t.Errorf("a recycled instance changed the run:\nfresh:\n%s\nrecycled:\n%s", fresh, recycled)
	}
	if !strings.Contains(fresh, "(integer) 0") {
		t.Errorf("probe looks empty:\n%s", fresh)
	}
}

// TestLockedInstanceNotRecycled: a miniredis handler that panics while
// holding the instance's lock (SSCAN with a negative cursor, reached from
// a read-only script, whose panic the engine recovers) leaves the instance
// locked (the run stops, see TestMiniredisPanicStopsTheRun); it must not
// be handed to a later run, which would hang. (Found by review.)
func TestLockedInstanceNotRecycled(t *testing.T) {
	poison := func(c *Ctx) error {
		c.Call("r1", time.Second, "EVAL_RO", "return redis.call('SSCAN', 'k', '-1')", "0")
		return nil
	}
	within := func(what string, run func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { run(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second): // wall clock: a test guard, not the simulated path
			t.Fatalf("%s hangs on a locked instance", what)
		}
	}
	for instancePool.Get() != nil {
	}
	if _, err := Run(oneNode(ClientConfig{Name: "A", Main: poison}), 1); err == nil {
		t.Fatal("the poisoned run did not stop")
	}
	var err error
	within("a later run", func() {
		_, err = Run(oneNode(ClientConfig{Name: "B", Main: func(c *Ctx) error {
			_, err := c.Call("r1", time.Second, "SET", "x", "1")
			return err
		}}), 2)
	})
	if err != nil {
		t.Errorf("the later run: %v", err)
	}
}

// TestMiniredisPanicStopsTheRun: a command that panics inside miniredis,
// directly or from a script, stops the run with an error naming it,
// instead of crashing the process or hanging on the locked instance.
func TestMiniredisPanicStopsTheRun(t *testing.T) {
	for _, cmd := range [][]string{
		{"SSCAN", "k", "-1"},
		{"EVAL_RO", "return redis.call('SSCAN', 'k', '-1')", "0"},
		{"EVAL", "return redis.pcall('SSCAN', 'k', '-1')", "0"},
	} {
		done := make(chan error)
		go func() {
			_, err := Run(oneNode(ClientConfig{Name: "A", Main: func(c *Ctx) error {
				c.Call("r1", time.Second, cmd...)
				c.Call("r1", time.Second, "GET", "x")
				return nil
			}}), 1)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "SSCAN") || !strings.Contains(err.Error(), "cannot go on") {
				t.Errorf("%q: run error %v, want one naming the command", cmd, err)
			}
		case <-time.After(10 * time.Second): // wall clock: a test guard, not the simulated path
			t.Fatalf("%q: the run hangs", cmd)
		}
	}
}
