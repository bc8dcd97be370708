package sim

import (
	"slices"
	"strconv"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// keyState is one key's type, contents and absolute expiry, as Redis
// propagates it (a SET ... PX is sent as PXAT since Redis 7).
type keyState struct {
	Type string
	// Vals: string [v]; hash [f1 v1 f2 v2 ...] sorted by field; list in
	// order; set sorted; zset [m1 s1 m2 s2 ...] sorted by member.
	Vals []string
	// ExpireAt is the expiry on the writing node's wall clock (a duration
	// since clock.Epoch); 0 means no TTL.
	ExpireAt time.Duration
}

func (a keyState) equal(b keyState) bool {
	return a.Type == b.Type && a.ExpireAt == b.ExpireAt && slices.Equal(a.Vals, b.Vals)
}

// snapshot is a whole keyspace (DB 0). Replication and persistence model
// strings, hashes, lists, sets and sorted sets; other types are skipped.
type snapshot map[string]keyState

// keyOp is one replicated change: a key's new state, or its deletion.
type keyOp struct {
	Key string
	Del bool
	St  keyState
}

// takeSnapshot reads the keyspace of m; local is the node's wall clock.
func takeSnapshot(m *miniredis.Miniredis, local time.Duration) snapshot {
	s := snapshot{}
	for _, k := range m.Keys() {
		st := keyState{Type: m.Type(k)}
		switch st.Type {
		case "string":
			v, _ := m.Get(k)
			st.Vals = []string{v}
		case "hash":
			fs, _ := m.HKeys(k)
			slices.Sort(fs)
			for _, f := range fs {
				st.Vals = append(st.Vals, f, m.HGet(k, f))
			}
		case "list":
			st.Vals, _ = m.List(k)
		case "set":
			st.Vals, _ = m.Members(k)
		case "zset":
			ms, _ := m.SortedSet(k)
			for _, mem := range sortedKeys(ms) {
				st.Vals = append(st.Vals, mem, strconv.FormatFloat(ms[mem], 'g', -1, 64))
			}
		default:
			continue
		}
		if ttl := m.TTL(k); ttl > 0 {
			st.ExpireAt = local + ttl
		}
		s[k] = st
	}
	return s
}

// diffSnapshots returns the changes from old to cur, sorted by key.
func diffSnapshots(old, cur snapshot) []keyOp {
	var ops []keyOp
	for _, k := range sortedKeys(cur) {
		if o, ok := old[k]; !ok || !o.equal(cur[k]) {
			ops = append(ops, keyOp{Key: k, St: cur[k]})
		}
	}
	for _, k := range sortedKeys(old) {
		if _, ok := cur[k]; !ok {
			ops = append(ops, keyOp{Key: k, Del: true})
		}
	}
	return ops
}

// writeKey stores st under k in m with no TTL.
func writeKey(m *miniredis.Miniredis, k string, st keyState) {
	m.Del(k)
	switch st.Type {
	case "string":
		m.Set(k, st.Vals[0])
	case "hash":
		m.HSet(k, st.Vals...)
	case "list":
		m.Push(k, st.Vals...)
	case "set":
		m.SetAdd(k, st.Vals...)
	case "zset":
		for i := 0; i+1 < len(st.Vals); i += 2 {
			f, _ := strconv.ParseFloat(st.Vals[i+1], 64)
			m.ZAdd(k, f, st.Vals[i])
		}
	}
}
