package realclient

import (
	"context"
	"net"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/pkg/errors"
	"github.com/redis/go-redis/v9"

	"locksim/model"
)

// Goroutines sharing one client (WithGoroutines with Env.SharedClients):
// the process's go-redis clients are built once, and their connection
// pool hands one connection to A.1's command, then to A.2's. The world
// must see each command as its issuer's (the checkers judge A.1 and A.2
// as clients), so the issuer is read, when the command is written, from
// the writing goroutine's pprof label (label.go): each workload goroutine
// carries its own, and the goroutines it starts inherit it. A command
// whose issuer cannot be read so (written by a goroutine started while a
// shared object was built, or by a timer's goroutine, which carries no
// label) is not given to anyone: the run is refused, since a command
// given to the wrong goroutine could invent a mutual-exclusion violation
// or hide one.

// xprocLabels numbers the client goroutines' labels across the test
// binary's runs, so that no goroutine of an earlier run's bubble can name
// one of this run's.
var xprocLabels atomic.Uint64

// labelAs gives the calling goroutine (a client program's) p's labels:
// its process or goroutine name (clientLabel, which stuck reports show)
// and its incarnation's id (goroutineLabel, which attribution reads).
func (p *xproc) labelAs() {
	p.label = strconv.FormatUint(xprocLabels.Add(1), 10)
	p.labels = pprof.WithLabels(context.Background(), pprof.Labels(clientLabel, p.name, goroutineLabel, p.label))
	p.d.mu.Lock()
	if p.d.byLabel == nil {
		p.d.byLabel = map[string]*xproc{}
	}
	p.d.byLabel[p.label] = p
	p.d.mu.Unlock()
	pprof.SetGoroutineLabels(p.labels)
}

// labelled returns the client goroutine the calling goroutine works for,
// by its label, or nil (no label, a shared build's, another run's).
func (d *driver) labelled() *xproc {
	l := currentLabel(goroutineLabel)
	if l == "" {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.byLabel[l]
}

// self returns the goroutine of p's process the calling goroutine works
// for: itself when its label says so, else p (with one goroutine per
// process, always p). It orders turns and dials, which the checkers do
// not judge; a command's issuer is writer's.
func (p *xproc) self() *xproc {
	if p.d.goroutines <= 1 {
		return p
	}
	if g := p.d.labelled(); g != nil && g.process == p.process {
		return g
	}
	return p
}

// writer returns the client goroutine a command written now on c is
// from. With one goroutine per process it is the connection's own. Else
// it is the writing goroutine's label's, which must be of the
// connection's process; a goroutine without one writes for the
// connection's dialer only on a connection of the dialer's own clients
// (Env.Clients) that no other goroutine has used: a timer of its
// library's. On any other (Env.SharedClients', a client of your own)
// the label decides.
// Anything else returns the reason the run is refused (Write records it
// with the command), and the command goes out as the dialer's so that
// the run can end.
func (c *conn) writer() (*xproc, error) {
	d := c.d
	if d.goroutines <= 1 {
		return c.p, nil
	}
	g := d.labelled()
	switch {
	case g != nil && g.process == c.p.process:
		if g != c.p {
			c.mixed.Store(true)
		}
		return g, nil
	case g != nil:
		return c.p, errors.Errorf("goroutine %s wrote it on a connection of process %s: processes do not share connections", g.name, c.p.process)
	}
	l := currentLabel(goroutineLabel)
	if c.private && !c.mixed.Load() && l != sharedBuildLabel {
		return c.p, nil // a timer's goroutine on a goroutine's own client
	}
	return c.p, errors.Errorf("it was written on a connection process %s's goroutines share by %s, which works for none of them: which of them issued it cannot be told, and giving it to the wrong one could invent a mutual-exclusion violation or hide one, so the run is refused; start the library's goroutines from the goroutine whose lock they serve (they inherit its label), not from Env.Shared's build or a time.AfterFunc",
		c.p.process, unlabelledWhy(l))
}

// unlabelledWhy says what kind of goroutine carried label l.
func unlabelledWhy(l string) string {
	switch l {
	case sharedBuildLabel:
		return "a goroutine started while Env.Shared built a shared object"
	case "":
		return "a goroutine with no label: a timer's (time.AfterFunc) or one started outside the run"
	}
	return "a goroutine of another run"
}

// commandText shows a command in a refusal, cut short.
func commandText(args []string) string {
	s := strings.Join(args, " ")
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return "command " + strconv.Quote(s)
}

// sharedClientsKey is the Env.Shared key of Env.SharedClients' clients.
const sharedClientsKey = "locksim/realclient.SharedClients"

// SharedClients returns the go-redis clients the process's goroutines
// share, one per independent master (m1..mN), as a service shares one
// *redis.Client (one connection pool) between its goroutines: the first
// goroutine of the process (of its current incarnation) to call it builds
// them, with the options Env.Clients get (WithRedisOptions included),
// and every goroutine gets the same ones. Hand them to each goroutine's
// lock. Each command is its issuer's in the history (A.1 or A.2, read
// from the label the issuing goroutine inherits from its workload
// goroutine), whichever connection of the pool carries it; a command
// whose issuer cannot be read so refuses the run with the reason. They
// are closed when the process's last goroutine ends; a crash breaks
// their connections, and the restarted process builds new ones. With one
// goroutine per process they are the process's own clients, built once.
func (e Env) SharedClients() ([]*redis.Client, error) {
	v, err := e.Shared(sharedClientsKey, func() (any, error) {
		return e.p.newClients(e.rc, true), nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]*redis.Client), nil
}

// newClients builds the process's go-redis clients, one per master:
// Env.Clients, or with shared Env.SharedClients' (their connections
// marked shared, their turns the issuing goroutine's).
func (p *xproc) newClients(rc *runConfig, shared bool) []*redis.Client {
	var out []*redis.Client
	for g := 0; g < rc.spec.Topology.Masters; g++ {
		group := model.GroupName(g)
		opt := &redis.Options{
			Addr: group + ":6379",
			Dialer: func(ctx context.Context, _, _ string) (net.Conn, error) {
				if shared {
					// The pool is the process's, whose goroutines' own
					// counts (connOpened) do not see it fill: say it may
					// have waited for a turn on a pooled timer.
					p.d.poolTimers.Store(true)
					return p.self().dialAs(ctx, group, false)
				}
				return p.dialAs(ctx, group, true)
			},
			// Fixed, not 10 x GOMAXPROCS: a run must not depend on the
			// machine.
			PoolSize: 10,
		}
		disableMaintNotifications(opt)
		if rc.redisOptions != nil {
			rc.redisOptions(opt)
		}
		p.notePoolSize(opt.PoolSize)
		c := redis.NewClient(opt)
		c.AddHook(gateHook{p: p, group: group, shared: shared})
		if shared {
			p.closeAtExit(c) // inside Shared's build: when the process's last goroutine ends
		}
		out = append(out, c)
	}
	return out
}
