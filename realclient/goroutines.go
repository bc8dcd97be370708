package realclient

import (
	"io"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"locksim/model"
	"locksim/sim"
)

// WithGoroutines runs n workload goroutines in each client process
// instead of one: process A's goroutines are clients A.1 .. A.n of the
// history, each building its own lock with the Setup (Env.Goroutine says
// which) and running its own cycles, and each judged as a client by the
// invariant checkers. Objects a library shares between the goroutines of
// one process (a locker, a pool, a cached value) come from Env.Shared. A
// fault on process A (pause, crash, a partition or a link fault naming
// A) acts on all its goroutines at the same instant; a fault triggered
// by A's events counts A.1's. n of 0 or 1 is one goroutine per process,
// named as the process.
//
// Each goroutine has its own go-redis clients (Env.Clients); to share
// one set between the process's goroutines, as a service shares its
// *redis.Client, use Env.SharedClients: each command is then its issuing
// goroutine's, whichever pooled connection carries it (shareconn.go).
func WithGoroutines(n int) Option { return func(c *config) { c.goroutines = n } }

// goroutineSep joins a process's name and a goroutine's number ("A.1").
const goroutineSep = "."

// goroutineName is process's i-th goroutine's client name (from 1).
func goroutineName(process string, i int) string {
	return process + goroutineSep + strconv.Itoa(i)
}

// processOf returns the process a client name belongs to ("A.2" -> "A")
// and the goroutine's number (0 for a process run as one goroutine).
func processOf(client string, n int) (string, int) {
	if n <= 1 {
		return client, 0
	}
	i := strings.LastIndex(client, goroutineSep)
	if i < 0 {
		return client, 0
	}
	g, err := strconv.Atoi(client[i+1:])
	if err != nil {
		return client, 0
	}
	return client[:i], g
}

// expandGoroutines returns the spec's clients with each process split
// into n goroutines, A.1 .. A.n (the spec's own list when n <= 1).
func expandGoroutines(clients []string, n int) []string {
	if n <= 1 {
		return clients
	}
	var out []string
	for _, c := range clients {
		for i := 1; i <= n; i++ {
			out = append(out, goroutineName(c, i))
		}
	}
	return out
}

// validateGoroutines refuses a goroutine count or client names the
// expansion cannot take.
func validateGoroutines(s model.Spec, n int) error {
	if n < 0 || n > maxGoroutines {
		return errors.Errorf("WithGoroutines(%d): want 1 to %d goroutines per process", n, maxGoroutines)
	}
	if n <= 1 {
		return nil
	}
	for _, c := range s.Clients {
		if strings.Contains(c, goroutineSep) {
			return errors.Errorf("client %q: with WithGoroutines a process's name must not contain %q (its goroutines are named %s)", c, goroutineSep, goroutineName(c, 1))
		}
	}
	return nil
}

// maxGoroutines bounds WithGoroutines: every goroutine is a client of the
// simulation, with its own connections.
const maxGoroutines = 16

// splitProcesses rewrites a world configuration built for the spec's
// processes into one whose clients are the processes' goroutines: each
// client config is copied per goroutine, a fault on a process becomes one
// fault per goroutine (the same instant, the same trigger), partition
// sides and link ends naming a process name all its goroutines, and a
// trigger on a process's events counts its first goroutine's.
func splitProcesses(cfg *sim.Config, n int) {
	if n <= 1 {
		return
	}
	procs := map[string]bool{}
	var clients []sim.ClientConfig
	for _, c := range cfg.Clients {
		procs[c.Name] = true
		for i := 1; i <= n; i++ {
			g := c
			g.Name = goroutineName(c.Name, i)
			g.Process = c.Name // its goroutines may share its streams (Env.SharedClients)
			clients = append(clients, g)
		}
	}
	cfg.Clients = clients
	names := func(p string) []string {
		if !procs[p] {
			return []string{p}
		}
		return expandGoroutines([]string{p}, n)
	}
	side := func(ends []string) []string {
		var out []string
		for _, e := range ends {
			out = append(out, names(e)...)
		}
		return out
	}
	var faults []sim.Fault
	for _, f := range cfg.Faults {
		if f.After != nil && procs[f.After.Actor] {
			t := *f.After
			t.Actor = goroutineName(t.Actor, 1)
			f.After = &t
		}
		f.A, f.B = side(f.A), side(f.B)
		for _, target := range names(f.Target) {
			for _, from := range names(f.From) {
				for _, to := range names(f.To) {
					g := f
					g.Target, g.From, g.To = target, from, to
					g.A, g.B = slices.Clone(f.A), slices.Clone(f.B)
					faults = append(faults, g)
				}
			}
		}
	}
	cfg.Faults = faults
}

