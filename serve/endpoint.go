package serve

import (
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pkg/errors"

	"locksim/model"
	"locksim/sim"
	"locksim/sim/resp"
)

// Topology is the simulated deployment behind the endpoint.
type Topology struct {
	// Masters is the number of independent groups (Redlock masters).
	// Default 1.
	Masters int
	// Replicas per group. With replicas, a Sentinel-style failover
	// promotes a replica DownAfter after its primary became unreachable
	// (a node-crash fault), and connections made after the clients learn
	// of it reach the new primary.
	Replicas int
	// DownAfter is the sentinel's down-after; default 1s.
	DownAfter time.Duration
}

// Options configure one endpoint (one run).
type Options struct {
	Topology Topology
	// Clients are the client processes' names: each has its own
	// addresses, one per group, so that faults can tell them apart.
	Clients []string
	// Faults are sim faults scheduled at a time (`at T`); pause faults on
	// a client are carried out on its process by SIGSTOP and SIGCONT
	// (Pids), every other kind by the simulated nodes and network.
	Faults []sim.Fault
	// Port is the first port to listen on (127.0.0.1); the others follow
	// it. 0: the system picks each.
	Port int
	// MaxTime stops the world there (a safety net; the run's own timeout
	// is the caller's).
	MaxTime time.Duration
	// Seed seeds the world's latencies; it does not make a run
	// reproducible (the clients run in real time).
	Seed uint64
}

// Endpoint is a loopback RESP endpoint onto a simulated world, run in
// real time: true time in the world is wall time since Start.
type Endpoint struct {
	opt    Options
	w      *sim.World
	t0     time.Time
	addrs  map[string][]string // client -> an address per group
	groups []string

	ops   chan func()
	stop  chan struct{}
	done  chan struct{}
	lns   []net.Listener
	conns map[uint64]*tconn // by stream id; loop goroutine only
	xs    map[string]*sim.External

	mu     sync.Mutex
	pids   map[string]int // client -> pid (a process group when pgid)
	pgid   map[string]bool
	faultL []string // what the endpoint did to the processes, wall-timed
	hist   sim.History
	err    error
	timers []*time.Timer
	// triggers are pauses waiting for a client's reported event (world
	// goroutine).
	triggers []*pauseTrigger
	watches  map[string]*logWatch // under mu
	exited   map[string]bool      // world goroutine
}

// Validate checks opt without opening anything.
func Validate(opt Options) error {
	_, err := opt.config()
	return err
}

// placeholder stands in for the design when the spec's simulation config
// is built: the clients are real programs outside the world.
type placeholder struct{}

func (placeholder) Name() string { return "serve" }
func (placeholder) TryAcquire(*model.Client, string) (model.Lease, bool, error) {
	panic("serve: placeholder design run")
}
func (placeholder) Release(*model.Client, *model.Lease) error {
	panic("serve: placeholder design run")
}

