package realclient

import (
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pkg/errors"

	"locksim/sim"
	"locksim/sim/resp"
)

// conn is the net.Conn go-redis gets from its Dialer: one simulated stream
// to a Redis node. Write parses the RESP commands and posts each to the
// governor, which puts it on the stream; replies arrive as bytes in the
// read buffer. It behaves like a TCP socket: deadlines are honoured with
// bubble timers, a broken stream fails reads and writes with ECONNRESET,
// Close is final.
//
// While its process is paused the connection is frozen: Write blocks, and
// Read returns neither data nor a timeout, until the resume. At the resume
// a reader finds what arrived during the pause before its deadline is
// looked at, as a socket buffer holds it: a reply that came while the
// process was frozen is read, late, as real clients read it.
type conn struct {
	d     *driver
	p     *xproc
	id    uint64
	group string // what the client dialed ("m1")
	node  string // the node behind it when dialed ("r1")
	// private: a connection of p's own clients (Env.Clients); mixed:
	// commands of a goroutine other than p were written on it. A
	// command's issuer is its writer's label (writer).
	private bool
	mixed   atomic.Bool

	// Guarded by d.mu.
	rbuf        []byte
	wbuf        []byte
	rdl, wdl    time.Time
	err         error // the stream broke
	closed      bool
	sent        uint64 // commands posted
	outstanding []sentCmd
	reported    bool // a timeout was recorded for the oldest outstanding command
	resp3       bool // the connection speaks RESP3 (a HELLO 3 succeeded)

	notify chan struct{} // cap 1: state changed

	// timer is the connection's read timer, reused by one Read at a time
	// (timerBusy): a new timer per wait was a channel and a timer each.
	timer     *time.Timer
	timerBusy atomic.Bool
}

// readTimer returns a timer that fires after wait: the connection's own
// (own), or a new one while another Read holds it. The caller stops it,
// then clears timerBusy if it was its own.
func (c *conn) readTimer(wait time.Duration) (t *time.Timer, own bool) {
	if !c.timerBusy.CompareAndSwap(false, true) {
		return time.NewTimer(wait), false
	}
	if c.timer == nil {
		c.timer = time.NewTimer(wait)
	} else {
		c.timer.Reset(wait)
	}
	return c.timer, true
}

// cmdInfo is what the process notes about a command it sent: whether it
// carries the lock's value (an acquisition's request).
type cmdInfo struct {
	acquire bool
	value   string
	keys    []string // the keys it may write value to
	mark    sim.Kind // the placement event the command marks (sendMark), "" for none
	marked  bool     // governor only: a mark recorded before the send was recorded
	hello   string   // HELLO's protocol version: its reply switches the connection's
}

// sentCmd is a command awaiting its reply: what its issuer noted, and
// the issuer (the connection's dialer, or on a shared connection the
// goroutine that wrote it).
type sentCmd struct {
	info *cmdInfo
	by   *xproc
}

func newConn(d *driver, p *xproc, id uint64, group, node string) *conn {
	return &conn{d: d, p: p, id: id, group: group, node: node, notify: make(chan struct{}, 1)}
}

// reader is the goroutine whose pause freezes a Read on the connection
// (under d.mu): the reading goroutine, by its label (labelled, read
// before d.mu is taken), else the issuer of the oldest command awaiting
// its reply, else the dialer. Not the dialer first: on a shared
// connection the dialer may have ended (and an ended goroutine's pause
// never ends, as nothing resumes it).
func (c *conn) reader(labelled *xproc) *xproc {
	if labelled != nil && labelled.process == c.p.process {
		return labelled
	}
	if len(c.outstanding) > 0 {
		return c.outstanding[0].by
	}
	return c.p
}

