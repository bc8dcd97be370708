package sim

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
	"github.com/pkg/errors"

	"locksim/clock"
	"locksim/sim/resp"
	"locksim/sim/script"
)

type role uint8

const (
	roleStandalone role = iota
	rolePrimary
	roleReplica
)

// group is a replicated deployment: the sentinel's view of its primary.
type group struct {
	name    string
	primary string   // the current primary according to the sentinel
	members []string // every node ever in the group, config order
}

// node is one Redis server: a miniredis instance driven synchronously on
// the event loop's goroutine, with its own clock, role, replication state
// and persistence.
type node struct {
	w     *World
	name  string
	cfg   NodeConfig
	clock *clock.Clock
	m     *miniredis.Miniredis
	srv   *server.Server
	eng   *script.Engine
	conns map[string]*script.Conn
	// mSeed seeds the instance's generator before its first draw.
	mSeed   int
	mSeeded bool

	up          bool
	incarnation int // bumped by every crash; stale events check it
	role        role
	group       *group
	following   string // for a replica: the primary it replicates from

	// state is the last snapshot of the keyspace (kept when the node has
	// replicas or persistence); durable is what a crash keeps.
	state     snapshot
	durable   snapshot
	lastWrite time.Duration

	offset  int64            // primary: replication offset (entries sent)
	acks    map[string]int64 // primary: replica -> acknowledged offset
	waits   []*pendingWait   // primary: WAIT commands still blocked
	applied int64            // replica: last applied offset
	syncing string           // replica: the primary a full resync is on its way from

	// ackAt is, on a primary, each replica's last acknowledgement on the
	// node's wall clock (minreplicas.go).
	ackAt map[string]time.Duration

	watch map[string]time.Duration // key -> expiry on the node's wall clock
	vals  map[string]string        // key -> last recorded value
	why   string                   // cause of the key changes being recorded
	subs  map[string][]string      // channel -> subscribed clients (sorted)
	lim   keyspaceLimits           // the keyspace's size against its limits (limits.go)

	// touched is what commands changed since the last refresh of the
	// key watch (touched.go): the keys they named, or all of them.
	touched touchedKeys
	// cmds answers the hot path's questions about a command name
	// (cmdinfo.go), filled as names come.
	cmds map[string]*cmdInfo

	// stalled is set while the node's thread is blocked until stallEnd
	// (true time); waiting is what reached it meanwhile (stall.go).
	stalled  bool
	stallEnd time.Duration
	waiting  []func()
	// mctx and mrng serve a Machine node (machine.go), which has no
	// miniredis instance.
	mctx MachineCtx
	mrng *rand.Rand
	// clusterTop is the command a cluster node is running for a client,
	// clusterSlot the slot its keys (or its script's keys so far) hash
	// to, -1 none, and clusterAsking whether it came after ASKING
	// (cluster.go).
	clusterTop    string
	clusterSlot   int
	clusterAsking bool
	// ev and erng serve maxmemory and its eviction policy (evict.go).
	ev   evictState
	erng *rand.Rand
	// tracking is each connection's CLIENT TRACKING state, trackTable
	// the connections tracking each key, ids the connections' client ids
	// and trk the client command running (tracking.go).
	tracking   map[string]*trackState
	trackTable map[string][]string
	ids        map[string]int64
	trk        trackCmd
	// trackAccess: a memory-pressure fault names the node, which may cap
	// it later; its key accesses count from the start (pressure.go).
	trackAccess bool
}

func newNode(w *World, nc NodeConfig) (*node, error) {
	c, err := clock.New(nc.Clock)
	if err != nil {
		return nil, errors.Wrapf(err, "node %s", nc.Name)
	}
	n := &node{w: w, name: nc.Name, cfg: nc, clock: c, up: true,
		conns: map[string]*script.Conn{}, acks: map[string]int64{}, ackAt: map[string]time.Duration{},
		watch: map[string]time.Duration{}, vals: map[string]string{}, subs: map[string][]string{}}
	if nc.Machine != nil {
		n.mrng = w.rng("machine/" + nc.Name)
		return n, nil // booted by World.Start
	}
	if err := n.boot(); err != nil {
		return nil, err
	}
	return n, nil
}

