package realclient

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

// do runs f on the world's goroutine and waits for it.
func (p *worldProxy) do(f func()) {
	p.req <- f
	<-p.done
}

func (p *worldProxy) stop() { close(p.req) }
