package model

import (
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
	"locksim/sim/resp"
)

// The catalogue design IDs.
const (
	SetnxExpire   = "setnx-expire"
	SetPxGetdel   = "set-px-getdel"
	SetPxLua      = "set-px-lua"
	Watchdog      = "watchdog"
	ReentrantHash = "reentrant-hash"
	Fenced        = "fenced"
	Redlock       = "redlock"
	WaitReplica   = "wait-replica"
	// Redisson's fair, read-write and explicit-lease locks, and locks of
	// several locks (designs_redisson.go, designs_multi.go).
	FairLock       = "fair-lock"
	ReadWriteLock  = "read-write-lock"
	ExplicitLease  = "explicit-lease"
	MultiLock      = "multi-lock"
	RedlockOneNode = "redlock-one-node"
	// SetIfeq locks without Lua on a newer server (Redis 8.4, Valkey 9).
	SetIfeq = "set-ifeq"
)

var catalogue = []struct {
	id, about string
	make      func() Design
}{
	{SetnxExpire, "SETNX then a separate PEXPIRE; DEL to release (the broken baseline)", func() Design { return setnxExpire{} }},
	{SetPxGetdel, "SET NX PX; release by GET, compare on the client, then DEL", func() Design { return setPxGetdel{} }},
	{SetPxLua, "SET NX PX; release by a Lua compare-and-delete", func() Design { return setPxLua{} }},
	{Watchdog, "set-px-lua plus a watchdog renewing every ttl/3 by compare-and-PEXPIRE", func() Design { return watchdog{} }},
	{ReentrantHash, "Redisson RLock: hash owner -> count, Lua acquire/release, watchdog, pub/sub wake-ups", func() Design { return reentrantHash{} }},
	{Fenced, "SET NX PX and INCR of a token counter in one script, a watchdog; the token guards every write", func() Design { return fenced{} }},
	{Redlock, "SET NX PX on N independent masters; majority and validity on the client's clock (Extend on request)", func() Design { return redlock{} }},
	{WaitReplica, "set-px-lua on a replicated primary, then WAIT 1; held only if a replica acked", func() Design { return waitReplica{} }},
	{FairLock, "Redisson getFairLock: RLock plus a queue of waiters with deadlines; granted in arrival order", func() Design { return fairLock{} }},
	{ReadWriteLock, "Redisson getReadLock/getWriteLock: many readers or one writer; the last clients read", func() Design { return readWriteLock{} }},
	{ExplicitLease, "Redisson tryLock(wait, lease): RLock with the lease given, no watchdog", func() Design { return explicitLease{} }},
	{MultiLock, "Redisson MultiLock: an RLock on each of N independent masters, all needed", func() Design { return multiLock{} }},
	{RedlockOneNode, "a common mistake: a Redlock (2 of 3) over three keys of one Redis instance, one failure domain", func() Design { return multiLock{oneNode: true} }},
	{SetIfeq, "no Lua: SET NX PX, a watchdog renewing by SET IFEQ, release by DELEX IFEQ (Redis 8.4; DELIFEQ on Valkey 9)", func() Design { return setIfeq{} }},
}

// DesignIDs returns the catalogue design IDs in catalogue order.
func DesignIDs() []string {
	ids := make([]string, 0, len(catalogue)+len(registered))
	for _, d := range catalogue {
		ids = append(ids, d.id)
	}
	for _, d := range registered {
		ids = append(ids, d.id)
	}
	return ids
}

// DesignAbout returns a one-line description of a catalogue design.
func DesignAbout(id string) string {
	for _, d := range catalogue {
		if d.id == id {
			return d.about
		}
	}
	for _, d := range registered {
		if d.id == id {
			return d.about
		}
	}
	return ""
}

// LookupDesign returns the catalogue design with the given ID.
func LookupDesign(id string) (Design, error) {
	for _, d := range catalogue {
		if d.id == id {
			return d.make(), nil
		}
	}
	for _, d := range registered {
		if d.id == id {
			return d.make(), nil
		}
	}
	if id == LuaDesignID {
		return nil, errors.Errorf("design %s is your own Lua scripts: give them with --acquire FILE --release FILE [--renew FILE] (from Go: a *model.LuaScripts)", bounded.Q(id))
	}
	return nil, errors.Errorf("unknown design %s (known: %s)", bounded.Q(id), strings.Join(DesignIDs(), ", "))
}

// single is the first (only) master of single-primary designs.
func single(c *Client) string { return c.Masters()[0] }

// setPX runs SET key value NX PX ttl on one group.
func setPX(c *Client, group, value string) (bool, error) {
	r, err := c.Call(group, "SET", c.Key, value, "NX", "PX", c.TTLms())
	if err != nil {
		return false, err
	}
	return r.Kind == resp.Status && r.Str == "OK", nil
}