// boot gives the node an empty miniredis instance (recycled, see
// takeInstance) and a script engine.
func (n *node) boot() error {
	n.release() // a restart: the old instance and its Lua state are free
	m, err := takeInstance()
	if err != nil {
		return errors.Wrapf(err, "node %s", n.name)
	}
	// miniredis's generator is seeded before the first command that draws
	// from it (preHook): seeding costs ~10us, a tenth of a short run, and
	// lock designs never draw.
	n.mSeed, n.mSeeded = int(n.w.rng("node/"+n.name).Int64N(1<<31)), false
	m.SetTime(n.w.wall(n.clock))
	m.ClockTTL(true)
	n.m, n.srv = m, m.Server()
	n.srv.SetPreHook(n.preHook)
	// Lua runs on a reused interpreter with a deterministic instruction
	// budget: an endless script errors instead of hanging the run.
	registerNodeCommands(n.srv)
	eng, err := script.NewEngine(m, script.Options{Seed: n.w.rng("lua/" + n.name).Uint64(), RunsAlone: runsAlone})
	if err != nil {
		return errors.Wrapf(err, "node %s", n.name)
	}
	n.eng = eng
	n.conns = map[string]*script.Conn{}
	n.cmds = nil // a new instance: its answers are read anew
	n.trackReset()
	n.touched = touchedKeys{all: true} // a new instance: the first refresh reads it whole
	n.ev = evictState{seq: n.ev.seq}   // a new instance: no access is known
	return nil
}

// release hands the node's instance and Lua state back for reuse.
func (n *node) release() {
	if n.eng != nil {
		n.eng.Release()
		n.eng = nil
	}
	putInstance(n.m)
	n.m, n.srv = nil, nil
}

// local returns the node's wall clock as a duration since clock.Epoch.
func (n *node) local() time.Duration { return n.clock.Local(n.w.now) }

// sync sets miniredis's clock to the node's wall clock; every access to
// the instance must come after it.
func (n *node) sync() { n.m.SetTime(n.w.wall(n.clock)) }

func (n *node) conn(client string) *script.Conn {
	c := n.conns[client]
	if c == nil {
		c = n.eng.NewConn()
		n.conns[client] = c
	}
	return c
}

// preHook sees every command before miniredis runs it, also when a Lua
// script or a MULTI issues it. It applies the Redis 7 rules miniredis
// lacks (redisrules.go: replicas refuse writes, SET's options, expiry
// overflows) and the keyspace limits (limits.go), intercepts what the
// simulator models itself (PUBLISH), refuses what would break determinism,
// and seeds miniredis's generator before its first use.
func (n *node) preHook(c *server.Peer, cmd string, args ...string) bool {
	ci := n.cmdInfoOf(cmd)
	n.touched.note(ci, cmd, args)
	n.trackStep(c, cmd, args)
	if !ci.known {
		// The release does not have it (version.go), or nor does
		// miniredis; node.handle gives a client's command this reply with
		// the name as sent, here it is upper case (MULTI, scripts).
		c.WriteError(msgUnknownCommand(cmd, args))
		return true
	}
	// A SET with a comparison and a replaced command come back here as
	// the SET or command miniredis runs, which is then charged.
	var cond setArgs
	switch msg, replace, isCond := n.checkRedisRules(ci, cmd, args, &cond); {
	case msg != "":
		c.WriteError(msg)
		return true
	case isCond:
		n.conditionalSet(c, args, cond)
		return true
	case replace != nil:
		n.srv.Dispatch(c, replace)
		return true
	}
	if n.w.cluster != nil && isScriptCommand(n.clusterTop) && !isScriptCommand(cmd) {
		if msg := n.w.cluster.scriptAccess(n, cmd, args); msg != "" {
			c.WriteError(msg)
			return true
		}
	}
	if msg := n.checkGrowth(c, ci, cmd, args); msg != "" {
		c.WriteError(msg)
		return true
	}
	if msg := n.noteAccess(ci, cmd, args); msg != "" {
		c.WriteError(msg)
		return true
	}
	if ci.node {
		n.runNodeCommand(c, cmd, args)
		return true
	}
	switch cmd {
	case "PUBLISH":
		if len(args) == 2 {
			c.WriteInt(n.publish(args[0]))
			return true
		}
	case "INFO":
		// Its counters describe the miniredis instance, which outlives a
		// run, not the simulated node.
		c.WriteError("ERR unknown command 'INFO': locksim does not support it (its counters describe the miniredis instance, not the simulated node)")
		return true
	case "HELLO":
		if !n.w.cfg.RESP3 {
			// RESP3 is off (Config.RESP3): go-redis and other clients
			// that try HELLO fall back to RESP2, as with a Redis before 6.
			c.WriteError("ERR unknown command 'HELLO': locksim's nodes speak RESP2 only")
			return true
		}
		n.hello(c, args)
		return true
	case "CLIENT":
		if n.clientTracking(c, args) {
			return true
		}
		// Client libraries announce their name and version on connect;
		// miniredis does not know CLIENT SETINFO.
		if len(args) > 0 && strings.EqualFold(args[0], "SETINFO") {
			c.WriteOK()
			return true
		}
	case "RANDOMKEY":
		// miniredis picks the key by Go map iteration order, which no
		// seed controls.
		c.WriteError("ERR unknown command 'RANDOMKEY': locksim does not support it (miniredis picks the key in Go map order, so the same seed would not give the same run)")
		return true
	case "SPOP", "SRANDMEMBER", "HRANDFIELD", "ZRANDMEMBER": // miniredis's randIntn and shuffle
		if !n.mSeeded {
			n.m.Seed(n.mSeed)
			n.mSeeded = true
		}
	}
	return false
}