// config builds the world's configuration, refusing what a real-time
// endpoint cannot do.
func (opt Options) config() (sim.Config, error) {
	t := opt.Topology
	if t.Masters == 0 {
		t.Masters = 1
	}
	if t.Masters < 1 || t.Masters > 9 {
		return sim.Config{}, errors.Errorf("masters %d: want 1 to 9", t.Masters)
	}
	if t.Replicas < 0 || t.Replicas > 4 {
		return sim.Config{}, errors.Errorf("replicas %d: want 0 to 4", t.Replicas)
	}
	if t.DownAfter < 0 {
		return sim.Config{}, errors.New("down-after must not be negative")
	}
	if len(opt.Clients) == 0 {
		return sim.Config{}, errors.New("no client: name at least one")
	}
	seen := map[string]bool{}
	for _, c := range opt.Clients {
		if !validName(c) {
			return sim.Config{}, errors.Errorf("client name %q: want letters, digits, - or _ (at most 32)", c)
		}
		if seen[c] {
			return sim.Config{}, errors.Errorf("client %s named twice", c)
		}
		seen[c] = true
	}
	for i, f := range opt.Faults {
		if f.After != nil {
			if !seen[f.After.Actor] {
				return sim.Config{}, errors.Errorf("fault %d (%s): a trigger names a client's reported event (after A granted): %s is no client", i+1, f, f.After.Actor)
			}
			if _, ok := triggerKind(f.After.Kind); !ok || f.After.Task != "" || f.After.Since != "" {
				return sim.Config{}, errors.Errorf("fault %d (%s): serve's triggers are the events a client reports in its log: after CLIENT KIND [#N] [+D] with KIND one of acquire-attempt, granted, refused, renewed, released, lost, write (or acquire-start, acquired, acquire-failed, renew, lease-lost)", i+1, f)
			}
		}
		switch f.Kind {
		case sim.FaultPause:
			if !canSignal {
				return sim.Config{}, errors.Errorf("fault %d (%s): a pause stops the client's process with SIGSTOP, which this system does not have", i+1, f)
			}
			if !seen[f.Target] {
				return sim.Config{}, errors.Errorf("fault %d (%s): pause needs a client (%s)", i+1, f, strings.Join(opt.Clients, ", "))
			}
			if f.Dur <= 0 {
				return sim.Config{}, errors.Errorf("fault %d (%s): a pause needs a duration (for D)", i+1, f)
			}
		case sim.FaultCrash:
			return sim.Config{}, errors.Errorf("fault %d (%s): a client crash is not carried out by serve (kill the process in your workload)", i+1, f)
		case sim.FaultClockJump, sim.FaultClockDrift:
			if seen[f.Target] {
				return sim.Config{}, errors.Errorf("fault %d (%s): a real client runs on the machine's clock: serve changes node clocks only", i+1, f)
			}
		}
	}
	spec := model.Spec{Custom: placeholder{}, Clients: opt.Clients, Faults: simFaults(opt.Faults),
		Topology: model.Topology{Masters: t.Masters, Replicas: t.Replicas}}
	if t.Replicas > 0 {
		da := t.DownAfter
		if da == 0 {
			da = time.Second
		}
		spec.Topology.Sentinel = sim.SentinelConfig{Enabled: true, DownAfter: da, DiscoveryDelay: 100 * time.Millisecond}
	}
	rs, err := spec.Resolve()
	if err != nil {
		return sim.Config{}, err
	}
	// The limits are serve's own, set over the defaults (they change
	// neither the design, its traits nor the roster).
	lim := &rs.Spec.Limits
	lim.MaxTime = opt.MaxTime
	if lim.MaxTime <= 0 {
		lim.MaxTime = 10 * time.Minute
	}
	lim.MaxEvents = sim.DefaultMaxEvents
	cfg, err := rs.Config()
	if err != nil {
		return sim.Config{}, err
	}
	for i := range cfg.Clients {
		cfg.Clients[i].Main = nil
		cfg.Clients[i].External = true
	}
	return cfg, nil
}

