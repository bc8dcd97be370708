package zoo

import (
	"strconv"
	"time"

	"locksim/model"
	"locksim/sim"
	"locksim/sim/resp"
)

// --- the mutants ---------------------------------------------------------

const releaseLua = "if redis.call('GET',KEYS[1])==ARGV[1] then return redis.call('DEL',KEYS[1]) else return 0 end"

func setNXPX(c *model.Client, value string) (model.Lease, bool, error) {
	g := c.Masters()[0]
	node := c.Primary(g)
	r, err := c.Call(g, "SET", c.Key, value, "NX", "PX", c.TTLms())
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: value, Nodes: []string{node}}, r.Kind == resp.Status && r.Str == "OK", nil
}

// releaseDel releases with a plain DEL: it deletes whoever holds the key.
type releaseDel struct{}

func (releaseDel) Name() string { return "release-del" }
func (releaseDel) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	return setNXPX(c, v)
}
func (releaseDel) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "DEL", c.Key)
	return err
}

// renewSetXX renews with SET key value XX PX: no owner check, so a late
// renewal takes the key from its new holder.
type renewSetXX struct{}

func (renewSetXX) Name() string { return "renew-set-xx" }
func (renewSetXX) Traits() model.Traits {
	return model.Traits{Renews: true}
}
func (renewSetXX) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	return setNXPX(c, v)
}
func (renewSetXX) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", releaseLua, "1", c.Key, l.Value)
	return err
}
func (renewSetXX) Renew(c *model.Client, l *model.Lease) (bool, error) {
	r, err := c.Call(c.Masters()[0], "SET", c.Key, l.Value, "XX", "PX", c.TTLms())
	if err != nil {
		return false, err
	}
	return r.Kind == resp.Status && r.Str == "OK", nil
}

// renewFromPrevious renews by compare-and-PEXPIRE with the key's
// remaining TTL plus the renewal interval, i.e. PEXPIREAT at its previous
// expiry + interval, where the correct renewal (model.Watchdog) sets the
// full TTL from now.
type renewFromPrevious struct{}

const renewFromPreviousLua = "if redis.call('GET',KEYS[1])==ARGV[1] then " +
	"return redis.call('PEXPIRE',KEYS[1],redis.call('PTTL',KEYS[1])+tonumber(ARGV[2])) else return 0 end"

func (renewFromPrevious) Name() string { return "renew-from-previous" }
func (renewFromPrevious) Traits() model.Traits {
	return model.Traits{Renews: true}
}
func (renewFromPrevious) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	return setNXPX(c, v)
}
func (renewFromPrevious) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", releaseLua, "1", c.Key, l.Value)
	return err
}
func (renewFromPrevious) Renew(c *model.Client, l *model.Lease) (bool, error) {
	every := strconv.FormatInt(int64(c.Options().RenewEvery/time.Millisecond), 10)
	r, err := c.Call(c.Masters()[0], "EVAL", renewFromPreviousLua, "1", c.Key, l.Value, every)
	if err != nil {
		return false, err
	}
	return r.Kind == resp.Int && r.Int == 1, nil
}

// sleepsThroughDeadline is set-px-lua whose wait between tries
// (model.Waiter) sleeps a full TTL, ignoring the backoff and so the time
// left before its acquire deadline.
type sleepsThroughDeadline struct{}

func (sleepsThroughDeadline) Name() string { return "sleeps-through-deadline" }
func (sleepsThroughDeadline) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	return setNXPX(c, v)
}
func (sleepsThroughDeadline) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", releaseLua, "1", c.Key, l.Value)
	return err
}
func (sleepsThroughDeadline) WaitRelease(c *model.Client, _ time.Duration) { c.Sleep(c.Options().TTL) }

// pinnedPrimary is set-px-lua given the primary's address (r1) instead of
// asking Sentinel: after a failover it keeps calling the old primary, down
// or cut off, and never acquires again, though it claims to tolerate a
// failover as its twin does.
type pinnedPrimary struct{}

// pinnedNode is the address pinnedPrimary was configured with: the first
// group's first node, its primary at the start.
const pinnedNode = "r1"

func (pinnedPrimary) Name() string { return "pinned-primary" }
func (pinnedPrimary) Traits() model.Traits {
	return model.Traits{ToleratesFailover: true}
}
func (pinnedPrimary) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	r, err := c.Call(pinnedNode, "SET", c.Key, v, "NX", "PX", c.TTLms())
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: v, Nodes: []string{pinnedNode}}, r.Kind == resp.Status && r.Str == "OK", nil
}
func (pinnedPrimary) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(pinnedNode, "EVAL", releaseLua, "1", c.Key, l.Value)
	return err
}

// redlockTrusting takes a majority on five masters but never checks how
// long that took: it trusts the lease until it releases.
type redlockTrusting struct{}

func (redlockTrusting) Name() string { return "redlock-trusting" }
func (redlockTrusting) Traits() model.Traits {
	return model.Traits{Masters: 5, MinMasters: 3, Quorum: true}
}
func (redlockTrusting) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	o := c.Options()
	var granted []string
	for _, g := range c.Masters() {
		node := c.Primary(g)
		r, err := c.CallTimeout(g, o.NodeTimeout, "SET", c.Key, v, "NX", "PX", c.TTLms())
		if err == nil && r.Kind == resp.Status && r.Str == "OK" {
			granted = append(granted, node)
		}
	}
	if len(granted) >= o.Quorum {
		return model.Lease{Key: c.Key, Value: v, Nodes: granted}, true, nil
	}
	redlockTrusting{}.Release(c, &model.Lease{Key: c.Key, Value: v})
	return model.Lease{}, false, nil
}
func (redlockTrusting) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	for _, g := range c.Masters() {
		c.CallTimeout(g, c.Options().NodeTimeout, "EVAL", releaseLua, "1", c.Key, l.Value)
	}
	return nil
}

