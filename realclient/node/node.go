package node

import (
	"bufio"
	"context"
	"embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pkg/errors"

	"locksim/realclient"
)

//go:embed js/bridge.cjs js/host.cjs
var bridgeFS embed.FS

// MinMajor is the oldest Node.js major release the bridge supports.
const MinMajor = 18

// Limits bound one Node process's run (a spin, a flood); Setup's defaults
// are DefaultLimits.
type Limits struct {
	// Callbacks is the most timer and immediate callbacks one incarnation
	// may run (a setInterval(f, 0) spin stops here).
	Callbacks int
	// Bytes is the most bytes one incarnation may write to its sockets.
	Bytes int
	// Steps is the most events the harness may deliver to one
	// incarnation.
	Steps int
}

// DefaultLimits are generous for a lock's workload: a run of a few dozen
// cycles takes a few hundred steps.
var DefaultLimits = Limits{Callbacks: 200000, Bytes: 16 << 20, Steps: 100000}

// Option changes how Setup runs the module.
type Option func(*options)

type options struct {
	limits    Limits
	resources bool // ask for process.getActiveResourcesInfo() after each step
	onStep    func(Step)
}

// WithLimits sets the limits of each incarnation.
func WithLimits(l Limits) Option { return func(o *options) { o.limits = l } }

// Step is one step as the harness saw it (WithStepHook, for tests).
type Step struct {
	Client string
	Event  string // the op delivered: setup, call, connected, data, error, eof, time
	Fn     string // a call's function: acquire, release, extend, until
	// Resources is process.getActiveResourcesInfo() after the step.
	Resources []string
}

// WithStepHook calls f after every step of every process with what the
// Node process reported, including its active libuv resources.
func WithStepHook(f func(Step)) Option {
	return func(o *options) { o.resources = true; o.onStep = f }
}

// Setup returns a realclient.Setup that runs the JavaScript lock module
// (a CommonJS .cjs/.js or an ES .mjs file exporting setup(env), see
// docs/node.md) in a Node.js process per simulated client process. The
// Node processes are kept warm across runs: a new incarnation resets the
// bridge (clock, timers, sockets, random generator) and calls setup again,
// so the module's code is loaded once per Go process.
func Setup(module string, opts ...Option) realclient.Setup {
	o := options{limits: DefaultLimits}
	for _, f := range opts {
		f(&o)
	}
	abs, absErr := filepath.Abs(module)
	return func(env realclient.Env) (realclient.Lock, error) {
		if absErr != nil {
			return nil, absErr
		}
		np, err := pool.get(abs, o)
		if err != nil {
			return nil, err
		}
		p := &proc{np: np, env: env, o: o, next: -1, gate: make(chan struct{}, 1), socks: map[int]*sock{}, calls: map[int]chan result{}, sleeps: map[int64]bool{}}
		env.CloseAtExit(p)
		wait := env.TTL // refined per call from the context's deadline
		r := p.call(msg{Op: "setup", Seed: strconv.FormatUint(seedOf(env), 10), Client: env.Client, Key: env.Key,
			TTL: env.TTL.Milliseconds(), Wait: wait.Milliseconds(), Masters: masters(env)})
		if r.err != nil {
			return nil, errors.Wrap(r.err, "the module's setup")
		}
		return p.wrap(r.caps), nil
	}
}

// seedOf is the incarnation's random seed, drawn from the run's generator
// for the process (Env.Rand).
func seedOf(env realclient.Env) uint64 { return env.Rand.Uint64() }

func masters(env realclient.Env) int {
	if n := len(env.Clients); n > 0 {
		return n
	}
	return 1
}

// ---- the protocol ---------------------------------------------------------

type msg struct {
	Op      string `json:"op"`
	Now     int64  `json:"now"`
	ID      int    `json:"id,omitempty"`
	Fn      string `json:"fn,omitempty"`
	Seed    string `json:"seed,omitempty"`
	Client  string `json:"client,omitempty"`
	Key     string `json:"key,omitempty"`
	TTL     int64  `json:"ttl,omitempty"`
	Wait    int64  `json:"wait,omitempty"`
	Masters int    `json:"masters,omitempty"`
	Sock    int    `json:"sock,omitempty"`
	Data    []byte `json:"-"` // a data event's bytes (sent raw, not as JSON)
	Err     string `json:"err,omitempty"`
	Code    string `json:"code,omitempty"`
}

