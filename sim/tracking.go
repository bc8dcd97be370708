package sim

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2/server"

	"locksim/sim/resp"
)

// RESP3 and client-side-caching invalidations, as Redis 7.0 serves them
// (measured against redis-server 7.0.15; sim/testdata/redis/redis-7.0.txt
// and TestTrackingAgainstRedis):
//
//   - HELLO [2|3 [AUTH user pass] [SETNAME name]] switches a connection's
//     protocol and answers Redis's map (server, version, proto, id, mode,
//     role, modules); the connection's later replies are RESP3 (maps,
//     sets, doubles, the null). No password is configured, so AUTH
//     accepts the default user with any password, as Redis's nopass
//     default user does, and refuses any other user (WRONGPASS).
//   - CLIENT TRACKING ON [BCAST] [PREFIX p]... [OPTIN|OPTOUT] [NOLOOP] on
//     an external client's stream (a real library's connection): the keys
//     the connection reads (read-only commands, also inside a script or a
//     MULTI; OPTIN only after CLIENT CACHING YES, OPTOUT unless after
//     CLIENT CACHING NO) go into the node's tracking table; when a tracked
//     key is modified (a write that changes it, a successful EXPIRE or SET
//     even to the same value, a DEL), expires, is evicted or changes by
//     replication, every connection tracking it gets ">2 invalidate
//     [key]" and the key leaves the table (read it again to track it
//     again). The writer's own invalidations come after its reply
//     (Redis 7.0's pending invalidations), unless NOLOOP. BCAST sends
//     every modified key under a prefix (all keys without PREFIX), those
//     of one command in one push after its reply. FLUSHALL and FLUSHDB
//     send the flush push (">2 invalidate _") to every tracking
//     connection. Pushes travel the connection's stream like replies: a
//     partition delays them, a drop window loses them (and breaks the
//     stream, as a lost TCP segment does), a blackhole swallows them.
//     KindInvalidate records a push sent, KindPush one received.
//   - Not simulated, refused with the reason: REDIRECT (RESP2 tracking
//     through a __redis__:invalidate subscriber), tracking on a simulated
//     coroutine process (it has no stream for pushes). A RESP2 connection
//     may turn tracking on without REDIRECT, as Redis allows; like Redis,
//     the node then sends it nothing. Not modelled: the tracking table's
//     size limit (tracking-table-max-keys: Redis invalidates keys to make
//     room), BCAST's prefix-overlap checks, CLIENT CACHING's persistence
//     across a MULTI, keys read by commands whose keys the node cannot
//     name (touched.go's keyPlaces: a read of another command is not
//     tracked).

// trackState is one connection's CLIENT TRACKING state.
type trackState struct {
	bcast, optin, optout, noloop bool
	prefixes                     []string
	caching                      int8 // CLIENT CACHING YES (1) or NO (-1) for the next command
	s                            *stream
}

// trackCmd is what the node tracks about the client command it runs.
type trackCmd struct {
	conn    string // its connection, "" when no client command runs
	caching int8   // the CLIENT CACHING flag that applies to it
	// pend is the last write command's keys and their state before it,
	// settled at the next command or when the client's command ends.
	pend     []keyBefore
	pendCmd  string
	pendArgs []string
	// self are the keys whose invalidation the writer itself gets after
	// its reply; bcast the keys each BCAST connection gets then.
	self  []string
	flush bool // the writer gets the flush push after its reply
	bcast map[string][]string
	// inCmd is set while the node records the key changes of a client's
	// command, which were invalidated as they happened.
	inCmd  bool
	stream *stream
}

// keyBefore is a key's state before a write.
type keyBefore struct {
	key    string
	exists bool
	value  string
	ttl    time.Duration
}

// protocol returns the connection's RESP version.
func (n *node) resp3(conn string) bool {
	c := n.conns[conn]
	return c != nil && c.Peer().Resp3
}

// clientID returns the connection's id (HELLO's "id"), given in order of
// first use from 3, as a fresh redis-server gives its first client.
func (n *node) clientID(conn string) int64 {
	if n.ids == nil {
		n.ids = map[string]int64{}
	}
	id, ok := n.ids[conn]
	if !ok {
		id = int64(len(n.ids)) + 3
		n.ids[conn] = id
	}
	return id
}

