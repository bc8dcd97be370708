package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/alicebob/miniredis/v2"
)

// Limits on what a Redis node holds. miniredis keeps values in Go memory
// without a bound (a SET of a 500 MB value peaked at 4.3 GB, a SETRANGE at
// a 512 MB offset at 5.1 GB), so every command that can grow the keyspace
// is checked in preHook, before miniredis runs it — from clients, from Lua
// scripts and at MULTI's queue time alike — and refused with an error that
// names the limit. Lock values are tens of bytes; these limits are far
// above any lock design and far below what would endanger a run.
const (
	// MaxValueBytes bounds each string a node stores: a string value, and
	// each field, value and member of a hash, list, set or sorted set
	// (limits: max-value-bytes). Real Redis allows 512 MB.
	MaxValueBytes = 1 << 20
	// MaxKeyspaceBytes bounds a node's keyspace, all databases together,
	// counting each key as its name, its strings and keyOverheadBytes, and
	// each element of a collection as its strings and elemOverheadBytes
	// (limits: max-keyspace-bytes). Real Redis has maxmemory.
	MaxKeyspaceBytes = 16 << 20
)

const (
	keyOverheadBytes  = 64 // a key's bookkeeping in miniredis (type, TTL, version maps)
	elemOverheadBytes = 16 // an element's in its collection
	smallValueBytes   = 32 // what INCR and friends store: a number's text
	dbCount           = 16 // miniredis's databases
)

// keyspaceLimits is a node's accounting of its keyspace.
//
// Invariant: used >= the keyspace's size (keyspaceSize) whenever stamp
// matches the node's state. A command that may grow the keyspace adds an
// upper bound of its growth before it runs. What a command frees is
// credited exactly only where that is certain, and only once the keyspace
// is over half its budget (below, nothing needs the credit before a walk):
// DEL, UNLINK and GETDEL of string keys and collections, and a SET over a
// string (not inside MULTI, where the command runs later). Everything else that
// shrinks the keyspace (expiry, pops, HDEL, ...) is credited by a walk that
// measures it, done when a command would exceed the budget, at most once
// per instant of the node's clock (so a loop of refused commands does not
// walk every time), and whenever the keyspace may have changed without
// commands (a restart, a resync, a role change: stamp).
type keyspaceLimits struct {
	used     int64
	stamp    limitStamp
	walkedAt int64         // the node's wall clock (ns since clock.Epoch) at the last walk
	dbs      map[any]int   // the database each peer selected (default 0)
	inMulti  map[any]bool  // peers between MULTI and EXEC or DISCARD
	selected [dbCount]bool // databases that were ever selected: the ones to walk
}

// limitStamp identifies a keyspace state that only commands change.
type limitStamp struct {
	valid       bool
	incarnation int
	role        role
	applied     int64
}

func (n *node) limitStamp() limitStamp {
	return limitStamp{valid: true, incarnation: n.incarnation, role: n.role, applied: n.applied}
}

// errValueTooLarge is the reply to a command that would store a string
// beyond MaxValueBytes.
func errValueTooLarge(size int64) string {
	return fmt.Sprintf("ERR locksim: value of %d bytes exceeds the limit of %d bytes (limits: max-value-bytes)", size, MaxValueBytes)
}

// errKeyspaceFull is the reply to a command that would take the keyspace
// past MaxKeyspaceBytes.
func errKeyspaceFull(used, grow int64) string {
	return fmt.Sprintf("ERR locksim: the node holds %d bytes; this command may add %d more, beyond the limit of %d bytes (limits: max-keyspace-bytes)", used, grow, MaxKeyspaceBytes)
}

// checkGrowth is preHook's keyspace check of cmd (upper case) with args
// from peer. It returns an error text to reply with, or "" to let the
// command run (after charging its growth).
func (n *node) checkGrowth(peer any, ci *cmdInfo, cmd string, args []string) string {
	l := &n.lim
	switch cmd {
	case "SELECT":
		if len(args) == 1 {
			if db, err := strconv.Atoi(args[0]); err == nil && db >= 0 && db < dbCount {
				if l.dbs == nil {
					l.dbs = map[any]int{}
				}
				l.dbs[peer] = db
				l.selected[db] = true
			}
		}
		return ""
	case "MULTI", "EXEC", "DISCARD":
		if l.inMulti == nil {
			l.inMulti = map[any]bool{}
		}
		l.inMulti[peer] = cmd == "MULTI"
		return ""
	}
	if !ci.write {
		return ""
	}
	// Crediting what a command frees needs lookups (each ticks miniredis's
	// clock over every database); while the keyspace is far from its
	// budget a walk later does the same, so they are skipped.
	g := n.growth(l.dbs[peer], cmd, args, l.used > MaxKeyspaceBytes/2 && !l.inMulti[peer])
	if g.largest > MaxValueBytes {
		return errValueTooLarge(g.largest)
	}
	if l.inMulti[peer] {
		g.credit = 0 // it runs at EXEC, after other clients' commands
	}
	if g.bytes <= 0 && g.credit <= 0 {
		return ""
	}
	if st := n.limitStamp(); st != l.stamp {
		l.used, l.stamp, l.walkedAt = n.keyspaceSize(), st, n.localNanos()
	}
	if l.used+g.bytes-g.credit > MaxKeyspaceBytes && l.walkedAt != n.localNanos() {
		l.used, l.walkedAt = n.keyspaceSize(), n.localNanos() // credit what was freed or expired
	}
	if net := g.bytes - g.credit; net > 0 && l.used+net > MaxKeyspaceBytes {
		return errKeyspaceFull(l.used, net)
	}
	l.used = max(l.used+g.bytes-g.credit, 0)
	return ""
}