func replyErr(r resp.Reply) error {
	if r.IsError() {
		return errors.New(r.Str)
	}
	return nil
}

// --- setnx-expire -----------------------------------------------------------

type setnxExpire struct{}

func (setnxExpire) Name() string { return SetnxExpire }

func (setnxExpire) Traits() Traits { return Traits{} }

func (setnxExpire) TryAcquire(c *Client, value string) (Lease, bool, error) {
	g := single(c)
	node := c.Primary(g)
	r, err := c.Call(g, "SETNX", c.Key, value)
	if err != nil {
		return Lease{}, false, err
	}
	if r.Int != 1 {
		return Lease{}, false, replyErr(r)
	}
	// A crash here leaves a key with no TTL: nobody ever acquires again.
	// The PEXPIRE's own outcome is not checked, as the baseline does not.
	c.Call(g, "PEXPIRE", c.Key, c.TTLms())
	return Lease{Key: c.Key, Value: value, Nodes: []string{node}}, true, nil
}

func (setnxExpire) Release(c *Client, l *Lease) error {
	c.Releasing(l)
	_, err := c.Call(single(c), "DEL", c.Key)
	return err
}

// --- set-px-getdel ----------------------------------------------------------

type setPxGetdel struct{}

func (setPxGetdel) Name() string { return SetPxGetdel }

func (setPxGetdel) Traits() Traits { return Traits{ToleratesFailover: true} }

func (setPxGetdel) TryAcquire(c *Client, value string) (Lease, bool, error) {
	g := single(c)
	node := c.Primary(g)
	ok, err := setPX(c, g, value)
	return Lease{Key: c.Key, Value: value, Nodes: []string{node}}, ok, err
}

// Release compares on the client, then deletes: a pause between the two
// deletes whoever holds the key by then.
func (setPxGetdel) Release(c *Client, l *Lease) error {
	r, err := c.Call(single(c), "GET", c.Key)
	if err != nil {
		return err
	}
	if r.Kind != resp.Bulk || r.Str != l.Value {
		return nil
	}
	c.Releasing(l)
	_, err = c.Call(single(c), "DEL", c.Key)
	return err
}

// --- set-px-lua -------------------------------------------------------------

type setPxLua struct{}

func (setPxLua) Name() string { return SetPxLua }

func (setPxLua) Traits() Traits { return Traits{ToleratesFailover: true} }

func (setPxLua) TryAcquire(c *Client, value string) (Lease, bool, error) {
	g := single(c)
	node := c.Primary(g)
	ok, err := setPX(c, g, value)
	return Lease{Key: c.Key, Value: value, Nodes: []string{node}}, ok, err
}

func (setPxLua) Release(c *Client, l *Lease) error {
	c.Releasing(l)
	return releaseLua(c, single(c), l.Value)
}

func releaseLua(c *Client, group, value string) error {
	r, err := c.Call(group, "EVAL", scriptRelease, "1", c.Key, value)
	if err != nil {
		return err
	}
	return replyErr(r)
}

func renewLua(c *Client, group, value string) (bool, error) {
	r, err := c.Call(group, "EVAL", scriptRenew, "1", c.Key, value, c.TTLms())
	if err != nil {
		return false, err
	}
	return r.Kind == resp.Int && r.Int == 1, replyErr(r)
}

// --- watchdog ---------------------------------------------------------------

type watchdog struct{ setPxLua }

func (watchdog) Name() string { return Watchdog }

func (watchdog) Traits() Traits { return Traits{Renews: true, ToleratesFailover: true} }

func (watchdog) Renew(c *Client, l *Lease) (bool, error) { return renewLua(c, single(c), l.Value) }

// --- fenced -----------------------------------------------------------------

type fenced struct{ setPxLua }

func (fenced) Name() string { return Fenced }

func (fenced) Traits() Traits { return Traits{Renews: true, Fenced: true, ToleratesFailover: true} }

func (fenced) TryAcquire(c *Client, value string) (Lease, bool, error) {
	g := single(c)
	node := c.Primary(g)
	r, err := c.Call(g, "EVAL", scriptFencedAcquire, "2", c.Key, c.TokenKey, value, c.TTLms())
	if err != nil {
		return Lease{}, false, err
	}
	if err := replyErr(r); err != nil {
		return Lease{}, false, err
	}
	if r.Kind != resp.Int || r.Int == 0 {
		return Lease{}, false, nil
	}
	return Lease{Key: c.Key, Value: value, Token: r.Int, Nodes: []string{node}}, true, nil
}

func (fenced) Renew(c *Client, l *Lease) (bool, error) { return renewLua(c, single(c), l.Value) }

// --- reentrant-hash ---------------------------------------------------------

type reentrantHash struct{}

func (reentrantHash) Name() string { return ReentrantHash }