// hello answers HELLO as Redis 7.0 does (see above).
func (n *node) hello(c *server.Peer, args []string) {
	proto := 2
	if c.Resp3 {
		proto = 3
	}
	setName := ""
	if len(args) > 0 {
		v, err := strconv.Atoi(args[0])
		if err != nil || strconv.Itoa(v) != args[0] {
			c.WriteError("ERR Protocol version is not an integer or out of range")
			return
		}
		if v != 2 && v != 3 {
			c.WriteError("NOPROTO unsupported protocol version")
			return
		}
		// The options in order, each checked as it comes (7.0.15).
		for i := 1; i < len(args); i++ {
			opt := args[i]
			switch {
			case strings.EqualFold(opt, "AUTH") && i+2 < len(args):
				if args[i+1] != "default" {
					c.WriteError("WRONGPASS invalid username-password pair or user is disabled.")
					return
				}
				i += 2
			case strings.EqualFold(opt, "SETNAME") && i+1 < len(args):
				setName = args[i+1]
				for _, ch := range []byte(setName) {
					if ch < '!' || ch > '~' {
						c.WriteError("ERR Client names cannot contain spaces, newlines or special characters.")
						return
					}
				}
				i++
			default:
				c.WriteError("ERR Syntax error in HELLO option '" + opt + "'")
				return
			}
		}
		proto = v
	}
	if setName != "" {
		c.ClientName = setName
	}
	c.Resp3 = proto == 3
	mode, role := "standalone", "master"
	if n.w.cluster != nil {
		mode = "cluster"
	}
	if n.role == roleReplica {
		role = "replica"
	}
	c.Block(func(w *server.Writer) {
		w.WriteMapLen(7)
		w.WriteBulk("server")
		w.WriteBulk(n.w.version.Flavor)
		w.WriteBulk("version")
		w.WriteBulk(n.w.version.Release())
		w.WriteBulk("proto")
		w.WriteInt(proto)
		w.WriteBulk("id")
		w.WriteInt(int(n.clientID(n.trk.conn)))
		w.WriteBulk("mode")
		w.WriteBulk(mode)
		w.WriteBulk("role")
		w.WriteBulk(role)
		w.WriteBulk("modules")
		w.WriteLen(0)
	})
}

