package realclient

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pkg/errors"

	"locksim/model/history"
	"locksim/sim"
)

// The library's own keys. A lock key is a key that a client's command set
// to the value of one of that client's acquisitions (the value its Lock
// wrote, read on the wire): the library may name it as it likes (a
// prefix, a hash tag, several keys per lock). The driver notes on the
// wire which keys each lock command may write (lockWrite); after the run,
// discoverKeys reads on the nodes which of them took the value, and
// rewriteKeys puts them in the history: the client events' Key (Env.Key
// until then) becomes the first lock key, an acquired event's grants name
// node and key. A grant is a (node, key) pair, and a lease stays alive
// while enough of its grants hold its value for no other client to gather
// the library's quorum: over keys on one node (rueidislock's majority of
// KeyMajority*2-1 keys) or over nodes (Redlock, Options.Quorum).
//
// Finding is refused, never guessed, when it is ambiguous: two values a
// lock call wrote both stood when it returned (which is the lock's?), or
// one lock key took the value with an expiry and another without (a
// bookkeeping key?). WithLockKeys names the keys then.

// lockKeySet is a run's discovered lock keys and the checkers' quorum.
type lockKeySet struct {
	// keys are the lock keys, sorted; the first is the one client events
	// name.
	keys []string
	// quorum is invariant.Config.Quorum: how many grants must still hold
	// a lease for no other client to gather the lock's quorum; 0 leaves
	// the spec's.
	quorum int
}

// acqNote is what the wire showed of one acquisition, kept for
// discoverKeys: its value, the keys its commands named, and the other
// values nodes granted during it.
type acqNote struct {
	client string
	value  string
	keys   []string
	others map[string][]history.Grant
}

// acqNotes collects the run's acquisitions (client goroutines append).
type acqNotes struct {
	mu    sync.Mutex
	notes []acqNote
}

// noteAcquisition keeps what an acquisition wrote for discoverKeys.
func (d *driver) noteAcquisition(client string, a acquisition, ok bool) {
	if a.value == "" {
		return
	}
	d.acqs.mu.Lock()
	d.acqs.notes = append(d.acqs.notes, acqNote{client: client, value: a.value, keys: a.keys, others: a.others})
	d.acqs.mu.Unlock()
}

// matchKey reports whether key matches a WithLockKeys pattern (path.Match
// syntax: * matches any run of characters but '/', ? one, [a-z] a class).
func matchKey(pattern, key string) bool {
	ok, err := path.Match(pattern, key)
	return err == nil && ok
}

// grantPeer renders grants as an acquired event's Peer with key as the
// event's Key (history.GrantPeer).
func grantPeer(key string, gs []history.Grant) string {
	nodes := make([]string, len(gs))
	keys := make([]string, len(gs))
	for i, g := range gs {
		nodes[i], keys[i] = g.Node, g.Key
	}
	return history.GrantPeer(key, nodes, keys)
}