// handle serves c, a request from client, and replies exactly once, now
// or later (WAIT blocks).
func (n *node) handle(client string, c *call) {
	if n.cfg.Machine != nil {
		n.handleMachine(client, c)
		return
	}
	if !n.up {
		n.w.sendReply(c, resp.Reply{}, ErrRefused)
		return
	}
	if n.stalled && n.whenServing(func() { n.handle(client, c) }) { // the closure only when stalled: one allocation per request otherwise
		return
	}
	args := c.args
	n.sync()
	cmd := strings.ToUpper(args[0])
	var r resp.Reply
	if n.w.cluster != nil {
		if n.w.cluster.holdWrite(n, client, c, cmd) {
			return // an atomic slot migration's write pause (cluster_migrate.go)
		}
		if r, done := n.w.cluster.route(n, c.connKey(client), cmd, args); done {
			c.rendered = recordedReply(r)
			n.w.recordBounded(&Event{Actor: n.name, Kind: KindExec, Local: n.local(), Peer: client, Args: args, Reply: c.rendered})
			n.w.sendReply(c, r, nil)
			return
		}
	}
	switch {
	case cmd == "WAIT":
		n.wait(client, c)
		return
	case cmd == "SUBSCRIBE" && len(args) == 2:
		n.subscribe(args[1], client)
		r = resp.OK
	default:
		// A replica refuses writes in preHook (redisrules.go), so that
		// MULTI and scripts see the refusal where Redis gives it.
		var ok bool
		if n.cfg.MaxMemory > 0 {
			if n.performEvictions(); !n.up {
				return // a fault triggered by an eviction crashed it
			}
		}
		n.trackBegin(c.connKey(client), c.s, cmd, args)
		r, ok = n.do(c.connKey(client), args)
		n.trackEnd()
		if !ok {
			return // the run stops: the instance is unusable
		}
		if r.Kind == resp.Error && cmd != args[0] && !n.knownCommand(cmd) {
			r = resp.ErrorReply(msgUnknownCommand(args[0], args[1:])) // the name as sent; the hook saw it upper case
		}
	}
	c.rendered = recordedReply(r)
	n.w.recordBounded(&Event{Actor: n.name, Kind: KindExec, Local: n.local(), Peer: client, Args: args, Reply: c.rendered})
	if !n.up {
		return // the node crashed right after executing (a triggered fault): no reply, nothing replicated
	}
	if !n.cmdInfoOf(cmd).readOnly && n.role != roleReplica {
		n.why = cmd
		n.trk.inCmd = true // its key changes were invalidated as they happened
		n.refreshTouched() // the keys the command named, not the whole keyspace
		n.trk.inCmd = false
		n.afterRefresh()
		if !n.up {
			return // a fault triggered by the write's key event crashed it: as above
		}
	}
	n.w.sendReply(c, r, nil)
	n.trackAfterReply(c.connKey(client))
}

// do runs one command on the node's instance for client. A few miniredis
// handlers panic on some arguments while holding the instance's lock
// (SSCAN with a negative cursor, for one); a panic outside a script would
// end the process, and one inside a script (which the script engine
// recovers) leaves the instance locked, so every later command would hang.
// Either way the run stops here with an error naming the command.
func (n *node) do(client string, args []string) (r resp.Reply, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			n.w.fail(errors.Errorf("node %s: miniredis panicked running %s (%v); the run cannot go on", n.name, quoteArgs(args), p))
			ok = false
		}
	}()
	r = n.conn(client).Do(args...)
	if !n.m.TryLock() {
		n.w.fail(errors.Errorf("node %s: a command inside %s panicked in miniredis and left the instance locked (%s); the run cannot go on", n.name, quoteArgs(args), r.String()))
		return r, false
	}
	n.m.Unlock()
	return r, true
}

