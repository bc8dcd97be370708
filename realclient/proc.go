package realclient

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

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
	resume chan struct{} // closed when a pause ends
	// The current acquisition, as seen in the commands sent.
	acquiring bool
	marked    bool // its first request was recorded as acquire-send
	value     string
	grants    map[string]bool
	recSeq    map[string]uint64 // records posted, by task
	live      map[string]int    // go-redis connections open or being dialed, by group
	poolSize  int               // the smallest go-redis PoolSize of the process's clients

	connList []*conn     // governor only
	exited   bool        // governor only: the program's exit was handed
	closers  []io.Closer // the program's own clients: closed when it ends
}

// KindAcquireSend is recorded by this package's driver, as the client
// process, right after the first command of an acquisition that carries
// the lock's value has left the process (Key, Peer: the node, Args), not
// counting an EVALSHA the node will answer NOSCRIPT (a library probing its
// script cache). A pause
// triggered by it starts between the lock request and its reply: the
// catalogue's "pause after A call" for a client whose first calls are its
// connection handshake.
const KindAcquireSend = "acquire-send"

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
	p.acquiring, p.marked, p.value, p.grants = true, false, "", map[string]bool{}
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
// writes; it returns what to remember until the command's reply.
func (p *xproc) noteCommand(args []string) *cmdInfo {
	if !p.acquiring {
		return nil
	}
	v := lockValue(args, p.key)
	if v == "" {
		return nil
	}
	if p.value == "" {
		p.value = v
	}
	return &cmdInfo{acquire: true, value: v}
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

// acquireCandidate reports whether a's command may be the acquisition's
// first lock request (KindAcquireSend): it carries the lock value and none
// was recorded yet. The governor records it if the node will run the
// command (sim.External.WouldRun: not an EVALSHA probe answered NOSCRIPT).
func (p *xproc) acquireCandidate(a *action) bool {
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	return a.info != nil && a.info.acquire && p.acquiring && !p.marked
}

// markSent notes that the acquisition's first lock request was recorded.
func (p *xproc) markSent() {
	p.d.mu.Lock()
	p.marked = true
	p.d.mu.Unlock()
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