// discoverKeys finds the run's lock keys in its history (see above); the
// error says why they cannot be told.
func discoverKeys(h sim.History, rc *runConfig, notes []acqNote, placeholder string) (lockKeySet, error) {
	ix := discoveryIndexes.Get().(*history.Index).Reuse(h)
	defer discoveryIndexes.Put(ix) // nothing returned refers to its memory
	// The values of every client's acquisitions.
	values := map[string][]string{}
	acquiredAt := map[string][]int{} // client + "\x00" + value -> acquired events
	acquired := 0
	for i, e := range h {
		switch e.Kind {
		case history.KindAcquired:
			if e.Note == NoteUnlocked {
				continue
			}
			if acquired++; e.Value == "" {
				continue
			}
			acquiredAt[e.Actor+"\x00"+e.Value] = append(acquiredAt[e.Actor+"\x00"+e.Value], i)
		case history.KindAcquireFailed:
			if e.Value == "" {
				continue
			}
		default:
			continue
		}
		if !slices.Contains(values[e.Actor], e.Value) {
			values[e.Actor] = append(values[e.Actor], e.Value)
		}
	}
	if rc.lockKeys != "" && acquired > 0 && len(values) == 0 {
		return lockKeySet{}, errors.Errorf("WithLockKeys(%q): no lock command wrote a value to a key matching it", rc.lockKeys)
	}
	if len(values) == 0 {
		return lockKeySet{keys: []string{placeholder}}, nil // nothing acquired: nothing to find
	}
	found, ttl := foundKeys(h, ix, values, rc.lockKeys)
	keys := sortedKeys(found)
	if len(keys) == 0 {
		if rc.lockKeys != "" {
			var wrote []string
			for _, n := range notes {
				for _, k := range n.keys {
					if !slices.Contains(wrote, k) {
						wrote = append(wrote, k)
					}
				}
			}
			return lockKeySet{}, errors.Errorf("WithLockKeys(%q): no key matching it took the lock's value (the lock commands named %s)", rc.lockKeys, quoteList(wrote))
		}
		// No node ever took the value of an acquisition its Lock
		// reported: the harness read the wrong value (a library whose
		// script takes something else first, such as a database number:
		// WithValueArg), or the lock holds nothing on the nodes. Judging
		// the run on keys that never held the lock's value would give
		// verdicts about something else (false stale-writes were seen),
		// so it is refused.
		if acquired > 0 {
			var vs []string
			for _, c := range sortedKeys(values) {
				for _, v := range values[c] {
					if !slices.Contains(vs, v) {
						vs = append(vs, v)
					}
				}
			}
			return lockKeySet{}, errors.Errorf("no node ever held the value of a granted lock (values read: %s): the lock's value is read from its commands' first script argument unless WithValueArg(n) names another, or from Valuer; name it, or WithLockKeys(pattern) for its keys", quoteList(vs))
		}
		// No acquisition at all: the keys the commands named, else
		// Env.Key, as before discovery.
		for _, n := range notes {
			for _, k := range n.keys {
				found[k] = true
			}
		}
		if keys = sortedKeys(found); len(keys) == 0 {
			keys = []string{placeholder}
		}
	}
	if rc.lockKeys == "" {
		// Two values that both stood when Lock returned: which one is the
		// lock's cannot be told from the wire.
		for _, n := range notes {
			for _, pos := range acquiredAt[n.client+"\x00"+n.value] {
				for _, ov := range sortedKeys(n.others) {
					for _, g := range n.others[ov] {
						// A retry with a new value on the same keys
						// (rueidislock's) is no second key.
						if !slices.Contains(n.keys, g.Key) && ix.Holds(g.Node, g.Key, ov, pos) {
							return lockKeySet{}, errors.Errorf("the lock keys are ambiguous: when %s's Lock returned at %s, %s on %s held %q and %s held %q, both written by its Lock: which is the lock's cannot be told; name the lock keys with realclient.WithLockKeys(pattern)",
								n.client, sim.FormatTime(h[pos].At), g.Key, g.Node, ov, grantKeys(n.keys), n.value)
						}
					}
				}
			}
		}
		var with, without []string
		for _, k := range keys {
			if ttl[k] {
				with = append(with, k)
			}
			if !ttl[k] {
				without = append(without, k)
			}
		}
		if len(with) > 0 && len(without) > 0 {
			return lockKeySet{}, errors.Errorf("the lock keys are ambiguous: the lock's value was written to %s with an expiry and to %s without one (a lock key or the library's own bookkeeping?); name the lock keys with realclient.WithLockKeys(pattern)", quoteList(with), quoteList(without))
		}
	}
	set := lockKeySet{keys: keys}
	if n := len(keys); n > 1 {
		if rc.spec.Topology.Masters > 1 {
			return lockKeySet{}, errors.Errorf("the lock writes its value to %d keys (%s) on each of %d masters: a quorum over both keys and nodes is not judged", n, quoteList(keys), rc.spec.Topology.Masters)
		}
		q := rc.keyQuorum
		if q == 0 {
			q = n/2 + 1
		}
		if q > n {
			return lockKeySet{}, errors.Errorf("WithKeyQuorum(%d): the lock has only %d keys (%s)", q, n, quoteList(keys))
		}
		set.quorum = n - q + 1
	}
	return set, nil
}

// discoveryIndexes holds the indexes discoverKeys builds (Reuse): one per
// run, read only while the keys are found, and as large to allocate anew
// as the run's history.
var discoveryIndexes = sync.Pool{New: func() any { return history.New(nil) }}

// foundKeys returns the keys a client's command set to one of that
// client's lock values (values), by name, and those that held one with an
// expiry at least once; only keys matching pattern, if set.
func foundKeys(h sim.History, ix *history.Index, values map[string][]string, pattern string) (found, ttl map[string]bool) {
	found, ttl = map[string]bool{}, map[string]bool{}
	// Each client's values as a set: a run has hundreds of acquisitions
	// and as many key changes, and testing every pair was quadratic.
	sets := make(map[string]map[string]bool, len(values))
	for c, vs := range values {
		set := make(map[string]bool, len(vs))
		for _, v := range vs {
			if v != "" {
				set[v] = true
			}
		}
		sets[c] = set
	}
	for _, nk := range sortedNodeKeys(ix) {
		if pattern != "" && !matchKey(pattern, nk.Key) {
			continue
		}
		for _, c := range ix.Keys[nk] {
			if c.By == "" || c.ExecPos < 0 || c.Cause == "replication" || c.Value == "" {
				continue
			}
			if !holdsAny(c.Value, sets[c.By]) {
				continue
			}
			found[nk.Key] = true
			if h[c.Pos].Dur > 0 {
				ttl[nk.Key] = true
			}
		}
	}
	return found, ttl
}

