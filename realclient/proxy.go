package realclient

import "sync"

// worldProxy runs the simulated world on a goroutine outside the synctest
// bubble: miniredis instances and Lua states are pooled across runs, and
// none of them may become tied to one bubble (a channel or WaitGroup used
// from another bubble, or from none, panics). The governor inside the
// bubble hands it closures one at a time and waits for each; its channels
// are created outside the bubble, so the governor waiting on them is not
// durably blocked and bubble time stands still meanwhile.
type worldProxy struct {
	req  chan func()
	done chan struct{}
	// mu and abandoned: once a stuck run is given up (stuck.go), the
	// governor, should it ever wake, must not reach the world again.
	mu        sync.Mutex
	abandoned bool
}

// newWorldProxy starts the world's goroutine. It must be called outside
// the bubble; stop ends the goroutine.
func newWorldProxy() *worldProxy {
	p := &worldProxy{req: make(chan func()), done: make(chan struct{})}
	go func() {
		for f := range p.req {
			f()
			p.done <- struct{}{}
		}
	}()
	return p
}

// do runs f on the world's goroutine and waits for it. After last, it
// blocks for good instead.
func (p *worldProxy) do(f func()) {
	p.mu.Lock()
	if p.abandoned {
		p.mu.Unlock()
		select {} // a given-up run's governor: never again
	}
	p.req <- f
	<-p.done
	p.mu.Unlock()
}

// last runs f on the world's goroutine as the last call any goroutine
// makes: the runner of a stuck run reading what the world recorded.
func (p *worldProxy) last(f func()) {
	p.mu.Lock()
	p.abandoned = true
	p.req <- f
	<-p.done
	p.mu.Unlock()
}

func (p *worldProxy) stop() { close(p.req) }