type outOp struct {
	Op   string // connect, write, close
	Sock int
	Host string
	Port int
	Data []byte // a write's bytes
}

type doneRec struct {
	ID    int
	OK    bool
	Err   string
	Token *float64
	Until *float64
	Caps  []string
}

// errMalformed is made once: a report is decoded at every step, and an
// error made there (with its stack) cost about 4% of the Go side's CPU.
var errMalformed = errors.New("the Node bridge's report is malformed")

// decodeDone reads a D record after its tag (host.cjs, encodeDone) and
// returns the rest.
func decodeDone(b []byte) (doneRec, []byte, error) {
	if len(b) < 5 {
		return doneRec{}, nil, errMalformed
	}
	d := doneRec{ID: int(binary.BigEndian.Uint32(b))}
	flags := b[4]
	b = b[5:]
	d.OK = flags&1 != 0
	f64 := func() *float64 {
		f := math.Float64frombits(binary.BigEndian.Uint64(b))
		b = b[8:]
		return &f
	}
	if flags&2 != 0 {
		if len(b) < 8 {
			return d, nil, errMalformed
		}
		d.Token = f64()
	}
	if flags&4 != 0 {
		if len(b) < 8 {
			return d, nil, errMalformed
		}
		d.Until = f64()
	}
	if flags&8 != 0 {
		if len(b) < 1 {
			return d, nil, errMalformed
		}
		d.Caps = []string{}
		for i, c := range []string{"extend", "until", "token"} {
			if b[0]&(1<<i) != 0 {
				d.Caps = append(d.Caps, c)
			}
		}
		b = b[1:]
	}
	if !d.OK {
		if len(b) < 4 || len(b)-4 < int(binary.BigEndian.Uint32(b)) {
			return d, nil, errMalformed
		}
		n := int(binary.BigEndian.Uint32(b))
		d.Err = string(b[4 : 4+n])
		b = b[4+n:]
	}
	return d, b, nil
}

// report is what the Node process says after a step, decoded from the
// tagged records host.cjs's encodeReport writes.
type report struct {
	Ready bool
	Node  string
	Out   []outOp
	Done  []doneRec
	Next  int64
	Fatal string
	// U is the lock's until() asked at the end of the step, when it is a
	// pure question (host.cjs); nil: ask over the pipe.
	U         *float64
	Resources []string
}

// decodeReport reads a report's records (host.cjs, encodeReport).
func decodeReport(b []byte) (report, error) {
	r := report{Next: -1}
	bad := errMalformed
	u32 := func(at int) int { return int(binary.BigEndian.Uint32(b[at:])) }
	for len(b) > 0 {
		tag := b[0]
		switch tag {
		case 'Y':
			if len(b) < 3 || len(b) < 3+int(binary.BigEndian.Uint16(b[1:])) {
				return r, bad
			}
			n := int(binary.BigEndian.Uint16(b[1:]))
			r.Ready, r.Node = true, string(b[3:3+n])
			b = b[3+n:]
		case 'D':
			d, rest, err := decodeDone(b[1:])
			if err != nil {
				return r, err
			}
			r.Done = append(r.Done, d)
			b = rest
		case 'F', 'R':
			if len(b) < 5 || len(b)-5 < u32(1) {
				return r, bad
			}
			n := u32(1)
			body := b[5 : 5+n]
			b = b[5+n:]
			switch tag {
			case 'F':
				r.Fatal = string(body)
			case 'R':
				if err := json.Unmarshal(body, &r.Resources); err != nil {
					return r, errors.Wrap(err, "the Node bridge's report")
				}
				if r.Resources == nil {
					r.Resources = []string{}
				}
			}
		case 'W':
			if len(b) < 9 || len(b)-9 < u32(5) {
				return r, bad
			}
			n := u32(5)
			r.Out = append(r.Out, outOp{Op: "write", Sock: u32(1), Data: b[9 : 9+n : 9+n]})
			b = b[9+n:]
		case 'C':
			if len(b) < 11 || len(b)-11 < int(binary.BigEndian.Uint16(b[9:])) {
				return r, bad
			}
			n := int(binary.BigEndian.Uint16(b[9:]))
			r.Out = append(r.Out, outOp{Op: "connect", Sock: u32(1), Port: u32(5), Host: string(b[11 : 11+n])})
			b = b[11+n:]
		case 'X':
			if len(b) < 5 {
				return r, bad
			}
			r.Out = append(r.Out, outOp{Op: "close", Sock: u32(1)})
			b = b[5:]
		case 'N', 'U':
			if len(b) < 9 {
				return r, bad
			}
			f := math.Float64frombits(binary.BigEndian.Uint64(b[1:]))
			if tag == 'N' {
				r.Next = int64(f)
			} else {
				r.U = &f
			}
			b = b[9:]
		default:
			return r, bad
		}
	}
	return r, nil
}

