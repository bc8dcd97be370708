package realclient

import (
	"context"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"locksim/model/history"
	"locksim/sim"
	"locksim/sim/resp"
)

// xproc is the bubble side of one external client process: its pause
// state, its connections and what it has noticed of the current
// acquisition on the wire.
type xproc struct {
	d    *driver
	name string
	idx  int
	key  string
	// process is the client process the goroutine belongs to (name
	// itself unless WithGoroutines split it: "A" for "A.2"), goroutine
	// its number (0 when not split), incarnation how many times the
	// goroutine was restarted after a crash.
	process     string
	goroutine   int
	incarnation int

	// Guarded by d.mu.
	paused bool
	dead   bool          // crashed: this incarnation never acts again (paused for good)
	resume chan struct{} // closed when a pause ends
	// renewStarved: a starve fault of the watchdog task is under way: the
	// commands the process sends to extend its hold (extend-send) wait in
	// d.pending until it ends (heldByStarve).
	renewStarved bool
	// The current acquisition, as seen in the commands sent: the values
	// its commands wrote in the order first sent, each value's answers by
	// node/key (true: OK), and the last value a node granted.
	acquiring   bool
	acqCommands int // commands written during it
	values      []string
	answers     map[string]map[string]bool
	lastGranted string
	// sentAt is when the acquisition last wrote a command carrying each
	// value (its lock requests), for a declared deadline (workload.go).
	sentAt map[string]time.Time
	// lockKeys are the keys the current hold's value was written to (the
	// commands of its Extend and Unlock name them).
	lockKeys []string
	// holding: between the acquired record and the release record (the
	// lock's commands then are its extensions); releasing: inside Unlock.
	holding, releasing bool
	recSeq             map[string]uint64 // records posted, by task
	live               map[string]int    // go-redis connections open or being dialed, by group
	poolSize           int               // the smallest go-redis PoolSize of the process's clients

	// label is the id of the goroutine's pprof label (goroutineLabel),
	// labels its labels (shareconn.go).
	label  string
	labels context.Context
	// building is the store whose object the goroutine is building
	// (Env.Shared): a client it registers to close is the process's.
	building *sharedStore

	exited  bool              // governor only: the program's exit was handed
	closers []io.Closer       // the program's own clients: closed when it ends
	addrs   map[string]string // the process's own addresses (Env.Addr), by group
}

// KindAcquireSend is history.KindAcquireSend: recorded by this package's
// driver, as the client process, right after each lock request of an
// acquisition (a command that carries the lock's value and that the node
// will run: not an EVALSHA answered NOSCRIPT, a library probing its script
// cache) has left the process. A pause triggered by it starts between the
// lock request and its reply: the catalogue's "pause after A call" for a
// client whose first calls are its connection handshake.
const KindAcquireSend = history.KindAcquireSend

func newXproc(d *driver, name string, idx int, key string) *xproc {
	process, g := processOf(name, d.goroutines)
	return &xproc{d: d, name: name, idx: idx, key: key, process: process, goroutine: g, resume: make(chan struct{})}
}

// checkpoint blocks while the process is paused: a goroutine of a paused
// process stops at its next write, sleep or record.
func (p *xproc) checkpoint() {
	p.d.mu.Lock()
	if !p.paused {
		p.d.mu.Unlock()
		return
	}
	ch := p.resume
	p.d.mu.Unlock()
	<-ch
}

// wait posts a blocking action and waits for its outcome.
func (p *xproc) wait(a *action) outcome {
	if p.d.ending.Load() {
		return outcome{err: errEnded}
	}
	a.p = p
	a.done = make(chan outcome, 1)
	p.d.post(a)
	return <-a.done
}

// record appends an event to the history as the process. It waits for the
// world only when a fault trigger watches the process's events of that
// kind, so that a pause it starts takes hold before the process goes on;
// otherwise the event is queued in order with the process's other actions
// and the goroutine goes on at once.
func (p *xproc) record(e sim.Event) {
	if p.d.watched[p.name+"/"+string(e.Kind)] {
		p.wait(&action{kind: actRecord, ev: &e})
		return
	}
	if !p.d.ending.Load() {
		p.d.post(&action{p: p, kind: actRecord, ev: &e})
	}
}

// recordSeq numbers a task's records in program order (under d.mu).
func (p *xproc) recordSeq(task string) uint64 {
	if p.recSeq == nil {
		p.recSeq = map[string]uint64{}
	}
	p.recSeq[task]++
	return p.recSeq[task]
}

// sleep waits d of true time (the process's clock is the bubble's); the
// governor wakes it, after the process's pause if it is paused then.
func (p *xproc) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	p.wait(&action{kind: actSleep, at: p.d.now() + d})
}