// afterWrite updates expiry watches, replication and persistence after a
// command that may have changed the keyspace.
func (n *node) afterWrite() {
	n.refreshWatch()
	n.afterRefresh()
}

// afterRefresh is afterWrite after the key watch is refreshed: persistence
// and replication.
func (n *node) afterRefresh() {
	if !n.up || !n.keepsState() {
		return // crashed by a fault its key events triggered: nothing persists or replicates
	}
	cur := takeSnapshot(n.m, n.local())
	ops := diffSnapshots(n.state, cur)
	if len(ops) == 0 {
		return
	}
	n.persist(cur)
	n.state = cur
	if n.role == rolePrimary {
		n.replicate(ops)
	}
}

// keepsState reports whether the node needs keyspace snapshots.
func (n *node) keepsState() bool {
	return n.cfg.Persistence != PersistNone || (n.group != nil && len(n.group.members) > 1)
}

// persist records what a crash would keep after this write.
func (n *node) persist(cur snapshot) {
	switch n.cfg.Persistence {
	case PersistAlways:
		n.durable = cur
	case PersistEverySec:
		// fsync happens at every whole second of true time: the state
		// before this write was durable at the last boundary passed.
		if n.w.now/time.Second > n.lastWrite/time.Second {
			n.durable = n.state
		}
		n.lastWrite = n.w.now
	}
}

// refreshWatch records every change of a key's value on this node as an
// event (KindKey, or KindExpire when the key ran out of time), and
// schedules an expiry check for every key whose expiry changed. The
// history thus holds each key's lifetime on each node in true time.
// It reads the whole keyspace; after a client's command refreshTouched
// (touched.go) reads only the keys the command named, to the same effect.
func (n *node) refreshWatch() {
	n.touched.reset()
	now := n.local()
	keys := n.m.Keys() // sorted
	for _, k := range keys {
		v := valueOf(n.m, k)
		ttl := n.m.TTL(k)
		if old, ok := n.vals[k]; !ok || old != v {
			n.vals[k] = v
			n.w.record(&Event{Actor: n.name, Kind: KindKey, Local: now, Key: k, Value: v, Dur: ttl, Note: n.why})
			n.keyEvent(k, false)
		}
		if ttl <= 0 {
			delete(n.watch, k)
			continue
		}
		at := now + ttl
		if n.watch[k] != at {
			n.watch[k] = at
			n.scheduleCheck(k, at)
		}
	}
	if len(n.vals) == len(keys) {
		return // every recorded key is still there: vals holds no others
	}
	for _, k := range sortedKeys(n.vals) {
		if _, ok := slices.BinarySearch(keys, k); ok {
			continue
		}
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
}

// valueOf renders a key's value for KindKey events: a string as is, a hash
// as "f1=v1,f2=v2" sorted by field, other types by their type name.
func valueOf(m *miniredis.Miniredis, k string) string {
	switch t := m.Type(k); t {
	case "string":
		v, _ := m.Get(k)
		return v
	case "hash":
		fs, _ := m.HKeys(k)
		slices.Sort(fs)
		var b strings.Builder
		for i, f := range fs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f + "=" + m.HGet(k, f))
		}
		return b.String()
	default:
		return "(" + t + ")"
	}
}

// forget records that every key on this node is gone (the node crashed).
func (n *node) forget(why string) {
	for _, k := range sortedKeys(n.vals) {
		n.w.record(&Event{Actor: n.name, Kind: KindKey, Local: n.local(), Key: k, Note: why})
	}
	n.vals = map[string]string{}
	n.watch = map[string]time.Duration{}
}

// scheduleCheck runs an expiry check when the node's wall clock reaches at.
func (n *node) scheduleCheck(k string, at time.Duration) {
	t, ok := n.clock.TrueForLocal(n.w.now, at, n.w.cfg.Limits.MaxTime)
	if !ok {
		return // never expires within the run
	}
	inc := n.incarnation
	n.w.schedule(t, func() {
		if !n.up || n.incarnation != inc || n.watch[k] != at || n.stalled {
			return // a stalled node drops expired keys at its resume
		}
		n.sync()
		if n.role == roleReplica {
			return
		}
		n.why = "expire"
		n.afterWrite() // the key is gone by now: records the expiry, propagates DEL
	})
}