func validName(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// simFaults are the faults the world carries out: all but client pauses,
// with their triggers in the world's kinds.
func simFaults(fs []sim.Fault) []sim.Fault {
	var out []sim.Fault
	for _, f := range fs {
		if f.Kind == sim.FaultPause {
			continue
		}
		if f.After != nil {
			t := *f.After
			t.Kind, _ = triggerKind(t.Kind)
			f.After = &t
		}
		out = append(out, f)
	}
	return out
}

// Start builds the world and opens the listeners: for each client, one
// address per group, in group order (m1, m2, ...).
func Start(opt Options) (*Endpoint, error) {
	cfg, err := opt.config()
	if err != nil {
		return nil, err
	}
	e := &Endpoint{opt: opt, addrs: map[string][]string{}, ops: make(chan func(), 256),
		stop: make(chan struct{}), done: make(chan struct{}), conns: map[uint64]*tconn{},
		xs: map[string]*sim.External{}, pids: map[string]int{}, pgid: map[string]bool{},
		watches: map[string]*logWatch{}, exited: map[string]bool{}}
	for _, g := range cfg.Groups {
		e.groups = append(e.groups, g.Name)
	}
	port := opt.Port
	for _, c := range opt.Clients {
		for range e.groups {
			addr := "127.0.0.1:0"
			if port > 0 {
				if port > 65535 {
					e.closeListeners()
					return nil, errors.Errorf("--port %d: the ports run past 65535", opt.Port)
				}
				addr = "127.0.0.1:" + strconv.Itoa(port)
				port++
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				e.closeListeners()
				return nil, errors.Wrapf(err, "listen on %s", addr)
			}
			e.lns = append(e.lns, ln)
			e.addrs[c] = append(e.addrs[c], ln.Addr().String())
		}
	}
	e.t0 = time.Now()
	cfg.Epoch = e.t0 // the nodes' wall clocks are the machine's
	w, err := sim.New(cfg, opt.Seed)
	if err != nil {
		e.closeListeners()
		return nil, err
	}
	e.w = w
	w.Start()
	for _, c := range opt.Clients {
		e.xs[c] = w.External(c)
	}
	i := 0
	for _, c := range opt.Clients {
		for _, g := range e.groups {
			go e.accept(e.lns[i], c, g)
			i++
		}
	}
	for _, f := range opt.Faults {
		if f.Kind != sim.FaultPause {
			continue
		}
		if f.After != nil {
			k, _ := triggerKind(f.After.Kind)
			e.triggers = append(e.triggers, &pauseTrigger{f: f, kind: k})
			continue
		}
		e.schedulePause(f)
	}
	go e.loop()
	return e, nil
}

// Addrs returns a client's addresses, one per group in order.
func (e *Endpoint) Addrs(client string) []string { return e.addrs[client] }

// Groups returns the groups' names, in the order of Addrs.
func (e *Endpoint) Groups() []string { return e.groups }

// SetPid names the process a client's pauses stop; group: pid is a
// process group's leader, and the whole group is signalled.
func (e *Endpoint) SetPid(client string, pid int, group bool) {
	e.mu.Lock()
	e.pids[client], e.pgid[client] = pid, group
	e.mu.Unlock()
}

func (e *Endpoint) now() time.Duration { return time.Since(e.t0) }

// Elapsed is the true time of the world now.
func (e *Endpoint) Elapsed() time.Duration { return e.now() }

func (e *Endpoint) note(format string, args ...any) {
	e.mu.Lock()
	e.faultL = append(e.faultL, fmt.Sprintf("%s endpoint  %s", sim.FormatTime(e.now()), fmt.Sprintf(format, args...)))
	e.mu.Unlock()
}

// schedulePause stops the client's process at true time f.At for f.Dur.
func (e *Endpoint) schedulePause(f sim.Fault) {
	sig := func(stop bool, name string) {
		e.mu.Lock()
		pid, grp := e.pids[f.Target], e.pgid[f.Target]
		e.mu.Unlock()
		if pid <= 0 {
			e.note("pause %s: no process to %s (it has not started or has exited)", f.Target, name)
			return
		}
		if err := signalProcess(pid, grp, stop); err != nil {
			e.note("pause %s: %s of pid %d failed: %v", f.Target, name, pid, err)
			return
		}
		e.note("pause %s: %s pid %d", f.Target, name, pid)
		kind := sim.KindResume
		if stop {
			kind = sim.KindPause
		}
		e.post(func() { // in the history too, in time order
			if x := e.xs[f.Target]; x != nil && !e.w.Done() && !e.exited[f.Target] {
				x.Record(sim.Event{Kind: kind, Dur: f.Dur, Note: name + " pid " + strconv.Itoa(pid)})
			}
		})
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	in := f.At - e.now() // f.At is true time: wall time since Start
	e.timers = append(e.timers,
		time.AfterFunc(in, func() { sig(true, "SIGSTOP") }),
		time.AfterFunc(in+f.Dur, func() { sig(false, "SIGCONT") }))
}

// post runs fn on the world's goroutine; false once the endpoint stopped.
func (e *Endpoint) post(fn func()) bool {
	select {
	case e.ops <- fn:
		return true
	case <-e.done:
		return false
	}
}

// loop is the one goroutine that touches the world: it runs the world's
// events when the wall clock reaches them and carries out the
// connections' operations at the wall time they arrive.
func (e *Endpoint) loop() {
	defer close(e.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		e.advance()
		wait := time.Hour
		if at, ok := e.w.NextAt(); ok {
			wait = max(at-e.now(), 0)
		}
		timer.Reset(wait)
		select {
		case fn := <-e.ops:
			e.advance()
			fn()
			e.effects()
		case <-timer.C:
		case <-e.stop:
			return
		}
	}
}

// advance runs the world up to the wall clock and carries out the effects.
func (e *Endpoint) advance() {
	if e.w.Done() {
		return
	}
	e.w.AdvanceTo(e.now())
	e.effects()
	if e.w.Done() && e.w.Err() != nil {
		e.mu.Lock()
		if e.err == nil {
			e.err = e.w.Err()
		}
		e.mu.Unlock()
		for _, c := range e.conns {
			c.reset()
		}
	}
}

func (e *Endpoint) effects() {
	for _, ef := range e.w.TakeEffects() {
		c := e.conns[ef.Stream]
		switch ef.Kind {
		case sim.EffectDialed:
			if c != nil {
				c.dialed()
			}
		case sim.EffectRefused, sim.EffectReset:
			if c != nil {
				c.reset()
			}
		case sim.EffectData:
			if c != nil {
				c.data(ef.Reply)
			}
		}
	}
}

// accept serves one listener: client's connections to group.
func (e *Endpoint) accept(ln net.Listener, client, group string) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		tc, ok := nc.(*net.TCPConn)
		if !ok {
			nc.Close()
			continue
		}
		c := &tconn{e: e, nc: tc, client: client}
		if !e.post(func() { c.open(group) }) {
			tc.Close()
			return
		}
	}
}