// call sends one request to a service (the resource) and waits for the
// reply, at most timeout.
func (p *xproc) call(target string, timeout time.Duration, args ...string) (resp.Reply, error) {
	o := p.wait(&action{kind: actCall, node: target, args: args, timeout: timeout})
	return o.reply, o.err
}

// beginAcquire starts watching the wire for the acquisition's value and
// granting nodes.
func (p *xproc) beginAcquire() {
	p.d.mu.Lock()
	p.acquiring, p.acqCommands, p.values, p.answers, p.lastGranted = true, 0, nil, map[string]map[string]bool{}, ""
	p.sentAt = map[string]time.Time{}
	p.d.mu.Unlock()
}

// setPhase notes, for the driver's marks, that the process holds the lock
// (after its acquired record) or is inside Unlock (after its release
// record).
func (p *xproc) setPhase(holding, releasing bool) {
	p.d.mu.Lock()
	p.holding, p.releasing = holding, releasing
	p.d.mu.Unlock()
}

// acquisition is what the wire showed of one acquisition.
type acquisition struct {
	// value is the lock value: the last value a node granted (answered OK
	// to a command carrying it), else the last value sent.
	value string
	// grants are the node/key pairs whose last answer to a command
	// carrying value was OK, sorted; keys every key a command carrying
	// value named.
	grants []history.Grant
	keys   []string
	// others are the other values nodes granted during the acquisition
	// (a library that retries with a new value, or a second key written
	// with a value of its own), with their grants.
	others map[string][]history.Grant
	// commands is how many commands the process wrote during it.
	commands int
	// sentAt is when the last command carrying value was written (zero
	// when none did).
	sentAt time.Time
}

// endAcquire stops watching and returns what the acquisition wrote.
func (p *xproc) endAcquire() acquisition {
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	p.acquiring = false
	a := acquisition{value: p.lastGranted, commands: p.acqCommands}
	if a.value == "" && len(p.values) > 0 {
		a.value = p.values[len(p.values)-1]
	}
	a.sentAt = p.sentAt[a.value]
	granted := func(v string) []history.Grant {
		var gs []history.Grant
		for _, nk := range sortedKeys(p.answers[v]) {
			if p.answers[v][nk] {
				node, key, _ := strings.Cut(nk, "/")
				gs = append(gs, history.Grant{Node: node, Key: key})
			}
		}
		return gs
	}
	a.grants = granted(a.value)
	for _, nk := range sortedKeys(p.answers[a.value]) {
		_, key, _ := strings.Cut(nk, "/")
		if !slices.Contains(a.keys, key) {
			a.keys = append(a.keys, key)
		}
	}
	for _, v := range p.values {
		if gs := granted(v); v != a.value && len(gs) > 0 {
			if a.others == nil {
				a.others = map[string][]history.Grant{}
			}
			a.others[v] = gs
		}
	}
	p.answers = nil
	return a
}

// noteCommand is called, under d.mu, for every command the process
// writes; it returns what to remember until the command's reply and which
// placement event the command marks (see sendMark).
func (p *xproc) noteCommand(args []string) *cmdInfo {
	if p.acquiring {
		p.acqCommands++
	}
	switch {
	case p.acquiring:
		v, keys := lockWrite(args, p.d.keyPattern, p.d.valueArg)
		if v == "" {
			return nil
		}
		if !slices.Contains(p.values, v) {
			p.values = append(p.values, v)
		}
		p.sentAt[v] = time.Now() // the bubble's clock: the client's
		if p.d.sentValues == nil {
			p.d.sentValues = map[string]bool{}
		}
		p.d.sentValues[v] = true
		return &cmdInfo{acquire: true, value: v, keys: keys, mark: history.KindAcquireSend}
	case p.releasing && namesAny(args, p.lockKeys):
		return &cmdInfo{mark: history.KindReleaseSend}
	case p.holding && namesAny(args, p.lockKeys):
		return &cmdInfo{mark: history.KindExtendSend}
	}
	return nil
}

// noteGrant is called by the governor with the reply to a command that
// carried a lock value during an acquisition.
func (p *xproc) noteGrant(node string, info *cmdInfo, r resp.Reply) {
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	if !p.acquiring || p.answers == nil {
		return
	}
	ok := r.Kind == resp.Status && r.Str == "OK"
	m := p.answers[info.value]
	if m == nil {
		m = map[string]bool{}
		p.answers[info.value] = m
	}
	for _, k := range info.keys {
		m[node+"/"+k] = ok
	}
	if ok {
		p.lastGranted = info.value
	}
}