func (n *node) localNanos() int64 { return int64(n.local()) }

// growth bounds what a command may add.
type growth struct {
	bytes   int64 // to the keyspace, an upper bound
	credit  int64 // what it certainly frees (see keyspaceLimits)
	largest int64 // the largest single string it may store
}

// growth bounds what cmd may add to the keyspace of database db. Commands
// that store their arguments are bounded by them; the ones that compute
// or copy what they store are bounded by the stored values they read.
// With credits, it also measures what DEL, UNLINK, GETDEL and SET free.
func (n *node) growth(db int, cmd string, args []string, credits bool) growth {
	var mdb *miniredis.RedisDB
	m := func() *miniredis.RedisDB {
		if mdb == nil {
			mdb = n.m.DB(db)
		}
		return mdb
	}
	key := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	newKey := int64(keyOverheadBytes + len(key(0)))
	switch cmd {
	case "SET", "GETSET":
		v := int64(len(key(1)))
		g := growth{bytes: newKey + v, largest: v}
		if credits && !hasWord(args[min(2, len(args)):], "NX") && m().Type(key(0)) == "string" {
			g.credit = newKey + stringLen(m(), key(0)) // SET replaces it
		}
		return g
	case "SETNX":
		v := int64(len(key(1)))
		return growth{bytes: newKey + v, largest: v}
	case "DEL", "UNLINK", "GETDEL":
		var g growth
		if !credits {
			return g
		}
		m := m()
		seen := map[string]bool{}
		for _, k := range args {
			if !seen[k] && m.Exists(k) && (cmd != "GETDEL" || m.Type(k) == "string") {
				g.credit += keyOverheadBytes + int64(len(k)) + n.valueSize(m, k, math.MaxInt64)
			}
			seen[k] = true
		}
		return g
	case "SETEX", "PSETEX":
		v := int64(len(key(2)))
		return growth{bytes: newKey + v, largest: v}
	case "MSET", "MSETNX":
		var g growth
		for i := 0; i+1 < len(args); i += 2 {
			v := int64(len(args[i+1]))
			g.bytes += keyOverheadBytes + int64(len(args[i])) + v
			g.largest = max(g.largest, v)
		}
		return g
	case "APPEND":
		old := stringLen(m(), key(0))
		return growth{bytes: newKey + int64(len(key(1))), largest: old + int64(len(key(1)))}
	case "SETRANGE":
		off, err := strconv.ParseInt(key(1), 10, 64)
		if err != nil || off < 0 || len(key(2)) == 0 {
			return growth{} // miniredis's error, or no change
		}
		return extend(m(), key(0), off+int64(len(key(2))), newKey)
	case "SETBIT":
		off, err := strconv.ParseInt(key(1), 10, 64)
		if err != nil || off < 0 {
			return growth{}
		}
		return extend(m(), key(0), off/8+1, newKey)
	case "INCR", "DECR", "INCRBY", "DECRBY", "INCRBYFLOAT":
		return growth{bytes: newKey + smallValueBytes, largest: smallValueBytes}
	case "HINCRBY", "HINCRBYFLOAT", "ZINCRBY":
		f := int64(len(key(2)))
		if cmd != "ZINCRBY" {
			f = int64(len(key(1)))
		}
		return growth{bytes: newKey + f + smallValueBytes + elemOverheadBytes, largest: f}
	case "BITOP":
		var longest int64
		for _, k := range args[min(2, len(args)):] {
			longest = max(longest, stringLen(m(), k))
		}
		return growth{bytes: keyOverheadBytes + int64(len(key(1))) + longest, largest: longest}
	case "COPY":
		return growth{bytes: keyOverheadBytes + int64(len(key(1))) + n.valueSize(m(), key(0), MaxKeyspaceBytes+1)}
	case "SUNIONSTORE", "SINTERSTORE", "SDIFFSTORE":
		return n.storeGrowth(m(), key(0), args[min(1, len(args)):])
	case "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE":
		nk, err := strconv.Atoi(key(1))
		if err != nil || nk < 0 || 2+nk > len(args) {
			return growth{}
		}
		return n.storeGrowth(m(), key(0), args[2:2+nk])
	case "ZRANGESTORE":
		return n.storeGrowth(m(), key(0), args[min(1, len(args)):min(2, len(args))])
	case "GEORADIUS", "GEORADIUSBYMEMBER", "GEOSEARCHSTORE":
		for _, a := range args {
			if strings.EqualFold(a, "STORE") || strings.EqualFold(a, "STOREDIST") || cmd == "GEOSEARCHSTORE" {
				return n.storeGrowth(m(), key(0), args[:min(2, len(args))])
			}
		}
		return growth{}
	case "RENAME", "RENAMENX", "MOVE", "SWAPDB", "LMOVE", "BLMOVE", "RPOPLPUSH", "BRPOPLPUSH", "SMOVE":
		// Moves: the keyspace's total does not grow beyond a key's
		// bookkeeping (SMOVE: a member's copy).
		return growth{bytes: keyOverheadBytes + int64(len(key(1))) + int64(len(key(2)))}
	}
	// Any other write command stores at most its arguments: each is one
	// string, and each may be a new element.
	var g growth
	g.bytes = newKey
	for _, a := range args {
		g.bytes += int64(len(a)) + elemOverheadBytes
		g.largest = max(g.largest, int64(len(a)))
	}
	return g
}