// rescheduleWatch recomputes every expiry check after a clock change; keys
// the change expired at once are recorded as expired.
func (n *node) rescheduleWatch() {
	for k := range n.watch {
		n.watch[k] = -1 // differs from any recomputed expiry: forces a new check
	}
	if n.stalled {
		return // the resume finds the keys the new clock expired (stall.go)
	}
	n.why = "clock change"
	n.afterWrite()
}

// jumpClock steps the node's wall clock. Redis stores absolute expiry
// times, so a backward jump lengthens every TTL in true time; miniredis
// keeps TTLs relative, so the node adds the step back to each TTL.
// The clock-jump event is recorded as the clock steps, before the
// expiries the step causes (cause before effect in the history).
func (n *node) jumpClock(by time.Duration) {
	jumped := func() { n.w.record(&Event{Actor: n.name, Kind: KindClockJump, Local: n.local(), Dur: by}) }
	if !n.up || n.cfg.Machine != nil {
		n.clock.AddJump(clock.Jump{At: n.w.now, By: by}) // a down node only has its clock moved
		jumped()
		return
	}
	n.sync() // tick to the old time first
	n.m.Keys()
	n.clock.AddJump(clock.Jump{At: n.w.now, By: by})
	jumped()
	n.sync()
	if by < 0 && n.role != roleReplica {
		for _, k := range n.m.Keys() {
			if ttl := n.m.TTL(k); ttl > 0 {
				n.m.SetTTL(k, ttl-by)
			}
		}
	}
	n.rescheduleWatch()
}

// setRate changes the node's clock rate from now on.
func (n *node) setRate(ppm int64) {
	if !n.up || n.cfg.Machine != nil {
		_ = n.clock.SetRatePPM(n.w.now, ppm)
		return
	}
	n.sync()
	n.m.Keys()
	_ = n.clock.SetRatePPM(n.w.now, ppm) // validated with the fault
	n.sync()
	n.rescheduleWatch()
}

// evict removes key if it has a TTL, as a volatile-* policy would.
func (n *node) evict(key string) bool {
	if !n.up || n.cfg.Machine != nil {
		return false
	}
	n.sync()
	if n.m.TTL(key) <= 0 {
		return false
	}
	n.m.Del(key)
	n.w.record(&Event{Actor: n.name, Kind: KindEvict, Local: n.local(), Key: key})
	n.keyEvent(key, true)
	n.why = "evicted"
	n.afterWrite()
	return true
}

// crash stops the node. Blocked WAITs die with it.
func (n *node) crash(downFor time.Duration) {
	if !n.up {
		return
	}
	if n.cfg.Persistence == PersistEverySec && n.w.now/time.Second > n.lastWrite/time.Second {
		n.durable = n.state
	}
	n.up = false
	n.endStall()
	n.incarnation++
	n.syncing = ""
	n.waits = nil
	n.subs = map[string][]string{}
	n.w.record(&Event{Actor: n.name, Kind: KindNodeCrash, Local: n.local(), Dur: downFor})
	if n.cfg.Machine != nil {
		n.cfg.Machine.Crash()
	}
	n.forget("node crashed")
	n.w.nodeCrashed(n) // streams to it reset (stream.go)
	if downFor > 0 {
		n.w.schedule(n.w.now+downFor, n.restart)
	}
	n.w.sentinel.reevaluate()
}

// restart brings the node back with what its persistence kept.
func (n *node) restart() {
	if n.up {
		return
	}
	if n.cfg.Machine != nil {
		n.up = true
		n.w.record(&Event{Actor: n.name, Kind: KindNodeUp, Local: n.local(), Note: "machine restarted from its own store"})
		n.bootMachine()
		return
	}
	if err := n.boot(); err != nil {
		n.w.fail(err)
		return
	}
	n.up = true
	n.watch = map[string]time.Duration{}
	n.ackAt = map[string]time.Duration{} // its replicas reconnect and resync
	kept := n.durable
	if n.cfg.Persistence == PersistNone {
		kept = nil
	}
	n.load(kept)
	n.state = kept
	n.w.record(&Event{Actor: n.name, Kind: KindNodeUp, Local: n.local(), N: int64(len(kept)), Note: "persistence " + string(n.cfg.Persistence)})
	n.why = "restart"
	n.refreshWatch()
	if n.role == rolePrimary && n.group != nil && n.group.primary == n.name {
		// A restarted primary starts a new replication history: its
		// replicas resync and take what it kept, empty without persistence
		// (the hazard Redis's replication docs warn about).
		for _, r := range n.replicas() {
			if r.up {
				r.requestSync(n)
			}
		}
	}
	if n.role == roleReplica {
		if p := n.w.nodes[n.following]; p != nil && p.up {
			n.requestSync(p)
		}
	}
	n.w.sentinel.reevaluate()
}