// holdsAny reports whether a key's rendered value holds any of the values
// in set, as history.HoldsLease tells it for one: the value itself, or a
// field "v=count" of a reentrant hash's "field=count,..." rendering.
func holdsAny(rendered string, set map[string]bool) bool {
	if rendered == "" || len(set) == 0 {
		return false
	}
	if set[rendered] {
		return true
	}
	for f := range strings.SplitSeq(rendered, ",") {
		// HoldsLease(f, v) is f starting with v+"=": try every "=" in f.
		for i := 0; i < len(f); i++ {
			if f[i] == '=' && i > 0 && set[f[:i]] {
				return true
			}
		}
	}
	return false
}

// acquisitionValues returns each client's lock values: those of its
// acquired (not fail-open) and acquire-failed events.
func acquisitionValues(h sim.History) map[string][]string {
	values := map[string][]string{}
	for _, e := range h {
		if (e.Kind == history.KindAcquired && e.Note != NoteUnlocked || e.Kind == history.KindAcquireFailed) && e.Value != "" && !slices.Contains(values[e.Actor], e.Value) {
			values[e.Actor] = append(values[e.Actor], e.Value)
		}
	}
	return values
}

func grantKeys(keys []string) string { return strings.Join(keys, ",") }

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func sortedNodeKeys(ix *history.Index) []history.NodeKey {
	ks := make([]history.NodeKey, 0, len(ix.Keys))
	for k := range ix.Keys {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b history.NodeKey) int {
		if c := strings.Compare(a.Node, b.Node); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return ks
}

// rewriteKeys puts the discovered keys in the history: client events that
// name placeholder (Env.Key) name the first lock key instead, and an
// acquired event's grants keep only lock keys (a command's other KEYS,
// a token counter, granted nothing).
func rewriteKeys(h sim.History, set lockKeySet, placeholder string, clients []string) {
	primary := set.keys[0]
	for i := range h {
		e := &h[i]
		if !slices.Contains(clients, e.Actor) {
			continue
		}
		if e.Kind == history.KindAcquired && e.Peer != "" {
			var nodes, keys []string
			for _, g := range history.Grants(e.Peer, e.Key) {
				if slices.Contains(set.keys, g.Key) {
					nodes, keys = append(nodes, g.Node), append(keys, g.Key)
				}
			}
			e.Peer = history.GrantPeer(primary, nodes, keys)
		}
		if e.Key == placeholder {
			e.Key = primary
		}
	}
}

// WithLockKeys names the lock keys where finding them is ambiguous: the
// keys matching pattern (path.Match syntax: "job:*:lock", "{orders}:lock")
// that a lock command wrote the lock's value to, and no other key.
// Without it the harness finds them (see docs/realclient.md, "The
// library's own keys") and refuses a run where it cannot tell them.
func WithLockKeys(pattern string) Option { return func(c *config) { c.lockKeys = pattern } }

// WithKeyQuorum says how many of its keys on one node a lock needs
// (rueidislock's KeyMajority); the default is a majority of the keys it
// was seen writing. A lease is judged alive while no other client could
// gather that many. Over nodes the quorum is Options.Quorum.
func WithKeyQuorum(q int) Option { return func(c *config) { c.keyQuorum = q } }

// WithValueArg says which ARGV of the library's EVAL/EVALSHA lock scripts
// carries the lock's value (1-based; the default 1). A library whose
// scripts take something else first (@sesamecare-oss/redlock's ARGV[1] is
// the database number, its value ARGV[2]) needs it: the harness would
// otherwise take the wrong argument for the value and find no node that
// granted it.
func WithValueArg(n int) Option { return func(c *config) { c.valueArg = n } }

// renameValues renames the lock values in h in the order of their first
// use (v1, v2, ...): a library's own random values (rueidislock's draw
// from math/rand/v2, which nothing can seed) then cannot make two runs'
// histories, cases and reports differ, and a binary value does not reach
// a report or a JSON case. A value is what a client event carries as its
// lock value (acquire-send, acquired, acquire-failed, release...) or what
// a lock command of an acquisition carried (sent); it is renamed wherever
// it appears: values, command arguments, replies, notes.
func renameValues(h sim.History, clients []string, sent map[string]bool) {
	names := map[string]string{}
	var olds []string
	use := func(v string) {
		if _, ok := names[v]; !ok {
			names[v] = "v" + strconv.Itoa(len(names)+1)
			olds = append(olds, v)
		}
	}
	for _, e := range h {
		if e.Value != "" && (sent[e.Value] || slices.Contains(clients, e.Actor)) {
			use(e.Value)
		}
		for _, a := range e.Args {
			if sent[a] {
				use(a)
			}
		}
	}
	if len(names) == 0 {
		return
	}
	// Only whole values are renamed, never a part of a string (a value
	// "1" must not turn "1000" into "v1000"): a field that is the value, a
	// command argument that is, where a value can be (valueArgsFrom: not
	// an EVAL's key count), a reply that is the value quoted (a bulk
	// string; quoted inside an array), a hash field named by the value
	// (a key event's "value=count" rendering).
	var quoted *strings.Replacer
	qpairs := make([]string, 0, 2*len(olds))
	for _, o := range olds {
		qpairs = append(qpairs, strconv.Quote(o), strconv.Quote(names[o]))
	}
	quoted = strings.NewReplacer(qpairs...)
	value := func(s string) string {
		if s == "" {
			return s
		}
		if n, ok := names[s]; ok {
			return n
		}
		if !strings.Contains(s, "=") {
			return s
		}
		parts := strings.Split(s, ",")
		changed := false
		for i, p := range parts {
			if k, rest, ok := strings.Cut(p, "="); ok {
				if n, ok := names[k]; ok {
					parts[i], changed = n+"="+rest, true
				}
			}
		}
		if !changed {
			return s
		}
		return strings.Join(parts, ",")
	}
	reply := func(s string) string {
		if n, ok := names[s]; ok {
			return n // a status reply
		}
		if strings.Contains(s, `"`) {
			return quoted.Replace(s)
		}
		return s
	}
	for i := range h {
		e := &h[i]
		e.Value, e.Reply = value(e.Value), reply(e.Reply)
		if n, ok := names[e.Note]; ok {
			e.Note = n
		}
		var args []string
		from := -1 // valueArgsFrom, once an argument is a value
		for j, a := range e.Args {
			n, ok := names[a]
			if !ok {
				continue
			}
			if from < 0 {
				from = valueArgsFrom(e.Args)
			}
			if j < from {
				continue
			}
			if args == nil {
				args = slices.Clone(e.Args) // the world may share the slice
			}
			args[j] = n
		}
		if args != nil {
			e.Args = args
		}
	}
}

// valueArgsFrom returns the first argument of a command that may be a
// lock value: an EVAL's ARGV (not its script, key count or keys), any
// other command's arguments after its key.
func valueArgsFrom(args []string) int {
	if len(args) > 2 && isScriptCall(args[0]) {
		if n, err := strconv.Atoi(args[2]); err == nil && n >= 0 {
			return 3 + n
		}
		return len(args)
	}
	return 2
}

// isScriptCall reports whether a command name is EVAL, EVALSHA, EVAL_RO,
// EVALSHA_RO, FCALL or FCALL_RO, in any case (without the copy
// strings.ToUpper made of every event's command).
func isScriptCall(name string) bool {
	if len(name) < 4 || len(name) > 10 || (name[0]|0x20 != 'e' && name[0]|0x20 != 'f') {
		return false
	}
	for _, c := range [...]string{"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"} {
		if strings.EqualFold(name, c) {
			return true
		}
	}
	return false
}

// unseedable says, for a run's history, which library linked into it
// draws randomness that changes timing from a source nothing can seed
// (the client announced it with CLIENT SETINFO LIB-NAME), and what to set
// so that its runs replay; "" for none. Lock values need nothing: they
// are renamed (renameValues).
func unseedable(h sim.History) string {
	for _, e := range h {
		if e.Kind == sim.KindCall && len(e.Args) == 4 && strings.EqualFold(e.Args[0], "CLIENT") && strings.EqualFold(e.Args[1], "SETINFO") &&
			strings.EqualFold(e.Args[2], "LIB-NAME") && strings.HasPrefix(e.Args[3], "rueidis") {
			return "rueidis draws its retry delay's jitter from math/rand/v2, which nothing can seed: a run in which a command is retried (a lost reply, a reset) may replay with other timings, unless the setup sets rueidis.ClientOption.RetryDelay"
		}
	}
	return ""
}
