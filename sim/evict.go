package sim

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Eviction as Redis does it (the Redis documentation's "Key eviction"
// page, redis.io/docs/latest/develop/reference/eviction/, and Redis 7.0's
// evict.c, whose behaviour it describes):
//
//   - A node with MaxMemory > 0 counts the memory its keyspace uses
//     (database 0) by the formula of max-keyspace-bytes (limits.go): per
//     key keyOverheadBytes (64) + the key's length + its value's length
//     (a collection: each element's strings + 16; a sorted set's scores 8
//     each). This is an approximation: Redis counts its allocator's bytes
//     (with the buffers, the dictionaries' tables and the encodings), so
//     the same keys hold other numbers there; what it keeps is the order
//     of things (bigger values, more keys, more memory).
//   - Before every command a client sends (not inside a script or a
//     MULTI's queued commands, as Redis's processCommand), a node over
//     MaxMemory evicts keys by its policy until it is back at or below it
//     or no candidate is left. If it is still over, a command that may add
//     data (Redis's denyoom flag: SET, INCR, HSET, ...) is refused with
//     "OOM command not allowed when used memory > 'maxmemory'."; reads,
//     DEL and EXPIRE are served. A script is refused at such a command
//     only while it has written nothing (Redis 7's scriptVerifyOOM: it is
//     not stopped halfway). A MULTI's queued command that adds data is
//     refused when queued, as in Redis, but EXEC then runs the rest
//     (Redis answers EXECABORT): an approximation.
//   - Candidates: allkeys-* every key, volatile-* the keys with a TTL
//     (none left: nothing is evicted, as noeviction). The random policies
//     pick one candidate uniformly; the others sample maxmemory-samples
//     (5) distinct candidates into a pool of 16 kept across evictions, best first,
//     and evict the pool's best that still exists: the longest idle (LRU:
//     the node's wall clock at the key's last access), the least
//     frequently used (LFU: Redis's 8-bit logarithmic counter with decay,
//     below), the nearest expiry (volatile-ttl). Every draw comes from
//     the run's seeded generator ("evict/NODE"): the same seed evicts the
//     same keys.
//   - Replicas do not evict (replica-ignore-maxmemory); they apply the
//     DEL their primary propagates for each eviction.
//
// Not modelled: Redis's LRU clock resolution (1s; here the node's clock
// to the nanosecond), its lazy-free and eviction time limits (an eviction
// round here runs to its end), and the memory of anything but keys
// (client buffers, the replication backlog, Lua's heap).

// EvictionPolicy is Redis's maxmemory-policy.
type EvictionPolicy string

// The policies, as Redis names them.
const (
	NoEviction     EvictionPolicy = "noeviction"
	AllKeysLRU     EvictionPolicy = "allkeys-lru"
	AllKeysLFU     EvictionPolicy = "allkeys-lfu"
	AllKeysRandom  EvictionPolicy = "allkeys-random"
	VolatileLRU    EvictionPolicy = "volatile-lru"
	VolatileLFU    EvictionPolicy = "volatile-lfu"
	VolatileRandom EvictionPolicy = "volatile-random"
	VolatileTTL    EvictionPolicy = "volatile-ttl"
)

// EvictionPolicies lists the policies, in Redis's documentation order.
var EvictionPolicies = []EvictionPolicy{NoEviction, AllKeysLRU, AllKeysLFU, AllKeysRandom,
	VolatileLRU, VolatileLFU, VolatileRandom, VolatileTTL}

// EvictionPolicyNames renders EvictionPolicies for messages.
func EvictionPolicyNames() string {
	ws := make([]string, len(EvictionPolicies))
	for i, p := range EvictionPolicies {
		ws[i] = string(p)
	}
	return strings.Join(ws, ", ")
}

// FillKeyPrefix starts the names of the filler's keys (FillConfig).
const FillKeyPrefix = "fill:"

// MsgOOM is the error a command that adds data gets from a node over
// maxmemory that cannot evict (Redis 7's shared.oomerr).
const MsgOOM = "OOM command not allowed when used memory > 'maxmemory'."

const (
	maxmemorySamples = 5  // maxmemory-samples, Redis's default
	evictionPoolSize = 16 // EVPOOL_SIZE
	lfuInitVal       = 5  // LFU_INIT_VAL: a new key's counter
	lfuLogFactor     = 10 // lfu-log-factor, Redis's default
	lfuDecayTime     = time.Minute
)

// FillConfig is a workload that fills a node's memory: another
// application writing its own keys (fill:1, fill:2, ...) to the same
// node, one SET of Size bytes every Every, with a TTL when TTL > 0, from
// Start until the clients end. It runs on primaries and standalone nodes
// (a replica refuses writes) and goes through the same checks as a
// client's command: evictions before it, OOM under noeviction.
type FillConfig struct {
	Every time.Duration
	Size  int
	TTL   time.Duration `json:",omitempty"`
	Start time.Duration `json:",omitempty"`
}

// keyMeta is what the eviction policies know of a key: its last access
// on the node's wall clock (LRU) and its LFU counter and the minute of its
// last decrement (Redis keeps both in the object's 24 lru bits).
type keyMeta struct {
	access  time.Duration
	lfu     uint8
	decayed time.Duration
}

// evictState is a node's eviction bookkeeping.
type evictState struct {
	meta  map[string]*keyMeta
	pool  []poolEntry
	oom   bool // the last check before a command left the node over maxmemory
	wrote bool // the current command has run a command that adds data
	seq   int  // the filler's last key number
}

type poolEntry struct {
	key  string
	idle float64 // higher is evicted first
}

// touchKey records an access to key for the LRU and LFU policies.
func (n *node) touchKey(key string) {
	e := &n.ev
	if e.meta == nil {
		e.meta = map[string]*keyMeta{}
	}
	now := n.local()
	km := e.meta[key]
	if km == nil {
		km = &keyMeta{lfu: lfuInitVal}
		e.meta[key] = km
	} else {
		n.lfuDecay(km, now)
		n.lfuIncr(km)
	}
	// Redis's updateLFU stamps the access's minute as the last decrement.
	km.access, km.decayed = now, now-now%lfuDecayTime
}

// lfuDecay is Redis's LFUDecrAndReturn: the counter loses one per
// lfu-decay-time elapsed since its last decrement.
func (n *node) lfuDecay(km *keyMeta, now time.Duration) {
	periods := (now - km.decayed) / lfuDecayTime
	if periods <= 0 {
		return
	}
	if int64(periods) > int64(km.lfu) {
		km.lfu = 0
	} else {
		km.lfu -= uint8(periods)
	}
	km.decayed += periods * lfuDecayTime
}

// lfuIncr is Redis's LFULogIncr: the counter grows with probability
// 1/((counter-5)*lfu-log-factor+1), saturating at 255.
func (n *node) lfuIncr(km *keyMeta) {
	if km.lfu == 255 {
		return
	}
	base := max(float64(km.lfu)-lfuInitVal, 0)
	if n.evictRng().Float64() < 1/(base*lfuLogFactor+1) {
		km.lfu++
	}
}

func (n *node) evictRng() *rand.Rand {
	if n.erng == nil {
		n.erng = n.w.rng("evict/" + n.name)
	}
	return n.erng
}

// noteAccess is preHook's part: record the access to cmd's keys, and
// refuse a command that adds data while the node is out of memory.
func (n *node) noteAccess(ci *cmdInfo, cmd string, args []string) string {
	if n.cfg.MaxMemory <= 0 && !n.trackAccess {
		return ""
	}
	if n.ev.oom && denyOOM[cmd] && !n.ev.wrote && n.role != roleReplica {
		return MsgOOM
	}
	if ci.write {
		n.ev.wrote = true // a script that wrote is not stopped halfway
	}
	p, ok := ci.place, ci.placed
	if !ok || p.first < 0 || p.first >= len(args) {
		return ""
	}
	if p.step == 0 {
		n.touchKey(args[p.first])
		return ""
	}
	for i := p.first; i < len(args); i += p.step {
		n.touchKey(args[i])
	}
	return ""
}

// denyOOM are the commands Redis 7 flags denyoom among those nodes run:
// the ones that may add data.
var denyOOM = setOf(
	"SET", "SETNX", "SETEX", "PSETEX", "GETSET", "APPEND", "SETRANGE", "MSET", "MSETNX",
	"INCR", "INCRBY", "DECR", "DECRBY", "INCRBYFLOAT", "GETEX",
	"HSET", "HSETNX", "HMSET", "HINCRBY", "HINCRBYFLOAT",
	"LPUSH", "RPUSH", "LPUSHX", "RPUSHX", "LINSERT", "LSET", "LMOVE", "RPOPLPUSH",
	"SADD", "SMOVE", "SUNIONSTORE", "SINTERSTORE", "SDIFFSTORE",
	"ZADD", "ZINCRBY", "ZUNIONSTORE", "ZINTERSTORE", "ZRANGESTORE",
	"XADD", "PFADD", "PFMERGE", "COPY", "RESTORE", "BITOP", "SETBIT", "GEOADD",
)

// usedMemory is the keyspace's memory by the documented formula.
func (n *node) usedMemory() int64 {
	m := n.m.DB(0)
	var total int64
	for _, k := range m.Keys() {
		total += keyOverheadBytes + int64(len(k)) + n.valueSize(m, k, math.MaxInt64/2)
	}
	return total
}

// performEvictions runs before a client's command on a node with
// MaxMemory: it evicts by the policy while the node is over maxmemory and
// sets the OOM state the command is checked against. It returns how many
// keys it evicted.
func (n *node) performEvictions() int {
	n.ev.wrote = false
	n.ev.oom = false
	if n.cfg.MaxMemory <= 0 || n.role == roleReplica {
		return 0
	}
	n.sync()
	used := n.usedMemory()
	if used <= n.cfg.MaxMemory {
		return 0
	}
	evicted := 0
	for used > n.cfg.MaxMemory {
		k, ok := n.pickVictim()
		if !ok {
			break
		}
		size := keyOverheadBytes + int64(len(k)) + n.valueSize(n.m.DB(0), k, math.MaxInt64/2)
		n.m.Del(k)
		delete(n.ev.meta, k)
		used -= size
		evicted++
		n.w.record(&Event{Actor: n.name, Kind: KindEvict, Local: n.local(), Key: k, N: used,
			Note: string(n.cfg.Policy)})
		n.keyEvent(k, true)
	}
	n.ev.oom = used > n.cfg.MaxMemory
	if evicted > 0 {
		// miniredis's keys were changed directly: the watch must see it
		// (touched.go), and the DELs replicate and persist.
		n.why = "evicted"
		n.afterWrite()
	}
	return evicted
}

// pickVictim chooses the next key to evict, or false when the policy
// has no candidate.
func (n *node) pickVictim() (string, bool) {
	pol := n.cfg.Policy
	if pol == NoEviction || pol == "" {
		return "", false
	}
	m := n.m.DB(0)
	keys := m.Keys() // sorted: the draws below are deterministic
	volatile := strings.HasPrefix(string(pol), "volatile-")
	if volatile {
		keys = slices.DeleteFunc(keys, func(k string) bool { return m.TTL(k) <= 0 })
	}
	if len(keys) == 0 {
		return "", false
	}
	rng := n.evictRng()
	if strings.HasSuffix(string(pol), "-random") {
		return keys[rng.IntN(len(keys))], true
	}
	// Sample into the pool (evictionPoolPopulate), then take its best
	// entry whose key still exists.
	now := n.local()
	// Up to maxmemory-samples distinct keys (dictGetSomeKeys): all of
	// them when there are no more.
	sample := keys
	if len(keys) > maxmemorySamples {
		sample = slices.Clone(keys)
		for i := range maxmemorySamples {
			j := i + rng.IntN(len(sample)-i)
			sample[i], sample[j] = sample[j], sample[i]
		}
		sample = sample[:maxmemorySamples]
	}
	for _, k := range sample {
		var idle float64
		km := n.ev.meta[k]
		switch {
		case pol == VolatileTTL:
			idle = -float64(m.TTL(k)) // nearest expiry first
		case strings.HasSuffix(string(pol), "-lfu"):
			c := uint8(lfuInitVal)
			if km != nil {
				n.lfuDecay(km, now)
				c = km.lfu
			}
			idle = float64(255 - int(c))
		default: // lru
			a := time.Duration(0) // a key never accessed since the boot: idle since then
			if km != nil {
				a = km.access
			}
			idle = float64(now - a)
		}
		n.poolInsert(poolEntry{key: k, idle: idle})
	}
	for len(n.ev.pool) > 0 {
		best := n.ev.pool[0]
		n.ev.pool = n.ev.pool[1:]
		if m.Exists(best.key) && (!volatile || m.TTL(best.key) > 0) {
			return best.key, true
		}
	}
	return "", false
}

// poolInsert keeps the pool sorted best first, without duplicates, at
// most evictionPoolSize entries.
func (n *node) poolInsert(e poolEntry) {
	p := slices.DeleteFunc(n.ev.pool, func(o poolEntry) bool { return o.key == e.key })
	i, _ := slices.BinarySearchFunc(p, e, func(a, b poolEntry) int {
		return cmp.Or(cmp.Compare(b.idle, a.idle), cmp.Compare(a.key, b.key))
	})
	p = slices.Insert(p, i, e)
	if len(p) > evictionPoolSize {
		p = p[:evictionPoolSize]
	}
	n.ev.pool = p
}

// startFill schedules the node's filler (FillConfig).
func (n *node) startFill() {
	f := n.cfg.Fill
	if f.Every <= 0 || n.cfg.Machine != nil {
		return
	}
	var tick func()
	tick = func() {
		if n.w.live() == 0 {
			return // the clients are done: so is the other application
		}
		n.w.schedule(n.w.now+f.Every, tick)
		if !n.up || n.stalled || n.role == roleReplica {
			return // a down or stalled node misses this write
		}
		n.fill()
	}
	n.w.schedule(f.Start+f.Every, tick)
}

// fill runs one filler write through the path of a client's command.
func (n *node) fill() {
	f := n.cfg.Fill
	n.ev.seq++
	args := []string{"SET", FillKeyPrefix + strconv.Itoa(n.ev.seq), strings.Repeat("x", f.Size)}
	if f.TTL > 0 {
		args = append(args, "PX", strconv.FormatInt(f.TTL.Milliseconds(), 10))
	}
	n.writeOther(args)
}
