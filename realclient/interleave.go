package realclient

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"

	"locksim/harness"
	"locksim/model"
)

// Interleave is how the governor orders the client actions pending at one
// instant (WithInterleave).
type Interleave uint8

const (
	// InterleaveFixed hands the smallest pending action first, in an
	// order fixed by content (process, kind, connection, command): the
	// default, and the order every result before interleavings had.
	InterleaveFixed Interleave = iota
	// InterleaveRandom lets the run's seed choose, at each step, which of
	// the pending actions that could go next goes next (uniformly): a
	// library's watchdog goroutine before or after its Unlock, one
	// process's command before or after another's. The same seed gives
	// the same order, so a failure replays.
	InterleaveRandom
)

// String names the mode as a report writes it.
func (m Interleave) String() string {
	switch m {
	case InterleaveFixed:
		return "fixed"
	case InterleaveRandom:
		return "random"
	}
	return fmt.Sprintf("Interleave(%d)", uint8(m))
}

// WithInterleave chooses how same-instant client actions are ordered
// (default InterleaveFixed). Run and Fuzz need the same mode as the Check
// whose case they replay: a case file holds the spec and the seed
// (harness.WithInterleave, given the mode's name).
func WithInterleave(m Interleave) Option { return shared(harness.WithInterleave(m.String())) }

// interleaveMode is the mode a shared interleave policy names: "" or
// "fixed", or "random"; a real client's runs take no other.
func interleaveMode(policy string) (Interleave, error) {
	switch policy {
	case "", InterleaveFixed.String():
		return InterleaveFixed, nil
	case InterleaveRandom.String():
		return InterleaveRandom, nil
	}
	if strings.HasPrefix(policy, "pct") {
		return 0, errors.Errorf("interleave %q: PCT is not offered for real clients: it gives priorities to the simulator's same-instant event lanes (sim.Interleave), and a real client's same-instant choices are its governor's pending goroutine actions, which have no PCT scheduler; use InterleaveRandom", policy)
	}
	n := strings.TrimSuffix(strings.TrimPrefix(policy, "Interleave("), ")")
	return 0, errors.Errorf("interleave mode %s: want InterleaveFixed or InterleaveRandom", n)
}

// interleaveSalt separates the interleaving's generator from every other
// stream seeded by the run's seed.
const interleaveSalt = 0x1e4ea7e

// newPicker returns the generator that chooses among pending actions, or
// nil for the fixed order.
func newPicker(m Interleave, seed uint64) *rand.Rand {
	if m != InterleaveRandom {
		return nil
	}
	return rand.New(rand.NewPCG(seed, interleaveSalt))
}

// isNote reports whether an action only tells the world what a goroutine
// already did (a record, a close, a timeout), or registers a governed
// sleep: the goroutine did not wait for it (or its order does not matter),
// so it is no choice and goes first, in the fixed order: the history
// keeps each goroutine's program order.
func isNote(a *action) bool {
	return a.kind == actRecord || a.kind == actClose || a.kind == actTimeout || a.kind == actSleep
}

// choose removes and returns the next action in interleaving mode (under
// d.mu), or a due sleeper to wake (wake true), or nil. The candidates are
// what could go next without breaking a goroutine's program order: a
// process's notes first (no choice); else each connection's first
// command, every gate, dial and call (each its own blocked goroutine),
// every due governed sleep, and a program's exit only once nothing else
// of its process is pending. They are sorted in the fixed order, so the
// choice depends only on the set and the seed.
func (d *driver) choose(now time.Duration) (a *action, wake bool) {
	waits := d.connWaits()
	note := -1
	for i, x := range d.pending {
		if !x.p.paused && isNote(x) && !waits(x) && (note < 0 || actionCmp(x, d.pending[note]) < 0) {
			note = i
		}
	}
	if note >= 0 {
		return d.removePending(note), false
	}
	busy := map[*xproc]bool{} // processes with something pending besides an exit
	for _, x := range d.pending {
		if x.kind != actExit {
			busy[x.p] = true
		}
	}
	type cand struct {
		i     int // index in d.pending, or -1 for a sleeper
		sleep *action
	}
	var cands []cand
	firstOnConn := map[*conn]uint64{} // the lowest pending position per connection
	for _, x := range d.pending {
		if s, ok := firstOnConn[x.c]; x.kind == actSend && (!ok || x.seq < s) {
			firstOnConn[x.c] = x.seq
		}
	}
	for i, x := range d.pending {
		if x.p.paused || x.kind == actExit && busy[x.p] || isNote(x) || heldByStarve(x) {
			continue // a note here waits for a command on its connection
		}
		if x.kind == actSend && x.seq != firstOnConn[x.c] {
			continue
		}
		cands = append(cands, cand{i: i})
	}
	for _, s := range d.sleepers {
		if !s.p.paused && s.at <= now {
			cands = append(cands, cand{i: -1, sleep: s})
		}
	}
	if len(cands) == 0 {
		return nil, false
	}
	// Stable: actions equal in content (two goroutines dialing the same
	// group) keep their post order, which the turns make deterministic.
	slices.SortStableFunc(cands, func(x, y cand) int {
		switch {
		case x.sleep != nil && y.sleep != nil:
			return cmp.Or(cmp.Compare(x.sleep.at, y.sleep.at), cmp.Compare(x.sleep.seq, y.sleep.seq))
		case x.sleep != nil:
			return 1
		case y.sleep != nil:
			return -1
		}
		return actionCmp(d.pending[x.i], d.pending[y.i])
	})
	c := cands[d.pick.IntN(len(cands))]
	if c.sleep != nil {
		return c.sleep, true
	}
	return d.removePending(c.i), false
}