// sharedStore holds the objects one incarnation of a process shares
// between its goroutines (Env.Shared). lock is a channel, not a
// sync.Mutex: a goroutine waiting on it is durably blocked, as the
// governor's synctest.Wait needs.
type sharedStore struct {
	lock    chan struct{}
	objects map[string]any
	// closers are the clients built for the process (Env.SharedClients,
	// or registered with Env.CloseAtExit inside a build), closed when
	// the last of its goroutines, left, ends (under lock).
	closers []io.Closer
	left    int
}

// Shared returns the object the process's goroutines share under key,
// building it with build on the first call of the process's current
// incarnation (a restarted process builds afresh, as a new process
// would). Use it in a Setup for what a library keeps per process: one
// locker object handing out locks to the goroutines, a client pool. An
// error from build is returned, and the next call builds again. A client
// build registers to close (Env.CloseAtExit, SharedClients) is closed
// when the process's last goroutine ends; a goroutine build starts works
// for the process, not for one goroutine, so a command it writes on a
// connection the goroutines share refuses the run (its issuer cannot be
// told: shareconn.go).
func (e Env) Shared(key string, build func() (any, error)) (any, error) {
	st := e.p.shared()
	st.lock <- struct{}{}
	defer func() { <-st.lock }()
	if v, ok := st.objects[key]; ok {
		return v, nil
	}
	// While it builds, a client registered to close is the process's
	// (closed by its last goroutine), and a goroutine the build starts
	// carries the process's label, not this goroutine's: a command it
	// writes on a shared connection has no known issuer (shareconn.go).
	e.p.building = st
	if e.p.labels != nil {
		pprof.SetGoroutineLabels(pprof.WithLabels(e.p.labels, pprof.Labels(clientLabel, e.p.process, goroutineLabel, sharedBuildLabel)))
	}
	v, err := build()
	e.p.building = nil
	if e.p.labels != nil {
		pprof.SetGoroutineLabels(e.p.labels)
	}
	if err != nil {
		return nil, err
	}
	st.objects[key] = v
	return v, nil
}

// leaveShared is called as the goroutine's program ends: the last of the
// incarnation's goroutines to end closes what the process built for all
// of them (in reverse order of building).
func (p *xproc) leaveShared() {
	d := p.d
	d.mu.Lock()
	st := d.sharedStores[p.storeKey()]
	d.mu.Unlock()
	if st == nil {
		return // the process built nothing to share
	}
	st.lock <- struct{}{}
	st.left--
	var closers []io.Closer
	if st.left == 0 {
		closers, st.closers = st.closers, nil
	}
	<-st.lock
	for i := len(closers) - 1; i >= 0; i-- {
		closers[i].Close()
	}
}

// storeKey names the store of p's process's incarnation.
func (p *xproc) storeKey() string { return p.process + "#" + strconv.Itoa(p.incarnation) }

// shared returns the store of the process's current incarnation.
func (p *xproc) shared() *sharedStore {
	d := p.d
	k := p.storeKey()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sharedStores == nil {
		d.sharedStores = map[string]*sharedStore{}
	}
	st := d.sharedStores[k]
	if st == nil {
		st = &sharedStore{lock: make(chan struct{}, 1), objects: map[string]any{}, left: max(d.goroutines, 1)}
		d.sharedStores[k] = st
	}
	return st
}