func (reentrantHash) Traits() Traits {
	return Traits{Renews: true, Reentrant: true, ToleratesFailover: true}
}

// Reentrant marks the design as reentrant.
func (reentrantHash) Reentrant() {}

func channel(c *Client) string { return "redisson_lock__channel:{" + c.Key + "}" }

// TryAcquire takes the lock or one more hold of it: the value is the
// owner field (clientID:threadID in Redisson).
func (reentrantHash) TryAcquire(c *Client, value string) (Lease, bool, error) {
	g := single(c)
	node := c.Primary(g)
	r, err := c.Call(g, "EVAL", scriptReentrantAcquire, "1", c.Key, c.TTLms(), value)
	if err != nil {
		return Lease{}, false, err
	}
	if err := replyErr(r); err != nil {
		return Lease{}, false, err
	}
	if !r.IsNil() {
		return Lease{}, false, nil // the reply is the holder's PTTL
	}
	return Lease{Key: c.Key, Value: value, Nodes: []string{node}, Count: 1}, true, nil
}

// Release drops one hold; the last one deletes the key and publishes.
func (reentrantHash) Release(c *Client, l *Lease) error {
	c.Releasing(l)
	r, err := c.Call(single(c), "EVAL", scriptReentrantRelease, "2", c.Key, channel(c), "0", c.TTLms(), l.Value)
	if err != nil {
		return err
	}
	return replyErr(r)
}

func (reentrantHash) Renew(c *Client, l *Lease) (bool, error) {
	r, err := c.Call(single(c), "EVAL", scriptReentrantRenew, "1", c.Key, c.TTLms(), l.Value)
	if err != nil {
		return false, err
	}
	return r.Kind == resp.Int && r.Int == 1, replyErr(r)
}

// WaitRelease subscribes to the lock's channel once and waits for a
// release message instead of polling.
func (reentrantHash) WaitRelease(c *Client, max time.Duration) {
	waitOn(c, channel(c), max)
}

// waitOn subscribes to a release channel once (a new channel replaces the
// one the client listened to before) and waits at most max for a message.
func waitOn(c *Client, ch string, max time.Duration) {
	if c.subscribed != ch {
		if err := c.ctx.Subscribe(single(c), c.opts.CallTimeout, ch); err == nil {
			c.subscribed = ch
		}
	}
	c.ctx.WaitMessage(ch, max)
}

// --- redlock ----------------------------------------------------------------

type redlock struct{}

func (redlock) Name() string { return Redlock }

func (redlock) Traits() Traits {
	return Traits{Masters: 5, MinMasters: 3, Quorum: true, ToleratesMinority: true, Validity: true}
}

// TryAcquire follows the Redis distlock page and redlock-rb: read the
// monotonic clock, SET NX PX on every master with a short per-node
// timeout, and hold the lock only with a majority and a positive validity
// ttl - elapsed - (ttl*drift + 2ms); otherwise release on all.
func (redlock) TryAcquire(c *Client, value string) (Lease, bool, error) {
	o := c.opts
	start := c.Now()
	var granted []string
	for _, g := range c.Masters() {
		node := c.Primary(g)
		r, err := c.CallTimeout(g, o.NodeTimeout, "SET", c.Key, value, "NX", "PX", c.TTLms())
		if err == nil && r.Kind == resp.Status && r.Str == "OK" {
			granted = append(granted, node)
		}
	}
	if len(granted) >= o.Quorum && redlockValid(o, c.Now()-start) {
		return Lease{Key: c.Key, Value: value, Nodes: granted, Start: start, Validity: o.TTL - redlockDrift(o)}, true, nil
	}
	for _, g := range c.Masters() {
		c.CallTimeout(g, o.NodeTimeout, "EVAL", scriptRelease, "1", c.Key, value)
	}
	return Lease{}, false, nil
}

// redlockDrift is redlock-rb's clock drift allowance: ttl*factor + 2ms.
func redlockDrift(o Options) time.Duration {
	return time.Duration(float64(o.TTL)*o.DriftFactor) + 2*time.Millisecond
}

// redlockValid reports whether a majority gathered in `elapsed` still has
// validity left: the distlock page's ttl - elapsed - drift > 0. Measured
// from the reading before the first request, the lease is ttl - drift.
func redlockValid(o Options, elapsed time.Duration) bool {
	return o.TTL-elapsed-redlockDrift(o) > 0
}

// Extend extends the lease on a majority by compare-and-PEXPIRE, within
// validity (redsync's Extend). Like redsync and redlock-rb, redlock does
// not renew by itself; Options.Extend calls Extend from a watchdog.
func (redlock) Extend(c *Client, l *Lease) (bool, error) {
	o := c.opts
	start := c.Now()
	n := 0
	for _, g := range c.Masters() {
		r, err := c.CallTimeout(g, o.NodeTimeout, "EVAL", scriptRenew, "1", c.Key, l.Value, c.TTLms())
		if err == nil && r.Kind == resp.Int && r.Int == 1 {
			n++
		}
	}
	return n >= o.Quorum && redlockValid(o, c.Now()-start), nil
}