// publish delivers a pub/sub message to the subscribed clients and returns
// how many there were.
func (n *node) publish(channel string) int {
	subs := n.subs[channel]
	for _, c := range subs {
		p := n.w.procs[c]
		if p == nil {
			continue
		}
		inc := p.incarnation
		f := n.w.net.Send(n.name, c, n.w.now, false)
		if !f.Delivered {
			n.w.record(&Event{Actor: n.name, Kind: KindLost, Peer: c, Note: f.Why + " (message on " + channel + ")"})
			continue
		}
		n.w.schedule(f.At, func() { n.w.deliverMessage(p, channel, n.name, inc) })
	}
	return len(subs)
}

func (n *node) subscribe(channel, client string) {
	for _, c := range n.subs[channel] {
		if c == client {
			return
		}
	}
	n.subs[channel] = append(n.subs[channel], client)
}

func (n *node) unsubscribe(channel, client string) {
	s := n.subs[channel]
	for i, c := range s {
		if c == client {
			n.subs[channel] = append(s[:i:i], s[i+1:]...)
			return
		}
	}
}

// wait implements WAIT numreplicas timeout: it counts replicas whose
// acknowledged offset reached the primary's offset at the time of the
// call, blocking until enough did or the timeout (on the node's clock)
// passed. It never rolls anything back.
func (n *node) wait(client string, c *call) {
	args := c.args
	done := func(r resp.Reply) {
		c.rendered = recordedReply(r)
		n.w.recordBounded(&Event{Actor: n.name, Kind: KindExec, Local: n.local(), Peer: client, Args: args, Reply: c.rendered})
		n.w.sendReply(c, r, nil)
	}
	if len(args) != 3 {
		done(resp.ErrorReply("ERR wrong number of arguments for 'wait' command"))
		return
	}
	want, err1 := strconv.ParseInt(args[1], 10, 64)
	ms, err2 := strconv.ParseInt(args[2], 10, 64)
	if err1 != nil || err2 != nil {
		done(resp.ErrorReply("ERR value is not an integer or out of range"))
		return
	}
	if ms < 0 {
		done(resp.ErrorReply("ERR timeout is negative"))
		return
	}
	if n.role == roleReplica {
		done(resp.ErrorReply("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated."))
		return
	}
	pw := &pendingWait{target: n.offset, want: want, done: done}
	if got := n.acked(pw.target); got >= want {
		done(resp.IntReply(got))
		return
	}
	n.waits = append(n.waits, pw)
	if ms > 0 {
		inc := n.incarnation
		at := n.clock.TrueAfterMono(n.w.now, time.Duration(ms)*time.Millisecond)
		n.w.schedule(at, func() {
			if n.incarnation != inc || pw.finished {
				return
			}
			if n.whenServing(func() { n.waitTimedOut(pw) }) {
				return
			}
			n.waitTimedOut(pw)
		})
	}
}

// waitTimedOut answers a blocked WAIT whose timeout passed.
func (n *node) waitTimedOut(pw *pendingWait) {
	if pw.finished {
		return
	}
	pw.finished = true
	n.dropWait(pw)
	pw.done(resp.IntReply(n.acked(pw.target)))
}

type pendingWait struct {
	target, want int64
	done         func(resp.Reply)
	finished     bool
}

// acked counts current replicas that acknowledged at least offset.
func (n *node) acked(offset int64) int64 {
	var c int64
	for _, r := range n.replicas() {
		if n.acks[r.name] >= offset {
			c++
		}
	}
	return c
}

func (n *node) dropWait(pw *pendingWait) {
	for i, x := range n.waits {
		if x == pw {
			n.waits = append(n.waits[:i], n.waits[i+1:]...)
			return
		}
	}
}

// checkWaits releases blocked WAITs that are now satisfied.
func (n *node) checkWaits() {
	for _, pw := range append([]*pendingWait(nil), n.waits...) {
		if got := n.acked(pw.target); got >= pw.want && !pw.finished {
			pw.finished = true
			n.dropWait(pw)
			pw.done(resp.IntReply(got))
		}
	}
}
