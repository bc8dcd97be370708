package realclient

import (
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

	// Guarded by d.mu.
	paused bool
	dead   bool          // crashed: this incarnation never acts again (paused for good)
	resume chan struct{} // closed when a pause ends
	// The current acquisition, as seen in the commands sent.
	acquiring bool
	value     string
	// holding: between the acquired record and the release record (the
	// lock's commands then are its extensions); releasing: inside Unlock.
	holding, releasing bool
	grants             map[string]bool
	recSeq             map[string]uint64 // records posted, by task
	live               map[string]int    // go-redis connections open or being dialed, by group
	poolSize           int               // the smallest go-redis PoolSize of the process's clients

	connList []*conn     // governor only
	exited   bool        // governor only: the program's exit was handed
	closers  []io.Closer // the program's own clients: closed when it ends
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
	return &xproc{d: d, name: name, idx: idx, key: key, resume: make(chan struct{})}
}

func (p *xproc) addConn(c *conn) { p.connList = append(p.connList, c) }
func (p *xproc) conns() []*conn  { return p.connList }

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
		p.wait(&action{kind: actRecord, ev: e})
		return
	}
	if !p.d.ending.Load() {
		p.d.post(&action{p: p, kind: actRecord, ev: e})
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
	p.acquiring, p.value, p.grants = true, "", map[string]bool{}
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

// endAcquire stops watching and returns the value the library sent and
// the nodes whose last answer to a command carrying it was OK, sorted.
func (p *xproc) endAcquire() (string, []string) {
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	p.acquiring = false
	var nodes []string
	for n, ok := range p.grants {
		if ok {
			nodes = append(nodes, n)
		}
	}
	slices.Sort(nodes)
	return p.value, nodes
}

// noteCommand is called, under d.mu, for every command the process
// writes; it returns what to remember until the command's reply and which
// placement event the command marks (see sendMark).
func (p *xproc) noteCommand(args []string) *cmdInfo {
	switch {
	case p.acquiring:
		v := lockValue(args, p.key)
		if v == "" {
			return nil
		}
		if p.value == "" {
			p.value = v
		}
		return &cmdInfo{acquire: true, value: v, mark: history.KindAcquireSend}
	case p.releasing && namesKey(args, p.key):
		return &cmdInfo{mark: history.KindReleaseSend}
	case p.holding && namesKey(args, p.key):
		return &cmdInfo{mark: history.KindExtendSend}
	}
	return nil
}

// noteGrant is called by the governor with the reply to a command that
// carried a lock value during an acquisition.
func (p *xproc) noteGrant(node string, info *cmdInfo, r resp.Reply) {
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	if !p.acquiring || info.value != p.value {
		return
	}
	p.grants[node] = r.Kind == resp.Status && r.Str == "OK"
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

// namesKey reports whether a command names key among its arguments (the
// lock's own commands: DEL lock, PEXPIRE lock, EVAL with lock in KEYS).
func namesKey(args []string, key string) bool {
	return len(args) > 1 && slices.Contains(args[1:], key)
}

// lockValue returns the value a command writes to key: SET/SETNX key
// value, or the first ARGV of an EVAL/EVALSHA whose KEYS include key.
func lockValue(args []string, key string) string {
	if len(args) < 3 {
		return ""
	}
	switch strings.ToUpper(args[0]) {
	case "SET", "SETNX":
		if args[1] == key {
			return args[2]
		}
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO":
		n, err := strconv.Atoi(args[2])
		if err != nil || n < 0 || 3+n >= len(args) {
			return ""
		}
		if slices.Contains(args[3:3+n], key) {
			return args[3+n]
		}
	}
	return ""
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
func (p *xproc) closeAtExit(c io.Closer) { p.closers = append(p.closers, c) }
