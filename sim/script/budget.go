package script

import (
	"time"

	"github.com/pkg/errors"
	lua "github.com/yuin/gopher-lua"
)

// budget bounds one script run by two deterministic counts, never by time:
//
//   - instructions: Lua VM instructions, plus the work of library
//     functions written in Go (pattern matching steps, bytes produced),
//     at most limit per run;
//   - memory: bytes the run allocates, counted when it allocates them and
//     never given back (garbage included), at most memLimit per run.
//
// gopher-lua polls a context before every VM instruction
// (mainLoopWithContext selects on Done()); every thread of the state has a
// threadCtx over the one budget, so a script and its coroutines share it.
// Before the next instruction runs, Done looks at it (vmlayout.go) and
// charges what it is about to allocate (charge.go); library functions
// charge before they allocate (libs.go). Once a limit is hit the run stops:
// Done returns a closed channel from then on, so the VM raises Err() at
// every instruction and a pcall inside the script cannot carry on.
//
// Invariants: no wall clock, no goroutines. Before the budget is spent
// Done returns nil, so context.WithCancel(ctx) — which gopher-lua calls for
// every coroutine — never starts a propagation goroutine.
type budget struct {
	limit    int64 // instructions per script run
	left     int64 // instructions still allowed
	memLimit int64 // bytes per script run
	memLeft  int64 // bytes still allowed
	stop     stopCause
	// numText is the function `..` calls on its operands (numbers.go);
	// a call of it boxes nothing (it charges the text it makes itself).
	numText *lua.LFunction
}

// stopCause is why a run was stopped; zero while it runs.
type stopCause uint8

const (
	running          stopCause = iota
	stopInstructions           // the instruction budget is spent
	stopMemory                 // the memory budget is spent
)

// bytesPerInstruction converts bytes that a library function produces or
// scans into instructions of work: string.rep of 1 MB costs 65,536
// instructions as well as 1 MB of memory.
const bytesPerInstruction = 16

// closedDone is the Done channel of a spent budget.
var closedDone = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func newBudget(limit, memLimit int64) *budget {
	return &budget{limit: limit, left: limit, memLimit: memLimit, memLeft: memLimit}
}

// reset refills the budget for a new script run.
func (b *budget) reset() {
	b.left, b.memLeft, b.stop = b.limit, b.memLimit, running
}

// halt stops the run for cause, unless it is stopped already.
func (b *budget) halt(cause stopCause) {
	if b.stop == running {
		b.stop = cause
	}
}

// work spends n instructions of library work; false once the budget is spent.
func (b *budget) work(n int64) bool {
	if b.stop != running {
		return false
	}
	if n > b.left {
		b.left = -1
		b.halt(stopInstructions)
		return false
	}
	b.left -= n
	return true
}

// alloc charges n bytes (and their work); false once a budget is spent,
// in which case the caller must not allocate.
func (b *budget) alloc(n int64) bool {
	if b.stop != running {
		return false
	}
	if n < 0 || n > b.memLeft {
		b.memLeft = -1
		b.halt(stopMemory)
		return false
	}
	b.memLeft -= n
	return b.work(n / bytesPerInstruction)
}

// used returns the instructions and bytes the current run has spent.
func (b *budget) used() (instructions, bytes int64) {
	return b.limit - max(b.left, 0), b.memLimit - max(b.memLeft, 0)
}

// errText is the Lua error a stopped run raises (runError turns it into
// the reply, msgBudget or msgMemory).
func (b *budget) errText() string {
	switch b.stop {
	case stopInstructions:
		return "script exceeded the instruction budget"
	default:
		return "script exceeded the memory budget"
	}
}

// threadCtx is the context of one Lua thread (the main one or a
// coroutine) over the shared budget. It knows its thread, so Done can read
// the instruction that thread is about to run.
type threadCtx struct {
	b *budget
	L *lua.LState
}

func (c *threadCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

func (c *threadCtx) Done() <-chan struct{} {
	b := c.b
	b.left--
	if b.left < 0 {
		b.halt(stopInstructions)
	}
	if b.stop != running {
		return closedDone
	}
	if !b.chargeNext(c.L) {
		return closedDone
	}
	return nil
}

func (c *threadCtx) Err() error {
	if c.b.stop != running {
		return errors.New(c.b.errText())
	}
	return nil
}

func (c *threadCtx) Value(any) any { return nil }

// raise stops the running Lua code with the budget's error; call it when
// work or alloc returned false.
func (b *budget) raise(L *lua.LState) {
	L.RaiseError("%s", b.errText())
}

// charge spends n bytes for a library function about to allocate them, or
// raises the budget's error.
func (b *budget) charge(L *lua.LState, n int64) {
	if !b.alloc(n) {
		b.raise(L)
	}
}

// spend spends n instructions of library work, or raises the budget's error.
func (b *budget) spend(L *lua.LState, n int64) {
	if !b.work(n) {
		b.raise(L)
	}
}

// mulBytes is a*b, or -1 when it overflows or either is negative (alloc
// refuses -1).
func mulBytes(a, b int64) int64 {
	if a < 0 || b < 0 {
		return -1
	}
	if a != 0 && b > (1<<62)/a {
		return -1
	}
	return a * b
}