func (redlock) Release(c *Client, l *Lease) error {
	c.Releasing(l)
	for _, g := range c.Masters() {
		c.CallTimeout(g, c.opts.NodeTimeout, "EVAL", scriptRelease, "1", c.Key, l.Value)
	}
	return nil
}

// --- wait-replica -----------------------------------------------------------

type waitReplica struct{ setPxLua }

func (waitReplica) Name() string { return WaitReplica }

func (waitReplica) Traits() Traits { return Traits{Replicas: 1, Renews: true} } // its Renew runs a watchdog

// TryAcquire holds the lock only if WAIT says enough replicas have it.
func (d waitReplica) TryAcquire(c *Client, value string) (Lease, bool, error) {
	l, ok, err := d.setPxLua.TryAcquire(c, value)
	if !ok || err != nil {
		return l, ok, err
	}
	if ok, _ := waitAcked(c); !ok {
		releaseLua(c, single(c), value)
		return Lease{}, false, nil
	}
	return l, true, nil
}

func (waitReplica) Renew(c *Client, l *Lease) (bool, error) {
	ok, err := renewLua(c, single(c), l.Value)
	if !ok || err != nil {
		return ok, err
	}
	if ok, got := waitAcked(c); !ok {
		return false, waitShortError{asked: c.opts.WaitReplicas, got: got}
	}
	return true, nil
}

// waitShortError is a renewal whose script extended the key but whose
// WAIT came back short: the design counts it as failed, and the renew
// event's note says so (not that the key was lost).
type waitShortError struct {
	asked int
	got   string // WAIT's reply, or the error it met
}

func (w waitShortError) Error() string {
	return "extended by the script, but WAIT " + strconv.Itoa(w.asked) + " returned " + w.got +
		": fewer replicas acknowledged it than asked for, so the design counts the renewal as failed"
}

// waitAcked sends WAIT WaitReplicas and reports whether its count reaches
// WaitAccept (default all it asked for); with IgnoreWait any count does.
// It also returns WAIT's reply as a sentence word (the count, or the error).
func waitAcked(c *Client) (bool, string) {
	o := c.opts
	r, err := c.CallTimeout(single(c), o.WaitTimeout+o.CallTimeout, "WAIT",
		strconv.Itoa(o.WaitReplicas), strconv.FormatInt(int64(o.WaitTimeout/time.Millisecond), 10))
	need := o.WaitAccept
	switch {
	case o.IgnoreWait:
		need = 0
	case need == 0:
		need = o.WaitReplicas
	}
	if err != nil {
		return false, err.Error()
	}
	got := r.String()
	if r.Kind == resp.Int {
		got = strconv.FormatInt(r.Int, 10)
	}
	return r.Kind == resp.Int && r.Int >= int64(need), got
}

// --- set-ifeq ---------------------------------------------------------------

// setIfeq is a lock without Lua on the compare-and-set and
// compare-and-delete commands of newer servers: acquire with SET NX PX,
// renew with SET value IFEQ value PX ttl (which sets only while the key
// still holds the client's value, and never recreates a lapsed key), and
// release with DELEX key IFEQ value (Redis 8.4) or DELIFEQ key value
// (Valkey 9.0). It is the watchdog design (set-px-lua with a watchdog)
// with each script replaced by one command, so it should hold where that
// holds and break where that breaks.
type setIfeq struct{}

func (setIfeq) Name() string { return SetIfeq }

func (setIfeq) Traits() Traits {
	return Traits{Renews: true, ToleratesFailover: true, Needs: []string{"SET IFEQ", "DELEX|DELIFEQ"}}
}

func (setIfeq) TryAcquire(c *Client, value string) (Lease, bool, error) {
	g := single(c)
	node := c.Primary(g)
	ok, err := setPX(c, g, value)
	return Lease{Key: c.Key, Value: value, Nodes: []string{node}}, ok, err
}

func (setIfeq) Renew(c *Client, l *Lease) (bool, error) {
	r, err := c.Call(single(c), "SET", c.Key, l.Value, "IFEQ", l.Value, "PX", c.TTLms())
	if err != nil {
		return false, err
	}
	return r.Kind == resp.Status && r.Str == "OK", replyErr(r)
}

func (setIfeq) Release(c *Client, l *Lease) error {
	c.Releasing(l)
	args := []string{"DELEX", c.Key, "IFEQ", l.Value}
	if !c.Ctx().Server().Has("DELEX") {
		args = []string{"DELIFEQ", c.Key, l.Value}
	}
	r, err := c.Call(single(c), args...)
	if err != nil {
		return err
	}
	return replyErr(r)
}