// ---- the warm Node processes -----------------------------------------------

// nodeProc is one Node.js OS process serving steps for one module.
type nodeProc struct {
	module string
	cmd    *exec.Cmd
	in     *os.File      // to Node (its fd 3)
	out    *os.File      // from Node (its fd 4)
	rd     *bufio.Reader // out, buffered: a report usually takes one read
	stderr *tailBuf
	broken error
	steps  int
}

type procPool struct {
	mu   sync.Mutex
	idle map[string][]*nodeProc
	dir  string // where the bridge's files were written
	all  []*nodeProc
}

var pool = &procPool{idle: map[string][]*nodeProc{}}

func (pp *procPool) get(module string, o options) (*nodeProc, error) {
	key := module + "|" + fmt.Sprint(o.limits, o.resources)
	pp.mu.Lock()
	if l := pp.idle[key]; len(l) > 0 {
		np := l[len(l)-1]
		pp.idle[key] = l[:len(l)-1]
		pp.mu.Unlock()
		return np, nil
	}
	pp.mu.Unlock()
	return pp.start(module, key, o)
}

func (pp *procPool) put(np *nodeProc) {
	if np.broken != nil {
		np.kill()
		return
	}
	pp.mu.Lock()
	pp.idle[np.module] = append(pp.idle[np.module], np)
	pp.mu.Unlock()
}

func (np *nodeProc) kill() {
	np.in.Close()
	np.out.Close()
	if np.cmd.Process != nil {
		np.cmd.Process.Kill()
	}
}

func (pp *procPool) bridgeDir() (string, error) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if pp.dir != "" {
		return pp.dir, nil
	}
	dir, err := os.MkdirTemp("", "locksim-node-bridge-")
	if err != nil {
		return "", err
	}
	for _, f := range []string{"bridge.cjs", "host.cjs"} {
		b, _ := bridgeFS.ReadFile("js/" + f)
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return "", err
		}
	}
	pp.dir = dir
	return dir, nil
}

// Binary is the node command: $LOCKSIM_NODE, else node on the PATH.
func Binary() string {
	if b := os.Getenv("LOCKSIM_NODE"); b != "" {
		return b
	}
	return "node"
}

var versionOnce sync.Once
var versionErr error

// CheckVersion says whether a usable Node.js is installed, and what to
// install if not.
func CheckVersion() error {
	versionOnce.Do(func() { versionErr = checkBinary(Binary()) })
	return versionErr
}

func checkBinary(bin string) error {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return errors.Errorf("Node.js was not found (%s: %v): install Node.js %d or later (Debian/Ubuntu: apt-get install nodejs npm; or https://nodejs.org), or set LOCKSIM_NODE to its path", bin, err, MinMajor)
	}
	return checkVersionText(strings.TrimSpace(string(out)))
}

