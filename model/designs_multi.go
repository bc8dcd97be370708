package model

import (
	"strconv"

	"locksim/sim/resp"
)

// Locks made of several locks: Redisson's MultiLock, which
// needs every one of N locks, each an RLock on its own independent master;
// and a common mistake, a "Redlock" (RedissonRedLock: a
// majority of the locks) over three keys of one Redis instance, which is
// one failure domain: the instance that loses one key loses all three.

// multiLock takes one RLock per grant (reentrant-hash's scripts) in order
// and holds the lock once `need` of them are taken; when more fail than
// that allows it gives back the ones it took and reports the lock held.
// A lock that timed out is given back too: it may have been taken (as
// RedissonMultiLock does on a response timeout). Each key has its own
// watchdog in Redisson; here one watchdog renews every key, and the lease
// lasts while enough keys are renewed that no other client could gather
// `need`.
type multiLock struct {
	// oneNode puts three keys (lock1, lock2, lock3) on the first master
	// and needs two of them; otherwise the key is on every master and the
	// lock needs Options.Quorum of them (default all: MultiLock).
	oneNode bool
}

// oneNodeKeys is how many keys the one-instance "Redlock" takes.
const oneNodeKeys = 3

func (d multiLock) Name() string {
	if d.oneNode {
		return RedlockOneNode
	}
	return MultiLock
}

func (d multiLock) Traits() Traits {
	if d.oneNode {
		return Traits{Renews: true, Keys: oneNodeKeys}
	}
	return Traits{Masters: 3, MinMasters: 2, Quorum: true, AllMasters: true, Renews: true}
}

// grant is one lock of the multi-lock: a key on a group.
type grant struct{ group, key string }

// grants lists the locks and how many of them the lock needs.
func (d multiLock) grants(c *Client) (gs []grant, need int) {
	if d.oneNode {
		for i := 1; i <= oneNodeKeys; i++ {
			gs = append(gs, grant{single(c), c.Key + strconv.Itoa(i)})
		}
		return gs, oneNodeKeys/2 + 1
	}
	for _, g := range c.Masters() {
		gs = append(gs, grant{g, c.Key})
	}
	return gs, c.opts.Quorum
}

func rlockChannel(key string) string { return "redisson_lock__channel:{" + key + "}" }

func (d multiLock) TryAcquire(c *Client, value string) (Lease, bool, error) {
	gs, need := d.grants(c)
	var nodes, keys []string
	var taken []grant
	failed := 0
	for _, g := range gs {
		node := c.Primary(g.group)
		r, err := c.Call(g.group, "EVAL", scriptReentrantAcquire, "1", g.key, c.TTLms(), value)
		if err == nil && !r.IsError() && r.IsNil() {
			nodes, keys, taken = append(nodes, node), append(keys, g.key), append(taken, g)
			continue
		}
		if err != nil {
			releaseRLock(c, g, value) // it may have been taken
		}
		if failed++; failed > len(gs)-need {
			for _, t := range taken {
				releaseRLock(c, t, value)
			}
			return Lease{}, false, nil
		}
	}
	l := Lease{Key: c.Key, Value: value, Nodes: nodes, Count: 1}
	if d.oneNode {
		l.Keys = keys
	}
	return l, true, nil
}

func releaseRLock(c *Client, g grant, value string) {
	c.Call(g.group, "EVAL", scriptReentrantRelease, "2", g.key, rlockChannel(g.key), "0", c.TTLms(), value)
}

// Release gives back every lock of the multi-lock, taken or not.
func (d multiLock) Release(c *Client, l *Lease) error {
	c.Releasing(l)
	gs, _ := d.grants(c)
	for _, g := range gs {
		releaseRLock(c, g, l.Value)
	}
	return nil
}

// Renew extends every lock the lease holds, and reports the lease kept
// while no other client could gather the locks it needs.
func (d multiLock) Renew(c *Client, l *Lease) (bool, error) {
	gs, need := d.grants(c)
	renewed := 0
	for _, g := range gs {
		r, err := c.Call(g.group, "EVAL", scriptReentrantRenew, "1", g.key, c.TTLms(), l.Value)
		if err == nil && r.Kind == resp.Int && r.Int == 1 {
			renewed++
		}
	}
	return renewed >= len(gs)-need+1, nil
}