// sendMark returns the placement event a's command marks, if any: the
// lock requests of an acquisition (acquire-send, recorded right after the
// command left), the commands of Unlock that name the key (release-send,
// recorded right before each one leaves, so a pause it triggers holds the
// command back: inside release, before its first command or between two),
// and while holding, the commands that name the key (extend-send, task
// watchdog, right after they left: inside an extension). The generator
// and exhaustive mode place faults at these events (scenarios.Gen.Wire).
func sendMark(a *action, key string) (sim.Event, bool) {
	if a.info == nil || a.info.mark == "" {
		return sim.Event{}, false
	}
	e := sim.Event{Kind: a.info.mark, Key: key, Peer: a.c.node, Args: a.args}
	switch a.info.mark {
	case history.KindExtendSend:
		e.Task = "watchdog"
	case history.KindAcquireSend:
		e.Value = a.info.value
	}
	return e, true
}

// namesAny reports whether a command names one of keys among its
// arguments (the lock's own commands: DEL lock, PEXPIRE lock, EVAL with
// lock in KEYS).
func namesAny(args []string, keys []string) bool {
	if len(args) < 2 {
		return false
	}
	for _, k := range keys {
		if slices.Contains(args[1:], k) {
			return true
		}
	}
	return false
}

// lockWrite returns the value a command may write as a lock value and the
// keys it may write it to: SET/SETNX key value, SETEX/PSETEX key ttl
// value, or the first ARGV of an EVAL/EVALSHA (WithValueArg's) with the keys of its KEYS.
// Which of those keys took the value is read from the nodes after the
// run (discoverKeys). With a WithLockKeys pattern, only the keys that
// match it count.
func lockWrite(args []string, pattern string, valueArg int) (string, []string) {
	if len(args) < 3 {
		return "", nil
	}
	var v string
	var keys []string
	switch strings.ToUpper(args[0]) {
	case "SET", "SETNX":
		v, keys = args[2], args[1:2]
	case "SETEX", "PSETEX":
		if len(args) < 4 {
			return "", nil
		}
		v, keys = args[3], args[1:2]
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO":
		n, err := strconv.Atoi(args[2])
		i := 3 + n + max(valueArg-1, 0)
		if err != nil || n < 1 || i >= len(args) {
			return "", nil
		}
		v, keys = args[i], args[3:3+n]
	default:
		return "", nil
	}
	if pattern != "" {
		keys = slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return !matchKey(pattern, k) })
	}
	if v == "" || len(keys) == 0 {
		return "", nil
	}
	return v, keys
}

// exit ends the process's program; it is handed to the world even after
// the run ended, so that the governor counts the program as returned.
func (p *xproc) exit(note string) {
	a := &action{p: p, kind: actExit, note: note, done: make(chan outcome, 1)}
	p.d.post(a)
	<-a.done
}

// notePoolSize records a client's go-redis PoolSize (0: go-redis's default).
func (p *xproc) notePoolSize(n int) {
	if n <= 0 {
		n = 10 // what this package sets; go-redis's own default is larger
	}
	p.d.mu.Lock()
	if p.poolSize == 0 || n < p.poolSize {
		p.poolSize = n
	}
	p.d.mu.Unlock()
}

// connOpened and connClosed count a group's connections held or being
// dialed by go-redis. When they reach its PoolSize, go-redis may wait for
// a turn on a timer it takes from a process-wide pool (see clearPools).
func (p *xproc) connOpened(group string) {
	p.d.mu.Lock()
	if p.live == nil {
		p.live = map[string]int{}
	}
	p.live[group]++
	if p.live[group] >= p.poolSize {
		p.d.poolTimers.Store(true)
	}
	p.d.mu.Unlock()
}

func (p *xproc) connClosed(group string) {
	p.d.mu.Lock()
	p.live[group]--
	p.d.mu.Unlock()
}

// closeAtExit registers a client to close when the program ends (program
// goroutine only).
func (p *xproc) closeAtExit(c io.Closer) {
	if p.building != nil {
		p.building.closers = append(p.building.closers, c)
		return
	}
	p.closers = append(p.closers, c)
}

// heldByStarve reports (under d.mu) whether a is a command extending the
// process's hold while its watchdog is starved (a starve fault): it waits
// for the starvation's end, so the renewal leaves late while the rest of
// the process (the caller's work, its writes, its release) goes on. The
// command is recognised on the wire (extend-send: a command naming the
// lock's key while the process holds it), so every client the harness
// connects is starved alike, whichever goroutine of its library renews.
func heldByStarve(a *action) bool {
	return a.kind == actSend && a.p.renewStarved && a.info != nil && a.info.mark == history.KindExtendSend
}