// extend is the growth of string key when a command makes it at least size
// bytes long (SETRANGE, SETBIT).
func extend(m *miniredis.RedisDB, key string, size, newKey int64) growth {
	old := stringLen(m, key)
	if size <= old {
		return growth{}
	}
	return growth{bytes: newKey + size - old, largest: size}
}

// storeGrowth bounds a *STORE command: its destination holds at most what
// its sources hold.
func (n *node) storeGrowth(m *miniredis.RedisDB, dst string, srcs []string) growth {
	g := growth{bytes: keyOverheadBytes + int64(len(dst))}
	for _, k := range srcs {
		g.bytes += n.valueSize(m, k, MaxKeyspaceBytes+1-g.bytes)
		if g.bytes > MaxKeyspaceBytes {
			break
		}
	}
	return g
}

// stringLen is the length of key's string value, 0 when it has none.
func stringLen(m *miniredis.RedisDB, key string) int64 {
	if m.Type(key) != "string" {
		return 0
	}
	v, _ := m.Get(key)
	return int64(len(v))
}

// keyspaceSize measures the keyspace of every database that was ever
// selected (and database 0), as MaxKeyspaceBytes counts it.
func (n *node) keyspaceSize() int64 {
	var total int64
	for db := 0; db < dbCount; db++ {
		if db != 0 && !n.lim.selected[db] {
			continue
		}
		m := n.m.DB(db)
		for _, k := range m.Keys() {
			total += keyOverheadBytes + int64(len(k)) + n.valueSize(m, k, MaxKeyspaceBytes+1)
		}
	}
	return total
}

// valueSize is the size of key's value as MaxKeyspaceBytes counts it,
// computed up to about limit (it stops early beyond).
func (n *node) valueSize(m *miniredis.RedisDB, key string, limit int64) int64 {
	var size int64
	add := func(ss []string) {
		for _, s := range ss {
			if size > limit {
				return
			}
			size += int64(len(s)) + elemOverheadBytes
		}
	}
	switch m.Type(key) {
	case "string":
		return stringLen(m, key)
	case "hash":
		fs, _ := m.HKeys(key)
		for _, f := range fs {
			if size > limit {
				break
			}
			size += int64(len(f)+len(m.HGet(key, f))) + elemOverheadBytes
		}
	case "list":
		vs, _ := m.List(key)
		add(vs)
	case "set":
		vs, _ := m.Members(key)
		add(vs)
	case "zset":
		vs, _ := m.ZMembers(key)
		add(vs)
		size += int64(len(vs)) * 8 // scores
	case "stream":
		es, _ := m.Stream(key)
		for _, e := range es {
			add(e.Values)
			size += int64(len(e.ID))
		}
	case "":
	default: // hll and the rest: a sketch of bounded size
		size = 16 << 10
	}
	return size
}

// hasWord reports whether args hold w, case-insensitively.
func hasWord(args []string, w string) bool {
	for _, a := range args {
		if strings.EqualFold(a, w) {
			return true
		}
	}
	return false
}