// tconn is one client TCP connection, a stream of the world.
type tconn struct {
	e        *Endpoint
	nc       *net.TCPConn
	client   string
	x        *sim.External
	id       uint64
	isOpen   bool
	gone     bool
	queued   [][]string // commands before the dial was answered
	slots    []*slot    // replies owed, in order
	channels map[string]bool
	patterns map[string]bool
}

// maxInFlight bounds the commands a connection may have sent without
// their replies: a client past it is cut off, so memory stays bounded.
const maxInFlight = 10000

type slot struct {
	ready bool
	b     []byte
	quit  bool
}

// open dials the group's primary (as this client believes it is) and
// starts reading commands.
func (c *tconn) open(group string) {
	x := c.e.xs[c.client]
	if x == nil || c.e.w.Done() {
		c.nc.SetLinger(0)
		c.nc.Close()
		return
	}
	c.x = x
	c.id = x.Dial(group)
	if c.id == 0 {
		c.nc.SetLinger(0)
		c.nc.Close()
		return
	}
	c.e.conns[c.id] = c
	go c.read()
}

// read parses commands and hands them to the world's goroutine.
func (c *tconn) read() {
	buf := make([]byte, 0, 4096)
	tmp := make([]byte, 32<<10)
	for {
		n, err := c.nc.Read(tmp)
		buf = append(buf, tmp[:n]...)
		for {
			args, used, perr := parseCommand(buf)
			if errors.Is(perr, errIncomplete) {
				break
			}
			if perr != nil {
				c.e.post(func() { c.protocolError(perr) })
				return
			}
			buf = buf[used:]
			if len(args) == 0 {
				continue
			}
			if !c.e.post(func() { c.command(args) }) {
				return
			}
		}
		if len(buf) > maxBulk+1<<20 {
			c.e.post(func() { c.protocolError(errors.New("a command larger than the endpoint takes")) })
			return
		}
		if err != nil {
			if err != io.EOF {
				err = nil
			}
			c.e.post(func() { c.closed() })
			return
		}
	}
}

func (c *tconn) protocolError(err error) {
	if c.gone {
		return
	}
	c.write(appendReply(nil, resp.ErrorReply("ERR Protocol error: "+err.Error())))
	c.closed()
}

// closed: the client closed its side (or we give up on it).
func (c *tconn) closed() {
	if c.gone {
		return
	}
	c.gone = true
	if !c.e.w.Done() {
		c.x.CloseStream(c.id)
	}
	c.nc.Close()
}

// reset breaks the connection as a peer's RST would.
func (c *tconn) reset() {
	if c.gone {
		return
	}
	c.gone = true
	c.nc.SetLinger(0)
	c.nc.Close()
}

func (c *tconn) dialed() {
	c.isOpen = true
	for _, args := range c.queued {
		c.x.Send(c.id, args)
	}
	c.queued = nil
}

func (c *tconn) data(r resp.Reply) {
	for _, s := range c.slots {
		if !s.ready {
			s.ready, s.b = true, appendReply(nil, r)
			break
		}
	}
	c.flush()
}

// flush writes the replies that are ready, in order.
func (c *tconn) flush() {
	var out []byte
	quit := false
	for len(c.slots) > 0 && c.slots[0].ready {
		out = append(out, c.slots[0].b...)
		quit = quit || c.slots[0].quit
		c.slots = c.slots[1:]
	}
	if len(out) > 0 {
		c.write(out)
	}
	if quit {
		c.closed()
	}
}

// write sends bytes to the client; a client that does not read them
// within 5s (a stopped process fills no socket buffer that fast) is cut off.
func (c *tconn) write(b []byte) {
	if c.gone {
		return
	}
	c.nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.nc.Write(b); err != nil {
		c.closed()
	}
}