// clientTracking serves CLIENT TRACKING, CACHING and TRACKINGINFO (args
// after CLIENT); it reports false for the other CLIENT subcommands.
func (n *node) clientTracking(c *server.Peer, args []string) bool {
	if len(args) == 0 {
		return false
	}
	sub := strings.ToUpper(args[0])
	st := n.tracking[n.trk.conn]
	if n.trk.conn == "" {
		st = nil
	}
	switch sub {
	case "TRACKING":
		n.clientTrackingOnOff(c, args[1:], st)
	case "CACHING":
		if len(args) != 2 {
			c.WriteError("ERR wrong number of arguments for 'client|caching' command")
			return true
		}
		if st == nil {
			c.WriteError("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
			return true
		}
		switch strings.ToLower(args[1]) {
		case "yes":
			if !st.optin {
				c.WriteError("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
				return true
			}
			st.caching = 1
		case "no":
			if !st.optout {
				c.WriteError("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
				return true
			}
			st.caching = -1
		default:
			c.WriteError("ERR syntax error")
			return true
		}
		c.WriteOK()
	case "TRACKINGINFO":
		if len(args) != 1 {
			c.WriteError("ERR wrong number of arguments for 'client|trackinginfo' command")
			return true
		}
		var flags []string
		redirect := -1
		var prefixes []string
		if st == nil {
			flags = []string{"off"}
		} else {
			redirect = 0
			flags = []string{"on"}
			for _, f := range []struct {
				on   bool
				name string
			}{{st.bcast, "bcast"}, {st.optin, "optin"}, {st.optout, "optout"}, {st.caching == 1, "caching-yes"}, {st.caching == -1, "caching-no"}, {st.noloop, "noloop"}} {
				if f.on {
					flags = append(flags, f.name)
				}
			}
			prefixes = st.prefixes
		}
		c.Block(func(w *server.Writer) {
			w.WriteMapLen(3)
			w.WriteBulk("flags")
			w.WriteSetLen(len(flags))
			for _, f := range flags {
				w.WriteBulk(f)
			}
			w.WriteBulk("redirect")
			w.WriteInt(redirect)
			w.WriteBulk("prefixes")
			w.WriteLen(len(prefixes))
			for _, p := range prefixes {
				w.WriteBulk(p)
			}
		})
	default:
		return false
	}
	return true
}

// msgNoRedirect and msgNoStream refuse what the nodes do not simulate.
const (
	msgNoRedirect = "ERR locksim: CLIENT TRACKING REDIRECT is not simulated (RESP2 invalidations through a __redis__:invalidate subscriber); switch the connection to RESP3 (HELLO 3), whose invalidations are"
	msgNoStream   = "ERR locksim: CLIENT TRACKING is simulated on the streams of external clients (real libraries) only: a simulated coroutine process has no connection for the pushes"
)

func (n *node) clientTrackingOnOff(c *server.Peer, args []string, st *trackState) {
	if len(args) == 0 {
		c.WriteError("ERR wrong number of arguments for 'client|tracking' command")
		return
	}
	var on trackState
	for i := 1; i < len(args); i++ {
		switch strings.ToUpper(args[i]) {
		case "REDIRECT":
			if i+1 >= len(args) {
				c.WriteError("ERR syntax error")
				return
			}
			c.WriteError(msgNoRedirect)
			return
		case "BCAST":
			on.bcast = true
		case "OPTIN":
			on.optin = true
		case "OPTOUT":
			on.optout = true
		case "NOLOOP":
			on.noloop = true
		case "PREFIX":
			if i+1 >= len(args) {
				c.WriteError("ERR syntax error")
				return
			}
			i++
			on.prefixes = append(on.prefixes, args[i])
		default:
			c.WriteError("ERR syntax error")
			return
		}
	}
	switch strings.ToLower(args[0]) {
	case "on":
		switch {
		case len(on.prefixes) > 0 && !on.bcast:
			c.WriteError("ERR PREFIX option requires BCAST mode to be enabled")
			return
		case on.bcast && (on.optin || on.optout):
			c.WriteError("ERR OPTIN and OPTOUT are not compatible with BCAST")
			return
		case on.optin && on.optout:
			c.WriteError("ERR You can't specify both OPTIN mode and OPTOUT mode")
			return
		case st != nil && st.bcast != on.bcast:
			c.WriteError("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
			return
		case st != nil && (st.optin != on.optin || st.optout != on.optout):
			c.WriteError("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
			return
		case n.trk.conn == "" || n.trk.stream == nil:
			c.WriteError(msgNoStream)
			return
		}
		if st != nil {
			on.prefixes = append(st.prefixes, on.prefixes...)
			slices.Sort(on.prefixes)
			on.prefixes = slices.Compact(on.prefixes)
		}
		on.s = n.trk.stream
		if n.tracking == nil {
			n.tracking = map[string]*trackState{}
		}
		n.tracking[n.trk.conn] = &on
	case "off":
		delete(n.tracking, n.trk.conn)
	default:
		c.WriteError("ERR syntax error")
		return
	}
	c.WriteOK()
}

// trackStep runs in preHook before each command (a client's, a script's,
// a MULTI's) while a client's command runs and tracking is on somewhere:
// it settles the previous write's invalidations, then remembers the
// keys this command reads, or notes the keys this write may change.
func (n *node) trackStep(c *server.Peer, cmd string, args []string) {
	if n.trk.conn == "" || len(n.tracking) == 0 || n.eng.Validating(c) {
		return
	}
	n.settleWrite()
	switch cmd {
	case "FLUSHALL", "FLUSHDB":
		n.invalidateAll()
		return
	case "CLIENT", "HELLO", "MULTI", "EXEC", "DISCARD", "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "SCRIPT", "FUNCTION", "FCALL", "FCALL_RO":
		return
	}
	keys, known := commandKeys(cmd, args)
	if n.m.IsReadOnlyCommand(cmd) {
		st := n.tracking[n.trk.conn]
		if st == nil || st.bcast || !known || (st.optin && n.trk.caching != 1) || (st.optout && n.trk.caching == -1) {
			return
		}
		for _, k := range keys {
			n.remember(k, n.trk.conn)
		}
		return
	}
	if !known {
		keys = n.trackedKeys()
	}
	n.trk.pendCmd, n.trk.pendArgs = cmd, args
	n.trk.pend = n.trk.pend[:0]
	for _, k := range keys {
		n.trk.pend = append(n.trk.pend, n.keyState(k))
	}
}

// commandKeys returns the keys a command names (touched.go's keyPlaces).
func commandKeys(cmd string, args []string) ([]string, bool) {
	p, ok := keyPlaces[cmd]
	if !ok {
		return nil, false
	}
	switch {
	case p.first < 0 || p.first >= len(args):
		return nil, true
	case p.step == 0:
		return args[p.first : p.first+1], true
	}
	var out []string
	for i := p.first; i < len(args); i += p.step {
		out = append(out, args[i])
	}
	return out, true
}

// trackedKeys returns every key a write that names its keys in no known
// place may change and a connection would be told of: those in the
// tracking table, and with a BCAST connection the whole keyspace.
func (n *node) trackedKeys() []string {
	for _, st := range n.tracking {
		if st.bcast {
			return n.m.Keys()
		}
	}
	return sortedKeys(n.trackTable)
}

func (n *node) keyState(k string) keyBefore {
	if !n.m.Exists(k) {
		return keyBefore{key: k}
	}
	return keyBefore{key: k, exists: true, value: valueOf(n.m, k), ttl: n.m.TTL(k)}
}

// settleWrite invalidates the keys the last write modified: those whose
// existence, value or TTL changed, and those a SET wrote or an EXPIRE
// set, which Redis signals even when nothing changed.
func (n *node) settleWrite() {
	if n.trk.pendCmd == "" {
		return
	}
	cmd, args := n.trk.pendCmd, n.trk.pendArgs
	n.trk.pendCmd, n.trk.pendArgs = "", nil
	var changed []string
	for _, b := range n.trk.pend {
		a := n.keyState(b.key)
		switch {
		case a != b:
		case !a.exists:
			continue
		case cmd == "SET" && !hasOption(args, "NX") && !hasOption(args, "XX"), cmd == "SET" && hasOption(args, "XX"),
			cmd == "MSET", cmd == "SETEX", cmd == "PSETEX", cmd == "GETSET":
		case (cmd == "EXPIRE" || cmd == "PEXPIRE" || cmd == "EXPIREAT" || cmd == "PEXPIREAT") && len(args) == 2:
		default:
			continue
		}
		if !slices.Contains(changed, b.key) {
			changed = append(changed, b.key)
		}
	}
	n.trk.pend = n.trk.pend[:0]
	for _, k := range changed {
		n.invalidate(k)
	}
}

// hasOption reports whether one of SET's options is w.
func hasOption(args []string, w string) bool {
	for _, a := range args[min(2, len(args)):] { // after SET's key and value
		if strings.EqualFold(a, w) {
			return true
		}
	}
	return false
}

// remember puts key in the tracking table for conn.
func (n *node) remember(key, conn string) {
	if n.trackTable == nil {
		n.trackTable = map[string][]string{}
	}
	cs := n.trackTable[key]
	if i, found := slices.BinarySearch(cs, conn); !found {
		n.trackTable[key] = slices.Insert(cs, i, conn)
	}
}

// invalidate tells every connection tracking key that it changed, and
// takes it out of the table. The connection whose command changed it is
// told after its reply (or not at all with NOLOOP).
func (n *node) invalidate(key string) {
	if len(n.tracking) == 0 {
		return
	}
	for _, conn := range n.trackTable[key] {
		st := n.tracking[conn]
		if st == nil || st.bcast {
			continue
		}
		if conn == n.trk.conn {
			if !st.noloop {
				n.trk.self = append(n.trk.self, key)
			}
			continue
		}
		n.push(conn, st, []string{key})
	}
	delete(n.trackTable, key)
	for _, conn := range sortedKeys(n.tracking) {
		st := n.tracking[conn]
		if !st.bcast || !st.matches(key) || (st.noloop && conn == n.trk.conn) {
			continue
		}
		if n.trk.conn == "" {
			n.push(conn, st, []string{key})
			continue
		}
		if n.trk.bcast == nil {
			n.trk.bcast = map[string][]string{}
		}
		if !slices.Contains(n.trk.bcast[conn], key) {
			n.trk.bcast[conn] = append(n.trk.bcast[conn], key)
		}
	}
}

// invalidateAll is FLUSHALL's and FLUSHDB's: every tracking connection
// gets the flush push, the writer after its reply; the table empties.
func (n *node) invalidateAll() {
	for _, conn := range sortedKeys(n.tracking) {
		if conn == n.trk.conn {
			n.trk.flush = true
			continue
		}
		n.push(conn, n.tracking[conn], nil)
	}
	n.trackTable = nil
}

func (st *trackState) matches(key string) bool {
	if len(st.prefixes) == 0 {
		return true
	}
	for _, p := range st.prefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// trackBegin starts tracking a client's command on conn (stream s, nil
// for a coroutine process).
func (n *node) trackBegin(conn string, s *stream, cmd string, args []string) {
	n.trk.conn, n.trk.stream = conn, s
	n.trk.caching = 0
	if st := n.tracking[conn]; st != nil {
		n.trk.caching = st.caching
		if !(cmd == "CLIENT" && len(args) > 1 && strings.EqualFold(args[1], "CACHING")) {
			st.caching = 0
		}
	}
}

// trackEnd settles the command's last write; the writer's own pushes wait
// for trackAfterReply.
func (n *node) trackEnd() {
	if n.trk.conn != "" && len(n.tracking) > 0 {
		n.settleWrite()
	}
	n.trk.conn, n.trk.stream = "", nil
	n.trk.pend, n.trk.pendCmd, n.trk.pendArgs = n.trk.pend[:0], "", nil
}

// trackAfterReply sends the pushes that come after the command's reply:
// the writer's own invalidations, then each BCAST connection's keys.
func (n *node) trackAfterReply(conn string) {
	self, flush, bcast := n.trk.self, n.trk.flush, n.trk.bcast
	n.trk.self, n.trk.flush, n.trk.bcast = nil, false, nil
	if st := n.tracking[conn]; st != nil {
		for _, k := range self {
			n.push(conn, st, []string{k})
		}
		if flush {
			n.push(conn, st, nil)
		}
	}
	for _, c := range sortedKeys(bcast) {
		if st := n.tracking[c]; st != nil {
			n.push(c, st, bcast[c])
		}
	}
}

// keyEvent is called for every key change the node records: an expiry
// or an eviction (always) invalidates the key, another change (replication,
// a fault) when it is not a client command's, whose changes were
// invalidated as they happened.
func (n *node) keyEvent(key string, always bool) {
	if len(n.tracking) == 0 || !always && n.trk.inCmd {
		return
	}
	conn := n.trk.conn
	n.trk.conn = ""
	n.invalidate(key)
	n.trk.conn = conn
}

// push sends an invalidation to conn over its stream: keys, or nil for
// the flush push. A RESP2 connection gets nothing, as with Redis.
func (n *node) push(conn string, st *trackState, keys []string) {
	s := st.s
	if s == nil || s.broken || s.closed {
		delete(n.tracking, conn)
		return
	}
	if !n.resp3(conn) {
		return
	}
	body := resp.Reply{Kind: resp.NilBulk}
	if keys != nil {
		body = resp.Reply{Kind: resp.Array, Elems: make([]resp.Reply, len(keys))}
		for i, k := range keys {
			body.Elems[i] = resp.BulkReply(k)
		}
	}
	r := resp.Reply{Kind: resp.Push, Elems: []resp.Reply{resp.BulkReply("invalidate"), body}}
	note := ""
	if keys == nil {
		note = "flush"
	}
	n.w.record(&Event{Actor: n.name, Kind: KindInvalidate, Local: n.local(), Peer: s.x.p.name, Args: keys, N: int64(s.id), Note: note})
	s.pushInvalidation(r)
}

// trackReset forgets every connection's tracking (the node restarted).
func (n *node) trackReset() {
	n.tracking, n.trackTable, n.ids = nil, nil, nil
	n.trk = trackCmd{}
}