// splitToken draws its token in two commands, GET then SET n+1, instead
// of one INCR: two acquisitions that overlap read the same counter and get
// the same token.
type splitToken struct{}

func (splitToken) Name() string { return "split-token" }
func (splitToken) Traits() model.Traits {
	return model.Traits{Fenced: true}
}
func (splitToken) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	l, ok, err := setNXPX(c, v)
	if !ok || err != nil {
		return l, ok, err
	}
	g := c.Masters()[0]
	r, err := c.Call(g, "GET", c.TokenKey)
	if err != nil {
		return l, false, err
	}
	n, _ := strconv.ParseInt(r.Str, 10, 64) // nil: 0
	if _, err := c.Call(g, "SET", c.TokenKey, strconv.FormatInt(n+1, 10)); err != nil {
		return l, false, err
	}
	l.Token = n + 1
	return l, true, nil
}
func (splitToken) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", releaseLua, "1", c.Key, l.Value)
	return err
}

// waitIgnored sends WAIT 1 but takes the lock whatever it answers.
type waitIgnored struct{}

func (waitIgnored) Name() string { return "wait-ignored" }
func (waitIgnored) Traits() model.Traits {
	return model.Traits{Replicas: 1}
}
func (waitIgnored) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	l, ok, err := setNXPX(c, v)
	if ok {
		c.CallTimeout(c.Masters()[0], 200*time.Millisecond, "WAIT", "1", "100")
	}
	return l, ok, err
}
func (waitIgnored) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", releaseLua, "1", c.Key, l.Value)
	return err
}

// reentrantNoCount is Redisson's reentrant lock whose release deletes the
// hash at the first release, whatever the hold count.
type reentrantNoCount struct{}

const (
	reentrantAcquire = "if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);"
	reentrantDelete  = "if (redis.call('hexists', KEYS[1], ARGV[1]) == 0) then return nil; end; redis.call('del', KEYS[1]); return 1;"
)

func (reentrantNoCount) Name() string { return "reentrant-no-count" }
func (reentrantNoCount) Reentrant()   {}
func (reentrantNoCount) Traits() model.Traits {
	return model.Traits{Reentrant: true}
}
func (reentrantNoCount) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	g := c.Masters()[0]
	node := c.Primary(g)
	r, err := c.Call(g, "EVAL", reentrantAcquire, "1", c.Key, c.TTLms(), v)
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: v, Nodes: []string{node}, Count: 1}, r.IsNil(), nil
}
func (reentrantNoCount) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l)
	_, err := c.Call(c.Masters()[0], "EVAL", reentrantDelete, "1", c.Key, l.Value)
	return err
}

// readerIgnoresWriter is Redisson's read-write lock whose read lock does
// not check for a writer: a reader joins whatever mode the lock is in.
type readerIgnoresWriter struct{}

const readIgnoringWriter = "local mode = redis.call('hget', KEYS[1], 'mode'); " +
	"if not mode then redis.call('hset', KEYS[1], 'mode', 'read') end; " +
	"local n = redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
	"redis.call('set', KEYS[2] .. ':' .. n, 1, 'px', ARGV[1]); " +
	"redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1]))); return nil;"

func rwLock() model.Design {
	d, err := model.LookupDesign(model.ReadWriteLock)
	if err != nil {
		panic(err)
	}
	return d
}

func (readerIgnoresWriter) Name() string         { return "reader-ignores-writer" }
func (readerIgnoresWriter) Traits() model.Traits { return model.TraitsOf(rwLock()) }
func (readerIgnoresWriter) Reentrant()           {}
func (readerIgnoresWriter) TryAcquire(c *model.Client, v string) (model.Lease, bool, error) {
	if !c.Reader() {
		return rwLock().TryAcquire(c, v)
	}
	g := c.Masters()[0]
	node := c.Primary(g)
	r, err := c.Call(g, "EVAL", readIgnoringWriter, "2", c.Key, "{"+c.Key+"}:"+v+":rwlock_timeout", c.TTLms(), v)
	if err != nil {
		return model.Lease{}, false, err
	}
	return model.Lease{Key: c.Key, Value: v, Nodes: []string{node}, Count: 1, Shared: true}, r.IsNil(), nil
}
func (readerIgnoresWriter) Release(c *model.Client, l *model.Lease) error {
	return rwLock().Release(c, l)
}
func (readerIgnoresWriter) Renew(c *model.Client, l *model.Lease) (bool, error) {
	return rwLock().(model.Renewer).Renew(c, l)
}
func (readerIgnoresWriter) WaitRelease(c *model.Client, max time.Duration) {
	rwLock().(model.Waiter).WaitRelease(c, max)
}

// evictTopology is one node of 2,000 bytes (sim/evict.go's formula) under
// the policy, another application writing a 100-byte key every 20ms.
func evictTopology(p sim.EvictionPolicy) model.Topology {
	return model.Topology{MaxMemory: 2000, Policy: p, Fill: sim.FillConfig{Every: 20 * time.Millisecond, Size: 100}}
}