// poke wakes a goroutine blocked on the connection.
func (c *conn) poke() {
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

// deliver appends a reply (governor side).
func (c *conn) deliver(r resp.Reply) {
	c.d.mu.Lock()
	var info *cmdInfo
	by := c.p
	if len(c.outstanding) > 0 {
		info, by = c.outstanding[0].info, c.outstanding[0].by
		c.outstanding = c.outstanding[1:]
	}
	if info != nil && info.hello != "" && r.Kind != resp.Error {
		c.resp3 = info.hello == "3" // the reply itself comes in the new protocol
	}
	c.rbuf = encodeReply(c.rbuf, r, c.resp3)
	c.reported = false
	c.d.mu.Unlock()
	if info != nil && info.acquire {
		by.noteGrant(c.node, info, r)
	}
	c.poke()
}

// deliverPush appends a push (a client-tracking invalidation), which
// answers no command (governor side).
func (c *conn) deliverPush(r resp.Reply) {
	c.d.mu.Lock()
	c.rbuf = encodeReply(c.rbuf, r, c.resp3)
	c.d.mu.Unlock()
	c.poke()
}

// fail breaks the connection (governor side).
func (c *conn) fail(err error) {
	c.d.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.d.mu.Unlock()
	c.poke()
}

// Read implements net.Conn.
func (c *conn) Read(b []byte) (int, error) {
	d := c.d
	var self *xproc
	if d.goroutines > 1 {
		self = d.labelled()
	}
	for {
		d.mu.Lock()
		if c.closed {
			d.mu.Unlock()
			return 0, c.opErr("read", net.ErrClosed)
		}
		var wait time.Duration = -1
		if r := c.reader(self); !r.paused {
			if len(c.rbuf) > 0 {
				n := copy(b, c.rbuf)
				c.rbuf = c.rbuf[n:]
				d.mu.Unlock()
				return n, nil
			}
			if c.err != nil {
				err := c.err
				d.mu.Unlock()
				return 0, c.opErr("read", err)
			}
			if !c.rdl.IsZero() {
				wait = time.Until(c.rdl)
				if wait <= 0 {
					report := len(c.outstanding) > 0 && !c.reported
					c.reported = c.reported || report
					after := c.sent
					d.mu.Unlock()
					if report && !d.ending.Load() {
						d.post(&action{p: r, kind: actTimeout, c: c, seq: after})
					}
					return 0, c.opErr("read", os.ErrDeadlineExceeded)
				}
			}
		}
		d.mu.Unlock()
		if wait < 0 {
			<-c.notify
			continue
		}
		t, own := c.readTimer(wait)
		select {
		case <-c.notify:
		case <-t.C:
		}
		t.Stop()
		if own {
			c.timerBusy.Store(false)
		}
	}
}

// Write implements net.Conn: every complete command is posted in order.
func (c *conn) Write(b []byte) (int, error) {
	d := c.d
	by, why := c.writer()
	by.checkpoint()
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case c.closed:
		return 0, c.opErr("write", net.ErrClosed)
	case c.err != nil:
		return 0, c.opErr("write", c.err)
	case !c.wdl.IsZero() && !time.Now().Before(c.wdl):
		return 0, c.opErr("write", os.ErrDeadlineExceeded)
	}
	c.wbuf = append(c.wbuf, b...)
	for {
		args, n, err := parseCommand(c.wbuf)
		if err == errIncomplete {
			break
		}
		if err != nil {
			c.err = err
			return 0, c.opErr("write", err)
		}
		c.wbuf = c.wbuf[n:]
		c.sent++
		if why != nil && d.refusal == nil {
			d.refusal = errors.Wrapf(why, "%s on a shared connection has no known issuer", commandText(args))
		}
		info := by.noteCommand(args)
		if info == nil && len(args) > 1 && strings.EqualFold(args[0], "HELLO") {
			info = &cmdInfo{hello: args[1]}
		}
		c.outstanding = append(c.outstanding, sentCmd{info: info, by: by})
		c.reported = false
		a := &action{p: by, kind: actSend, c: c, seq: c.sent, args: args, info: info}
		d.pending = append(d.pending, a)
	}
	if len(c.wbuf) == 0 {
		c.wbuf = nil
	}
	select {
	case d.kick <- struct{}{}:
	default:
	}
	return len(b), nil
}

// Close implements net.Conn.
func (c *conn) Close() error {
	d := c.d
	d.mu.Lock()
	if c.closed {
		d.mu.Unlock()
		return nil
	}
	c.closed = true
	after := c.sent
	d.mu.Unlock()
	c.p.connClosed(c.group)
	c.poke()
	if !d.ending.Load() {
		d.post(&action{p: c.p, kind: actClose, c: c, seq: after})
	}
	return nil
}

func (c *conn) LocalAddr() net.Addr  { return addr(c.p.name + ":" + strconv.FormatUint(c.id, 10)) }
func (c *conn) RemoteAddr() net.Addr { return addr(c.node + ":6379") }

func (c *conn) SetDeadline(t time.Time) error {
	c.d.mu.Lock()
	c.rdl, c.wdl = t, t
	c.d.mu.Unlock()
	c.poke()
	return nil
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.d.mu.Lock()
	c.rdl = t
	c.d.mu.Unlock()
	c.poke()
	return nil
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	c.d.mu.Lock()
	c.wdl = t
	c.d.mu.Unlock()
	return nil
}

func (c *conn) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// addr is a simulated endpoint address.
type addr string

func (a addr) Network() string { return "tcp" }
func (a addr) String() string  { return string(a) }

// connReset and connRefused are the socket errors of a broken stream and a
// refused dial.
func connReset() error { return os.NewSyscallError("read", syscall.ECONNRESET) }
func connRefused(error) error {
	return os.NewSyscallError("connect", syscall.ECONNREFUSED)
}

func strconvU(u uint64) string { return strconv.FormatUint(u, 10) }
