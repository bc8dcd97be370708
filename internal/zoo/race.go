package zoo

import (
	"time"

	"locksim"
	"locksim/model"
	"locksim/network"
)

// Same-instant races: mutants whose flaw shows only when two events due
// at the same virtual instant run in an order other than the one they
// were scheduled in. The fixed order never takes that order; the random
// and PCT schedulers do (sim/interleave.go).

// raceZoo is the part of the zoo that needs a same-instant scheduler:
// its pairs check under locksim.WithInterleave, the rest of the zoo under the
// fixed order.
func raceZoo() []mutant {
	return []mutant{
		// A writer A and a reader B on a LAN of constant latency, one
		// cycle each, no faults: their first acquires reach the node in
		// the same millisecond. Scheduled in config order, the writer's
		// always runs first and the reader waits; only when the reader's
		// runs first does the writer's missing check for readers matter.
		{name: "the writer's check for readers (same-instant acquires)", design: writerIgnoresReaders{}, twin: model.ReadWriteLock,
			opts:      raceOpts("random"),
			mechanism: "(reading)",
		},
	}
}

// raceOpts fixes a configuration where two acquires arrive together: two
// clients (a writer and a reader), one cycle, a constant 1ms latency, no
// faults; interleave is the same-instant scheduler.
func raceOpts(interleave string) []locksim.Option {
	return []locksim.Option{locksim.WithFaults(), locksim.WithClients("A", "B"), locksim.WithWorkload(model.Workload{Cycles: 1}),
		locksim.WithLatency(network.Latency{Min: time.Millisecond, Max: time.Millisecond}), locksim.WithInterleave(interleave)}
}

// writerIgnoresReaders takes the write hold when the lock is free or
// held only by readers: the check for readers is gone.
type writerIgnoresReaders struct{}

const writeIgnoringReaders = "local mode = redis.call('hget', KEYS[1], 'mode'); " +
	"if not mode or mode == 'read' then " +
	"redis.call('hset', KEYS[1], 'mode', 'write'); redis.call('hset', KEYS[1], ARGV[2], 1); " +
	"redis.call('pexpire', KEYS[1], ARGV[1]); return nil; " +
	"end; " +
	"return redis.call('pttl', KEYS[1]);"

func (writerIgnoresReaders) Name() string         { return "writer-ignores-readers" }
func (writerIgnoresReaders) Traits() model.Traits { return model.TraitsOf(rwLock()) }
func (writerIgnoresReaders) Reentrant()           {}
func (writerIgnoresReaders) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	if c.Reader() {
		return rwLock().TryAcquire(c, v)
	}
	g := c.Masters()[0]
	node := c.Primary(g)
	r, err := c.Call(g, "EVAL", writeIgnoringReaders, "1", c.Key, c.TTLms(), v)
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: v, Nodes: []string{node}, Count: 1}, r.IsNil(), nil
}
func (writerIgnoresReaders) Release(c *model.Client, l *model.Lease) error {
	return rwLock().Release(c, l)
}
func (writerIgnoresReaders) Renew(c *model.Client, l *model.Lease) (bool, error) {
	return rwLock().(model.Renewer).Renew(c, l)
}
func (writerIgnoresReaders) WaitRelease(c *model.Client, max time.Duration) {
	rwLock().(model.Waiter).WaitRelease(c, max)
}
