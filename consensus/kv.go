package consensus

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"locksim/sim/resp"
)

// kv is the replicated state machine: keys bound to leases, leases with a
// TTL, and a revision that every write bumps (etcd's store revision, the
// fencing token). Apply is a pure function of the state and the command,
// so every node that applies the same log holds the same kv; a node's
// clock never enters it (the leader's clock decides expiry by proposing
// an expire command, see leader.go).
type kv struct {
	rev    int64 // the revision: the number of writes applied
	keys   map[string]kvKey
	leases map[int64]*kvLease
}

// kvKey is one key's value, the lease it is bound to and the revision of
// the write that created it (its fencing token).
type kvKey struct {
	value string
	lease int64
	rev   int64
}

// kvLease is a granted lease: its TTL and the keys bound to it (sorted).
type kvLease struct {
	ttl  time.Duration
	keys []string
}

func newKV() *kv { return &kv{keys: map[string]kvKey{}, leases: map[int64]*kvLease{}} }

// keyChange is one key's new value after a command, "" when deleted; cause
// names the command ("putnx", "del", "revoke", "expired").
type keyChange struct {
	key, value, cause string
}

// The commands of the state machine. Clients send the first five;
// opExpire is proposed only by a leader whose clock says a lease ran out.
const (
	opGrant     = "GRANT"     // GRANT <ttl ms> -> [lease id, ttl ms]
	opKeepAlive = "KEEPALIVE" // KEEPALIVE <lease> -> ttl ms, 0 if the lease is gone
	opPutNX     = "PUTNX"     // PUTNX <key> <value> <lease> -> [revision, lease] or nil if another value holds key
	opDel       = "DEL"       // DEL <key> <value> -> 1 if it deleted, else 0
	opRevoke    = "REVOKE"    // REVOKE <lease> -> 1 if the lease existed, else 0
	opExpire    = "EXPIRE"    // EXPIRE <lease>: the leader's clock says it ran out
)

// arity is how many arguments each command takes.
var arity = map[string]int{opGrant: 1, opKeepAlive: 1, opPutNX: 3, opDel: 2, opRevoke: 1, opExpire: 1}

// validate checks a client command before it is proposed, so the log only
// ever holds commands apply understands. It returns an error reply or ok.
func validate(args []string) (resp.Reply, bool) {
	if len(args) == 0 {
		return resp.ErrorReply("ERR empty command"), false
	}
	n, known := arity[args[0]]
	if !known || args[0] == opExpire {
		return resp.ErrorReply("ERR unknown command '" + args[0] + "'"), false
	}
	for _, a := range args[1:] {
		if a == "" || strings.ContainsAny(a, " \t\r\n") {
			return resp.ErrorReply("ERR an argument is empty or holds white space"), false
		}
	}
	if len(args)-1 != n {
		return resp.ErrorReply("ERR wrong number of arguments for '" + args[0] + "'"), false
	}
	switch args[0] {
	case opGrant:
		if ms, err := strconv.ParseInt(args[1], 10, 64); err != nil || ms <= 0 || ms > maxTTLms {
			return resp.ErrorReply("ERR invalid TTL"), false
		}
	case opKeepAlive, opRevoke:
		if _, err := strconv.ParseInt(args[1], 10, 64); err != nil {
			return resp.ErrorReply("ERR invalid lease id"), false
		}
	case opPutNX:
		if _, err := strconv.ParseInt(args[3], 10, 64); err != nil {
			return resp.ErrorReply("ERR invalid lease id"), false
		}
	}
	return resp.Reply{}, true
}

// maxTTLms bounds a lease's TTL (etcd's MaxLeaseTTL is 9,000,000,000 s;
// one day is plenty for a simulated run).
const maxTTLms = 24 * 3600 * 1000

// apply runs one validated command at log index idx and returns its reply
// and the keys it changed.
func (s *kv) apply(idx uint64, args []string) (resp.Reply, []keyChange) {
	num := func(i int) int64 { v, _ := strconv.ParseInt(args[i], 10, 64); return v }
	switch args[0] {
	case opGrant:
		id := int64(idx) // unique: one grant per log index
		ttl := time.Duration(num(1)) * time.Millisecond
		s.leases[id] = &kvLease{ttl: ttl}
		return resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.IntReply(id), resp.IntReply(num(1))}}, nil
	case opKeepAlive:
		l := s.leases[num(1)]
		if l == nil {
			return resp.IntReply(0), nil
		}
		return resp.IntReply(int64(l.ttl / time.Millisecond)), nil
	case opPutNX:
		return s.putNX(args[1], args[2], num(3))
	case opDel:
		k, ok := s.keys[args[1]]
		if !ok || k.value != args[2] {
			return resp.IntReply(0), nil
		}
		s.rev++
		s.unbind(args[1], k.lease)
		delete(s.keys, args[1])
		return resp.IntReply(1), []keyChange{{args[1], "", "del"}}
	case opRevoke, opExpire:
		cause := "revoke"
		if args[0] == opExpire {
			cause = "expired"
		}
		ch, ok := s.revoke(num(1), cause)
		if !ok {
			return resp.IntReply(0), nil
		}
		return resp.IntReply(1), ch
	}
	return resp.ErrorReply("ERR unknown command"), nil // validated before proposal: unreachable
}

// putNX binds key to value under lease if the key is free. A retry of the
// same acquisition (the key already holds value) gets the existing write's
// revision and lease, so the client keeps alive the lease the key is on.
func (s *kv) putNX(key, value string, lease int64) (resp.Reply, []keyChange) {
	if k, ok := s.keys[key]; ok {
		if k.value == value {
			return revLease(k.rev, k.lease), nil
		}
		return resp.Nil, nil
	}
	l := s.leases[lease]
	if l == nil {
		return resp.ErrorReply("ERR lease not found"), nil
	}
	s.rev++
	s.keys[key] = kvKey{value: value, lease: lease, rev: s.rev}
	i, _ := slices.BinarySearch(l.keys, key)
	l.keys = slices.Insert(l.keys, i, key)
	return revLease(s.rev, lease), []keyChange{{key, value, "putnx"}}
}

func revLease(rev, lease int64) resp.Reply {
	return resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.IntReply(rev), resp.IntReply(lease)}}
}

// revoke ends a lease and deletes its keys in one write (one revision).
func (s *kv) revoke(id int64, cause string) ([]keyChange, bool) {
	l := s.leases[id]
	if l == nil {
		return nil, false
	}
	delete(s.leases, id)
	if len(l.keys) == 0 {
		return nil, true
	}
	s.rev++
	var ch []keyChange
	for _, k := range l.keys {
		delete(s.keys, k)
		ch = append(ch, keyChange{k, "", cause})
	}
	return ch, true
}

// unbind removes key from its lease's key list.
func (s *kv) unbind(key string, lease int64) {
	if l := s.leases[lease]; l != nil {
		if i, ok := slices.BinarySearch(l.keys, key); ok {
			l.keys = slices.Delete(l.keys, i, i+1)
		}
	}
}

// leaseIDs returns the granted leases, sorted.
func (s *kv) leaseIDs() []int64 {
	ids := make([]int64, 0, len(s.leases))
	for id := range s.leases {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
