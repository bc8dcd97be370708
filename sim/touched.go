package sim

import (
	"slices"

	"github.com/alicebob/miniredis/v2"
)

// Change tracking on the keys a command touched. After every write a
// node records each key whose value changed (KindKey), each key that
// expired or vanished, and schedules an expiry check for each key whose
// expiry moved (refreshWatch). Reading the whole keyspace for that after
// every write cost a tenth of the simulation; refreshTouched reads only
// the keys the commands since the last refresh named (preHook sees every
// command: a client's, a Lua script's, a MULTI's) and the keys whose
// expiry has come, and records exactly what the whole reading would:
//
//   - a key no command named and whose expiry has not come has the same
//     value and the same expiry on the node's clock (miniredis's TTLs
//     count down with the node's clock, which refreshWatch's expiry is
//     read on: now + TTL does not move), so the whole reading records
//     nothing for it and schedules nothing;
//   - the keys that changed are read in the same sorted order, and the
//     vanished ones after them, also sorted, as refreshWatch does.
//
// Only commands whose keys are among their arguments at known places are
// followed (keyPlaces); any other command (EXEC, FLUSHALL, RENAME's kin,
// a command this table does not know) makes the next refresh read the
// whole keyspace, and a command that sets hash-field TTLs (a field that
// expires changes its hash's value with no command naming it) makes
// every refresh of that instance do so. The whole reading is also used
// when recording an event can do more than log it (triggered faults, an
// Observe callback), so that what such a side effect sees is the same.
// Code that changes a node's keyspace through miniredis's direct API must
// refresh the watch itself (refreshWatch or afterWrite), as the fault
// kinds do.

// touchedKeys is what commands changed since the last refresh.
type touchedKeys struct {
	keys []string // the keys they named (a few; duplicates allowed)
	all  bool     // one named none or unknown keys: read the whole keyspace
	// fieldTTLs is set for the rest of the instance's life once a
	// command may have given a hash field a TTL.
	fieldTTLs bool
}

// maxTouched bounds touchedKeys.keys: past it the next refresh reads the
// whole keyspace, which is then no dearer.
const maxTouched = 64

// Where a command's keys are, for the commands touchedKeys follows: the
// first key's index among the arguments after the name, and then every
// step-th argument up to the last (-1: the first only; 0: none).
type keyPlace struct{ first, step int }

var (
	noKeys    = keyPlace{first: -1}
	firstKey  = keyPlace{first: 0, step: 0}
	everyArg  = keyPlace{first: 0, step: 1}
	everyPair = keyPlace{first: 0, step: 2}
)

// keyPlaces are the commands refreshTouched can follow by their
// arguments. EVAL and EVALSHA name no key themselves: the commands their
// scripts run come through preHook one by one.
var keyPlaces = map[string]keyPlace{
	"PING": noKeys, "ECHO": noKeys, "MULTI": noKeys, "DISCARD": noKeys, "UNWATCH": noKeys,
	"PUBLISH": noKeys, "TIME": noKeys, "DBSIZE": noKeys, "EVAL": noKeys, "EVALSHA": noKeys,
	"EVAL_RO": noKeys, "EVALSHA_RO": noKeys, "SCRIPT": noKeys, "CLIENT": noKeys, "HELLO": noKeys,
	"INFO": noKeys, "SUBSCRIBE": noKeys, "SELECT": noKeys,

	"SET": firstKey, "GET": firstKey, "GETSET": firstKey, "GETDEL": firstKey, "GETEX": firstKey,
	"SETNX": firstKey, "SETEX": firstKey, "PSETEX": firstKey, "APPEND": firstKey, "STRLEN": firstKey,
	"INCR": firstKey, "INCRBY": firstKey, "DECR": firstKey, "DECRBY": firstKey, "INCRBYFLOAT": firstKey,
	"GETRANGE": firstKey, "SETRANGE": firstKey,
	"EXPIRE": firstKey, "PEXPIRE": firstKey, "EXPIREAT": firstKey, "PEXPIREAT": firstKey, "PERSIST": firstKey,
	"TTL": firstKey, "PTTL": firstKey, "EXPIRETIME": firstKey, "PEXPIRETIME": firstKey, "TYPE": firstKey,
	"HSET": firstKey, "HSETNX": firstKey, "HMSET": firstKey, "HDEL": firstKey, "HGET": firstKey,
	"HMGET": firstKey, "HGETALL": firstKey, "HEXISTS": firstKey, "HLEN": firstKey, "HKEYS": firstKey,
	"HVALS": firstKey, "HINCRBY": firstKey, "HINCRBYFLOAT": firstKey, "HSTRLEN": firstKey,
	"LPUSH": firstKey, "RPUSH": firstKey, "LPOP": firstKey, "RPOP": firstKey, "LLEN": firstKey,
	"LRANGE": firstKey, "LINDEX": firstKey, "LREM": firstKey,
	"SADD": firstKey, "SREM": firstKey, "SISMEMBER": firstKey, "SMEMBERS": firstKey, "SCARD": firstKey,
	"ZADD": firstKey, "ZREM": firstKey, "ZSCORE": firstKey, "ZRANGE": firstKey, "ZCARD": firstKey,
	"ZRANGEBYSCORE": firstKey, "ZREMRANGEBYSCORE": firstKey, "ZINCRBY": firstKey, "ZRANK": firstKey,

	"DEL": everyArg, "UNLINK": everyArg, "EXISTS": everyArg, "MGET": everyArg, "TOUCH": everyArg,
	"WATCH": everyArg,

	"MSET": everyPair, "MSETNX": everyPair,
}