var versionRE = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)`)

func checkVersionText(v string) error {
	m := versionRE.FindStringSubmatch(v)
	if m == nil {
		return errors.Errorf("%s --version said %q, not a Node.js version: install Node.js %d or later (https://nodejs.org), or set LOCKSIM_NODE to its path", Binary(), v, MinMajor)
	}
	if major, _ := strconv.Atoi(m[1]); major < MinMajor {
		return errors.Errorf("Node.js %s is too old: locksim's bridge needs Node.js %d or later (process.getActiveResourcesInfo, AbortSignal.timeout, a global crypto); install a newer one (https://nodejs.org) or set LOCKSIM_NODE to its path", v, MinMajor)
	}
	return nil
}

func (pp *procPool) start(module, key string, o options) (*nodeProc, error) {
	if err := CheckVersion(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(module); err != nil {
		return nil, errors.Errorf("the lock module %s: %v", module, err)
	}
	dir, err := pp.bridgeDir()
	if err != nil {
		return nil, err
	}
	toNodeR, toNodeW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromNodeR, fromNodeW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(Binary(), "--max-old-space-size=512", "--require", filepath.Join(dir, "bridge.cjs"), filepath.Join(dir, "host.cjs"), module)
	cmd.Dir = filepath.Dir(module)
	cmd.ExtraFiles = []*os.File{toNodeR, fromNodeW}
	tail := &tailBuf{}
	// Node's own stdout and stderr (console.log) go to a file-backed
	// buffer: no goroutine copies them (none may run in a run's bubble).
	logf, err := os.CreateTemp("", "locksim-node-log-")
	if err != nil {
		return nil, err
	}
	os.Remove(logf.Name())
	tail.f = logf
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(),
		"LOCKSIM_NODE_MAX_CALLBACKS="+strconv.Itoa(o.limits.Callbacks),
		"LOCKSIM_NODE_MAX_BYTES="+strconv.Itoa(o.limits.Bytes),
		"NODE_OPTIONS=", // a user's NODE_OPTIONS (a --require of their own) would run outside the bridge
	)
	if o.resources {
		cmd.Env = append(cmd.Env, "LOCKSIM_NODE_RESOURCES=1")
	}
	if err := cmd.Start(); err != nil {
		return nil, errors.Wrapf(err, "starting %s", Binary())
	}
	toNodeR.Close()
	fromNodeW.Close()
	np := &nodeProc{module: key, cmd: cmd, in: toNodeW, out: fromNodeR, rd: bufio.NewReaderSize(fromNodeR, 64<<10), stderr: tail}
	pp.mu.Lock()
	pp.all = append(pp.all, np)
	pp.mu.Unlock()
	r, err := np.read()
	if err != nil {
		np.kill()
		return nil, err
	}
	if r.Fatal != "" {
		np.kill()
		return nil, errors.New(r.Fatal)
	}
	if !r.Ready {
		np.kill()
		return nil, errors.New("the Node process did not say it was ready")
	}
	return np, nil
}

// tailBuf keeps the Node process's output in a file, for errors.
type tailBuf struct{ f *os.File }

func (t *tailBuf) String() string {
	if t == nil || t.f == nil {
		return ""
	}
	b, _ := os.ReadFile(t.f.Name())
	if len(b) == 0 {
		st, _ := t.f.Stat()
		if st != nil && st.Size() > 0 {
			n := min(st.Size(), 2000)
			b = make([]byte, n)
			t.f.ReadAt(b, st.Size()-n)
		}
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(b))
}

func (np *nodeProc) send(m msg) error {
	var buf []byte
	if m.Op == "data" {
		// Bytes on a socket, the hot path: 'B', the time, the socket and
		// the raw bytes (host.cjs, readMsg).
		buf = make([]byte, 4+13+len(m.Data))
		binary.BigEndian.PutUint32(buf, uint32(13+len(m.Data)))
		buf[4] = 'B'
		binary.BigEndian.PutUint64(buf[5:], math.Float64bits(float64(m.Now)))
		binary.BigEndian.PutUint32(buf[13:], uint32(m.Sock))
		copy(buf[17:], m.Data)
	} else {
		body, err := json.Marshal(m)
		if err != nil {
			return err
		}
		buf = make([]byte, 4+len(body))
		binary.BigEndian.PutUint32(buf, uint32(len(body)))
		copy(buf[4:], body)
	}
	_, err := np.in.Write(buf)
	return err
}

func (np *nodeProc) read() (report, error) {
	var h [4]byte
	if _, err := io.ReadFull(np.rd, h[:]); err != nil {
		return report{}, np.died(err)
	}
	body := make([]byte, binary.BigEndian.Uint32(h[:]))
	if _, err := io.ReadFull(np.rd, body); err != nil {
		return report{}, np.died(err)
	}
	return decodeReport(body)
}

func (np *nodeProc) died(err error) error {
	np.broken = err
	msg := "the Node process ended"
	if st := np.stderr.String(); st != "" {
		msg += ": " + st
	}
	if strings.Contains(msg, "heap out of memory") {
		msg += " (it allocated past --max-old-space-size=512)"
	}
	return errors.New(msg)
}

// ---- one simulated process ------------------------------------------------

type result struct {
	err   error
	token *float64
	until *float64
	caps  []string
}

type sock struct {
	conn   net.Conn
	closed bool
}

// proc is the Go side of one incarnation: it owns the Node process while
// the incarnation lives, and every goroutine that talks to it (the
// workload's calls, one dialer and reader per socket, the timer sleepers)
// takes gate first, so one event at a time goes in.
type proc struct {
	np     *nodeProc
	env    realclient.Env
	o      options
	gate   chan struct{} // made in the bubble: waiting on it is durable
	closed bool
	ended  bool // the run ended before the program did (over)
	fatal  error
	socks  map[int]*sock
	calls  map[int]chan result
	nextID int
	sleeps map[int64]bool // the timer sleepers pending, by due time
	steps  int
	// until is the lock's until() at the end of the last step, when the
	// Node side found it a pure question (no clock, no randomness, no
	// effect): it cannot change before the next step. nil: ask.
	until *float64
	// next is the next timer the last report named (true time since the
	// bubble's epoch; -1: none).
	next int64
}

func (p *proc) lock()   { p.gate <- struct{}{} }
func (p *proc) unlock() { <-p.gate }

// Close ends the incarnation: its Node process goes back to the pool
// (the next setup resets it). realclient calls it when the process's
// program ends.
func (p *proc) Close() error {
	p.lock()
	defer p.unlock()
	if p.closed && !p.ended {
		return nil
	}
	p.closed, p.ended = true, false
	for _, s := range p.socks {
		if s.conn != nil && !s.closed {
			s.closed = true
			s.conn.Close()
		}
	}
	if p.fatal == nil {
		pool.put(p.np)
	} else {
		p.np.kill()
	}
	return nil
}

func now() int64 { return int64(time.Since(realclient.BubbleEpoch)) }

// call delivers a setup or call message and waits for its completion.
func (p *proc) call(m msg) result {
	p.lock()
	p.nextID++
	m.ID = p.nextID
	ch := make(chan result, 1)
	p.calls[m.ID] = ch
	p.stepLocked(m)
	p.unlock()
	return <-ch
}

// step delivers one event.
func (p *proc) step(m msg) {
	p.lock()
	defer p.unlock()
	p.stepLocked(m)
}

func (p *proc) stepLocked(m msg) {
	if p.closed || p.fatal != nil {
		if ch := p.calls[m.ID]; ch != nil && m.ID != 0 {
			delete(p.calls, m.ID)
			ch <- result{err: p.failure()}
		}
		return
	}
	p.steps++
	Steps.Add(1)
	if p.o.limits.Steps > 0 && p.steps > p.o.limits.Steps {
		p.setFatal(errors.Errorf("the Node process took more than %d steps in one run (node.Limits.Steps): it never stops reacting", p.o.limits.Steps))
		return
	}
	m.Now = now()
	if err := p.np.send(m); err != nil {
		p.setFatal(p.np.died(err))
		return
	}
	r, err := p.np.read()
	if err != nil {
		p.setFatal(err)
		return
	}
	if p.o.onStep != nil {
		p.o.onStep(Step{Client: p.env.Client, Event: m.Op, Fn: m.Fn, Resources: r.Resources})
	}
	p.until = r.U
	p.next = r.Next
	if r.Fatal != "" {
		p.until = nil
		p.setFatal(errors.New("the Node process: " + r.Fatal))
		p.np.broken = errors.New(r.Fatal)
		return
	}
	for _, o := range r.Out {
		p.apply(o)
	}
	for _, d := range r.Done {
		ch := p.calls[d.ID]
		if ch == nil {
			continue
		}
		delete(p.calls, d.ID)
		res := result{token: d.Token, until: d.Until, caps: d.Caps}
		if !d.OK {
			res.err = errors.New(d.Err)
		}
		ch <- res
	}
	if r.Next >= 0 {
		p.sleepUntil(r.Next)
	}
}

// over ends the incarnation's calls when the run is over.
func (p *proc) over() {
	if p.fatal == nil && !p.closed {
		p.closed = true
		p.ended = true
		for id, ch := range p.calls {
			delete(p.calls, id)
			ch <- result{err: errRunOver}
		}
	}
}

var errRunOver = errors.New("the simulated run is over")

func (p *proc) failure() error {
	if p.fatal != nil {
		return p.fatal
	}
	return errors.New("the process's Node incarnation is closed")
}

func (p *proc) setFatal(err error) {
	if p.fatal == nil {
		p.fatal = &realclient.Stop{Err: err}
	}
	err = p.fatal
	for id, ch := range p.calls {
		delete(p.calls, id)
		ch <- result{err: err}
	}
}

// apply carries out one thing the Node process did.
func (p *proc) apply(o outOp) {
	switch o.Op {
	case "connect":
		s := &sock{}
		p.socks[o.Sock] = s
		go p.dial(o.Sock, s, o.Host, o.Port)
	case "write":
		s := p.socks[o.Sock]
		if s == nil || s.conn == nil || s.closed {
			return
		}
		s.conn.Write(o.Data) // an error shows on the next read
	case "close":
		s := p.socks[o.Sock]
		if s == nil {
			return
		}
		s.closed = true
		if s.conn != nil {
			s.conn.Close()
		}
	}
}

// dial connects a socket through the simulated network, then reads it
// until it ends.
func (p *proc) dial(id int, s *sock, host string, port int) {
	c, err := p.env.Dialer(context.Background(), "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	p.lock()
	if err != nil {
		p.stepLocked(msg{Op: "error", Sock: id, Err: err.Error(), Code: "ECONNREFUSED"})
		p.unlock()
		return
	}
	if s.closed || p.closed {
		c.Close()
		p.unlock()
		return
	}
	s.conn = c
	p.stepLocked(msg{Op: "connected", Sock: id})
	p.unlock()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		p.lock()
		if s.closed || p.closed {
			p.unlock()
			return
		}
		if n > 0 {
			p.stepLocked(msg{Op: "data", Sock: id, Data: buf[:n]})
		}
		if err != nil {
			s.closed = true
			if err == io.EOF {
				p.stepLocked(msg{Op: "eof", Sock: id})
			} else {
				p.stepLocked(msg{Op: "error", Sock: id, Err: err.Error(), Code: "ECONNRESET"})
			}
			p.unlock()
			return
		}
		p.unlock()
	}
}

// sleepUntil makes sure a governed sleep wakes the process at its next
// timer (at, true time since the bubble's epoch).
func (p *proc) sleepUntil(at int64) {
	for t := range p.sleeps {
		if t <= at {
			return // an earlier or equal sleeper wakes it first, and reschedules
		}
	}
	p.sleeps[at] = true
	go func() {
		p.env.Sleep(time.Duration(at - now()))
		p.lock()
		defer p.unlock()
		delete(p.sleeps, at)
		if now() < at {
			// A governed sleep ends early only when the run is over: the
			// process's timers never fire again, and what waits on them
			// (a call in progress) fails now, so that the program returns.
			p.over()
			return
		}
		if p.next < 0 || now() < p.next {
			// No timer is due: the one this sleeper was for was cleared or
			// moved later since. The step would run nothing (a report
			// leaves nothing runnable, and a timer runs only once due) and
			// report what the last one did, so it is not delivered (it
			// cost a round trip for nothing); the next timer still gets its
			// sleeper.
			SkippedSteps.Add(1)
			if p.next >= 0 && !p.closed && p.fatal == nil {
				p.sleepUntil(p.next)
			}
			return
		}
		p.stepLocked(msg{Op: "time"})
	}()
}

// ---- the Lock -------------------------------------------------------------

// UntilAnswered counts the Until() calls answered from the last step's
// report, without a round trip (for tests and benchmarks).
var UntilAnswered atomic.Int64

// Steps counts the steps delivered to every Node process (for tests and
// benchmarks).
var Steps atomic.Int64

// SkippedSteps counts the timer wake-ups not delivered because no timer
// was due any more (for tests and benchmarks).
var SkippedSteps atomic.Int64

func (p *proc) do(ctx context.Context, fn string) result {
	m := msg{Op: "call", Fn: fn}
	if dl, ok := ctx.Deadline(); ok {
		m.Wait = max(time.Until(dl).Milliseconds(), 0)
	}
	return p.call(m)
}

type base struct {
	p     *proc
	token int64
	until time.Time
}

func (b *base) note(r result) {
	if r.token != nil {
		b.token = int64(*r.token)
	}
	if r.until != nil {
		b.until = realclient.BubbleEpoch.Add(time.Duration(*r.until*1e6) - time.Duration(epochMs)*time.Millisecond)
	}
}

// epochMs is BubbleEpoch in Unix milliseconds (the bridge's Date counts
// from it).
const epochMs = 946684800000

func (b *base) Lock(ctx context.Context) error {
	r := b.p.do(ctx, "acquire")
	b.note(r)
	return r.err
}

func (b *base) Unlock(ctx context.Context) error { return b.p.do(ctx, "release").err }

// until asks the module's until() now (the caller asks right before each
// write): a library that learns of a lost lock between calls (a refresh
// timer that failed) says so at once. When the process cannot be asked
// (the run is over) the last answer stands.
func (b *base) untilNow() time.Time {
	b.p.lock()
	u := b.p.until
	b.p.unlock()
	if u != nil {
		UntilAnswered.Add(1)
		b.note(result{until: u})
		return b.until
	}
	if r := b.p.call(msg{Op: "call", Fn: "until"}); r.err == nil {
		b.note(r)
	}
	return b.until
}

func (b *base) extend(ctx context.Context) error {
	r := b.p.do(ctx, "extend")
	b.note(r)
	return r.err
}

type withExtend struct{ *base }

func (l withExtend) Extend(ctx context.Context) error { return l.extend(ctx) }

type withUntil struct{ *base }

func (l withUntil) Until() time.Time { return l.untilNow() }

type withExtendUntil struct{ *base }

func (l withExtendUntil) Extend(ctx context.Context) error { return l.extend(ctx) }
func (l withExtendUntil) Until() time.Time                 { return l.untilNow() }

type withToken struct{ *base }

func (l withToken) Token() int64 { return l.token }

type withExtendToken struct{ *base }

func (l withExtendToken) Extend(ctx context.Context) error { return l.extend(ctx) }
func (l withExtendToken) Token() int64                     { return l.token }

type withUntilToken struct{ *base }

func (l withUntilToken) Until() time.Time { return l.untilNow() }
func (l withUntilToken) Token() int64     { return l.token }

type withAll struct{ *base }

func (l withAll) Extend(ctx context.Context) error { return l.extend(ctx) }
func (l withAll) Until() time.Time                 { return l.untilNow() }
func (l withAll) Token() int64                     { return l.token }

// wrap gives the Lock the optional interfaces the module's lock has
// (extend, until, token).
func (p *proc) wrap(caps []string) realclient.Lock {
	b := &base{p: p}
	has := map[string]bool{}
	for _, c := range caps {
		has[c] = true
	}
	switch e, u, t := has["extend"], has["until"], has["token"]; {
	case e && u && t:
		return withAll{b}
	case e && u:
		return withExtendUntil{b}
	case e && t:
		return withExtendToken{b}
	case u && t:
		return withUntilToken{b}
	case e:
		return withExtend{b}
	case u:
		return withUntil{b}
	case t:
		return withToken{b}
	}
	return b
}

// Shutdown ends every idle warm Node process and waits for it (a test
// binary's TestMain calls it after m.Run, so that their CPU time is
// counted; without it they end when the Go process exits and closes their
// pipe).
func Shutdown() {
	pool.mu.Lock()
	idle := pool.idle
	pool.idle = map[string][]*nodeProc{}
	pool.mu.Unlock()
	for _, l := range idle {
		for _, np := range l {
			np.in.Close()
			np.cmd.Wait()
			np.out.Close()
		}
	}
}

// CPUTime is the CPU time the Node processes started so far have used
// (user and system, from /proc: Linux only; 0 elsewhere), for benchmarks:
// a Go process's own rusage does not count children it has not reaped.
func CPUTime() time.Duration {
	pool.mu.Lock()
	all := slices.Clone(pool.all)
	pool.mu.Unlock()
	var total time.Duration
	for _, np := range all {
		if np.cmd.Process == nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(np.cmd.Process.Pid) + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		k, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(u+k) * time.Second / clockTicks
	}
	return total
}

// clockTicks is USER_HZ, the unit of /proc's CPU times (100 on Linux).
const clockTicks = 100
