package script

import (
	"errors"
	"time"
)

// budget is a context.Context that gopher-lua polls once per VM instruction
// (mainLoopWithContext selects on Done() before every instruction). Each
// Done call spends one instruction; once the budget is spent Done returns a
// closed channel and the VM raises Err() as a Lua error.
//
// Invariants: no wall clock, no goroutines. Before the budget is spent Done
// returns nil, so context.WithCancel(budget) — which gopher-lua calls for
// every coroutine — never starts a propagation goroutine; coroutines are
// then switched to this same budget (see coroutine.create/wrap in
// luastate.go), so a script and all its coroutines share one budget.
type budget struct {
	limit int64 // instructions per script run
	left  int64 // instructions still allowed; negative once spent
	err   error
}

// closedDone is the Done channel of a spent budget.
var closedDone = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func newBudget(limit int64) *budget {
	return &budget{limit: limit, left: limit, err: errors.New("script exceeded the instruction budget")}
}

// reset refills the budget for a new script run.
func (b *budget) reset() { b.left = b.limit }

// spent reports whether the current run ran out of instructions.
func (b *budget) spent() bool { return b.left < 0 }

func (b *budget) Deadline() (time.Time, bool) { return time.Time{}, false }

func (b *budget) Done() <-chan struct{} {
	b.left--
	if b.left < 0 {
		return closedDone
	}
	return nil
}

func (b *budget) Err() error {
	if b.left < 0 {
		return b.err
	}
	return nil
}

func (b *budget) Value(any) any { return nil }
