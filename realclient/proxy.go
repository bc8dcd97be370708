package realclient

import "sync"

// worldProxy guards the simulated world, which the governor calls on its
// own goroutine, inside the synctest bubble: a world call is a plain
// function call, with no handoff to another goroutine (issue 41: each
// call used to cross to a goroutine outside the bubble and back, two
// goroutine switches per call, and at GOMAXPROCS=2 a wake of the idle
// core). The only other caller is the watchdog of a stuck run (stuck.go),
// outside the bubble, which reads what the world recorded (last).
//
// Why the world may run inside a bubble although its miniredis instances
// and Lua states are pooled across runs (a channel, timer or WaitGroup
// made in one bubble panics when used from another, or from none): on
// the paths a real client's world uses, neither makes one.
//   - miniredis makes channels, timers and goroutines only in its blocking
//     commands (BLPOP and the other blocking pops, XREAD/XREADGROUP with
//     BLOCK: blocking() derives a context from the instance's and starts
//     two goroutines) and for SUBSCRIBE/PSUBSCRIBE (a subscriber's
//     channels). UNSUBSCRIBE and PUNSUBSCRIBE reach miniredis too and make
//     a subscriber with two goroutines, which it closes at once (it has no
//     subscription there): they end inside the bubble that started them. The nodes' script engine refuses those outside MULTI
//     (sim/script: wouldBlock; SUBSCRIBE is the node's own model), and
//     inside MULTI miniredis queues a blocking command and runs it once
//     at EXEC without blocking (no goroutine, no context).
//   - A fresh instance's server is made with Dial (a net.Pipe and a
//     goroutine serving it, the WaitGroup's one Add): inside a bubble those
//     belong to it, the pipe is closed at once, the goroutine returns
//     within the bubble, and the WaitGroup is never used again (the pool
//     never closes or dials an instance).
//   - gopher-lua polls its state's context before every instruction; the
//     script engine's contexts (sim/script/budget.go) return a nil Done, or
//     a channel closed at package init outside any bubble, so a
//     coroutine's context.WithCancel starts no goroutine and makes no
//     channel.
//   - The world itself has no goroutine, channel or timer; its tasks'
//     coroutines (iter.Pull) exist only for design clients, and a real
//     client's world has external clients only.
//
// TestWorldInBubbleRecycled runs worlds in one bubble, then in another
// and outside any, over instances and Lua states made in the first.
type worldProxy struct {
	// mu and abandoned: once a stuck run is given up (stuck.go), the
	// governor, should it ever wake, must not reach the world again.
	mu        sync.Mutex
	abandoned bool
}

func newWorldProxy() *worldProxy { return &worldProxy{} }

// do runs f on the world. After last, it blocks for good instead.
func (p *worldProxy) do(f func()) {
	p.mu.Lock()
	if p.abandoned {
		p.mu.Unlock()
		select {} // a given-up run's governor: never again
	}
	f()
	p.mu.Unlock()
}

// last runs f on the world as the last call any goroutine makes: the
// runner of a stuck run reading what the world recorded, outside the
// bubble, while the governor is blocked for good.
func (p *worldProxy) last(f func()) {
	p.mu.Lock()
	p.abandoned = true
	f()
	p.mu.Unlock()
}