// removePending removes and returns d.pending[i] (under d.mu).
func (d *driver) removePending(i int) *action {
	a := d.pending[i]
	d.pending = slices.Delete(d.pending, i, i+1)
	return a
}

// gateHook is the go-redis hook of every client the package makes: a
// command (or pipeline) first asks the governor for its turn (an actGate
// action), before go-redis takes a connection from its pool. Two
// goroutines of a process woken together (a library's watchdog started as
// Lock returns, and the caller going on to Unlock) would otherwise race
// for the pool's idle connection under the Go scheduler, and which of
// them dials a new one would change the history; with the gate, the
// governor decides, one goroutine at a time, in the fixed order or the
// seed's.
type gateHook struct {
	p     *xproc
	group string // the client's group ("m1"), which orders its turns
	// shared: a client the process's goroutines share; a command's turn
	// is its issuing goroutine's (xproc.self).
	shared bool
}

// who is the goroutine whose turn a command takes.
func (h gateHook) who() *xproc {
	if h.shared {
		return h.p.self()
	}
	return h.p
}

func (h gateHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h gateHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.p.d.modules.note()
		h.who().turn(h.group, cmdArgs(nil, cmd))
		growStack()
		return next(ctx, cmd)
	}
}

func (h gateHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		var args []string
		for _, c := range cmds {
			args = cmdArgs(args, c)
		}
		h.p.d.modules.note()
		h.who().turn(h.group, args)
		growStack()
		return next(ctx, cmds)
	}
}

// cmdArgs appends a command's arguments as text (what orders its turn),
// as fmt.Sprint renders them; strings and integers, nearly every
// argument, without fmt (fmt.Sprint was a thirtieth of a run).
func cmdArgs(out []string, c redis.Cmder) []string {
	for _, a := range c.Args() {
		switch a := a.(type) {
		case string:
			out = append(out, a)
		case int:
			out = append(out, strconv.Itoa(a))
		case int64:
			out = append(out, strconv.FormatInt(a, 10))
		default:
			out = append(out, fmt.Sprint(a))
		}
	}
	return out
}

// turn waits until the governor lets the goroutine's next command go (a
// paused process's turn comes at the resume). After the run ended it
// returns at once: the command then fails on its broken connection.
func (p *xproc) turn(group string, args []string) {
	if p.d.ending.Load() {
		return
	}
	p.wait(&action{kind: actGate, node: group, args: args})
}

// failureReport is failureReport with, for an interleaved run, the mode a
// replay needs (a case file does not hold it).
func (c *config) failureReport(r *model.Result, casePath, testName string) string {
	text := failureReport(r, casePath, testName)
	if c.goroutines > 1 {
		// A case file does not hold it either.
		text += fmt.Sprintf("goroutines: %d per process (clients A.1..A.%d): replay with realclient.WithGoroutines(%d)\n", c.goroutines, c.goroutines, c.goroutines)
	}
	if c.interleave == InterleaveFixed {
		return text
	}
	return text + "interleaving: " + c.interleave.String() + ", chosen by the seed: replay with realclient.WithInterleave(realclient.Interleave" +
		strings.ToUpper(c.interleave.String()[:1]) + c.interleave.String()[1:] + ")\n"
}