// note records what cmd (upper case, as preHook sees it; ci its
// answers) with args may change.
func (t *touchedKeys) note(ci *cmdInfo, cmd string, args []string) {
	if t.all {
		return
	}
	p, ok := ci.place, ci.placed
	if !ok {
		t.all = true
		if len(cmd) > 0 && cmd[0] == 'H' {
			t.fieldTTLs = true // HEXPIRE and its kin, or a hash command this table lacks
		}
		return
	}
	switch {
	case p.first < 0 || p.first >= len(args):
	case p.step == 0:
		t.keys = append(t.keys, args[p.first])
	default:
		for i := p.first; i < len(args); i += p.step {
			t.keys = append(t.keys, args[i])
		}
	}
	if len(t.keys) > maxTouched {
		t.all = true
	}
}

// reset starts a new count after a refresh.
func (t *touchedKeys) reset() {
	t.keys = t.keys[:0]
	t.all = t.fieldTTLs
}

// refreshTouched is refreshWatch after a client's command: it reads only
// the keys the commands since the last refresh named and those whose
// expiry has come, and records the same events in the same order (see
// above); when it cannot follow them it is refreshWatch.
func (n *node) refreshTouched() {
	if n.touched.all || fullRescan || len(n.w.triggers) > 0 || n.w.cfg.Observe != nil {
		n.refreshWatch()
		return
	}
	now := n.local()
	keys := n.touched.keys
	for k, at := range n.watch {
		if at <= now {
			keys = append(keys, k) // sorted below: map order does not matter
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	gone := 0 // the vanished keys, moved to the front of keys
	// One tick of the instance's clock (Miniredis.DB), then each key read
	// on the database directly: a string key's existence, type and value
	// in one locked read (RedisDB.Get) instead of three of Miniredis's,
	// each of which locked the instance twice and ticked it. Nothing
	// changes the keyspace or the clock until the loop ends (a triggered
	// fault would, and triggers take refreshWatch above).
	db := n.m.DB(0) // the simulator never selects another for its reads
	for _, k := range keys {
		v, err := db.Get(k)
		if err == miniredis.ErrKeyNotFound {
			if _, ok := n.vals[k]; ok {
				keys[gone] = k // gone <= this index: nothing unread is overwritten
				gone++
			}
			continue
		}
		if err != nil { // not a string: valueOf renders it
			v = valueOf(n.m, k)
		}
		ttl := db.TTL(k)
		if old, ok := n.vals[k]; !ok || old != v {
			n.vals[k] = v
			n.w.record(&Event{Actor: n.name, Kind: KindKey, Local: now, Key: k, Value: v, Dur: ttl, Note: n.why})
			n.keyEvent(k, false)
		}
		if ttl <= 0 {
			delete(n.watch, k)
			continue
		}
		if at := now + ttl; n.watch[k] != at {
			n.watch[k] = at
			n.scheduleCheck(k, at)
		}
	}
	for _, k := range keys[:gone] {
		if at, ok := n.watch[k]; ok && at <= now {
			n.w.record(&Event{Actor: n.name, Kind: KindExpire, Local: now, Key: k, Value: n.vals[k]})
			n.keyEvent(k, true)
		} else {
			n.w.record(&Event{Actor: n.name, Kind: KindKey, Local: now, Key: k, Note: n.why})
			n.keyEvent(k, false)
		}
		delete(n.vals, k)
		delete(n.watch, k)
	}
	n.touched.keys = keys[:0]
}

// fullRescan makes every refresh read the whole keyspace: for the test
// that compares the two.
var fullRescan = false