func (c *tconn) local(r resp.Reply, quit bool) {
	c.slots = append(c.slots, &slot{ready: true, b: appendReply(nil, r), quit: quit})
	c.flush()
}

// command takes one command from the client. Pub/sub is answered here:
// the simulated nodes do not deliver messages to real connections, so a
// subscriber is confirmed and never hears a message (a waiter learns of a
// release by its own retry).
func (c *tconn) command(args []string) {
	if c.gone {
		return
	}
	cmd := strings.ToUpper(args[0])
	subscribed := len(c.channels)+len(c.patterns) > 0
	switch cmd {
	case "SUBSCRIBE", "PSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE":
		c.pubsub(cmd, args[1:])
		return
	case "QUIT":
		c.local(resp.OK, true)
		return
	case "PING":
		if subscribed {
			arg := ""
			if len(args) > 1 {
				arg = args[1]
			}
			c.local(resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.BulkReply("pong"), resp.BulkReply(arg)}}, false)
			return
		}
	}
	if subscribed {
		c.local(resp.ErrorReply("ERR Can't execute '"+strings.ToLower(args[0])+"': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"), false)
		return
	}
	if c.e.w.Done() {
		c.reset()
		return
	}
	if len(c.slots) >= maxInFlight {
		c.protocolError(errors.Errorf("more than %d commands in flight on one connection", maxInFlight))
		return
	}
	c.slots = append(c.slots, &slot{})
	if !c.isOpen {
		c.queued = append(c.queued, args)
		return
	}
	c.x.Send(c.id, args)
}

func (c *tconn) pubsub(cmd string, names []string) {
	if c.channels == nil {
		c.channels, c.patterns = map[string]bool{}, map[string]bool{}
	}
	set := c.channels
	kind := strings.ToLower(cmd)
	if strings.HasPrefix(cmd, "P") {
		set = c.patterns
	}
	add := !strings.Contains(cmd, "UNSUB")
	if !add && len(names) == 0 {
		for n := range set {
			names = append(names, n)
		}
		sort.Strings(names)
		if len(names) == 0 {
			c.local(resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.BulkReply(kind), {Kind: resp.NilBulk}, resp.IntReply(int64(len(c.channels) + len(c.patterns)))}}, false)
			return
		}
	}
	if add && len(names) == 0 {
		c.local(resp.ErrorReply("ERR wrong number of arguments for '"+kind+"' command"), false)
		return
	}
	for _, n := range names {
		if add {
			set[n] = true
		} else {
			delete(set, n)
		}
		c.local(resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.BulkReply(kind), resp.BulkReply(n), resp.IntReply(int64(len(c.channels) + len(c.patterns)))}}, false)
	}
}

// Exit tells the world a client's program has ended, after the rest of
// its log.
func (e *Endpoint) Exit(client, note string) {
	e.mu.Lock()
	lw := e.watches[client]
	e.mu.Unlock()
	if lw != nil {
		e.drain(lw)
	}
	e.post(func() {
		e.exited[client] = true
		if x := e.xs[client]; x != nil && !e.w.Done() {
			x.Exit(note)
		}
	})
}

// Close stops the endpoint: it closes every connection and listener, ends
// the clients still running in the world and returns the history the
// endpoint saw (the simulated nodes' and the connections' events) and
// what it did to the processes.
func (e *Endpoint) Close() (sim.History, []string, error) {
	e.mu.Lock()
	for _, t := range e.timers {
		t.Stop()
	}
	e.mu.Unlock()
	e.closeListeners()
	finished := make(chan struct{})
	if e.post(func() {
		for _, c := range e.conns {
			c.reset()
		}
		for _, name := range e.opt.Clients {
			if x := e.xs[name]; x != nil && !e.w.Done() && !e.exited[name] {
				e.exited[name] = true
				x.Exit("the endpoint closed")
			}
		}
		h, err := e.w.Finish()
		e.mu.Lock()
		e.hist = h
		if e.err == nil {
			e.err = err
		}
		e.mu.Unlock()
		close(finished)
	}) {
		<-finished
	}
	close(e.stop)
	<-e.done
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.hist, e.faultL, e.err
}

func (e *Endpoint) closeListeners() {
	for _, ln := range e.lns {
		ln.Close()
	}
}
