package sim

import (
	"strconv"
	"strings"
	"time"

	"locksim/sim/resp"
)

// A simulated process (a model design) talks to a cluster as a cluster
// client does: a Call to a group name goes to the node its slot map says
// serves the command's keys, and follows redirects (cluster_client.go).
//
// The map starts as the cluster's at the run's start (the client read
// CLUSTER SLOTS when it connected). A MOVED reply updates it and the
// command goes to the node named; an ASK reply sends ASKING and the
// command to the node named, leaving the map alone; TRYAGAIN waits
// ClusterTryAgainDelay and retries. At most ClusterMaxRedirects
// redirects and retries per call (go-redis's MaxRedirects default is 3),
// after which the last reply is returned. A call that fails (refused,
// timed out, CLUSTERDOWN) makes the process read the slot map again for
// the next one (reload), so that it finds a promoted replica. Each attempt waits up to the
// call's timeout; ASKING is a call of its own, so a fault can fall
// between it and the command.

// ClusterMaxRedirects bounds the redirects a simulated process follows
// per call.
const ClusterMaxRedirects = 3

// ClusterTryAgainDelay is how long a simulated process waits before it
// retries a command refused with TRYAGAIN.
const ClusterTryAgainDelay = 10 * time.Millisecond

// clusterCall is Call to a group of a cluster.
func (c *Ctx) clusterCall(timeout time.Duration, args []string) (resp.Reply, error) {
	p := c.t.p
	cl := c.w.cluster
	node := cl.firstNode(p, args)
	asking := false
	for tries := 0; ; tries++ {
		if asking {
			if r, err := c.rawCall(node, timeout, "ASKING"); err != nil || r.IsError() {
				return r, err
			}
		}
		r, err := c.rawCall(node, timeout, args...)
		p.routed = node
		if err != nil || r.Kind == resp.Error && strings.HasPrefix(r.Str, "CLUSTERDOWN ") {
			cl.reload(p, args) // the next call goes where the cluster's map says now
		}
		if err != nil || r.Kind != resp.Error || tries == ClusterMaxRedirects {
			return r, err
		}
		kind, slot, to, ok := parseRedirect(r.Str)
		switch {
		case ok && kind == "MOVED":
			if p.slots == nil {
				p.slots = map[int]string{}
			}
			p.slots[slot] = to
			node, asking = to, false
		case ok && kind == "ASK":
			node, asking = to, true
		case strings.HasPrefix(r.Str, "TRYAGAIN "):
			c.Sleep(ClusterTryAgainDelay)
		default:
			return r, err
		}
	}
}

// ClusterNode returns the node this process would send a command on key
// to first (its slot map), or "" when the world is not a cluster. A
// design that records which node granted its lock asks it.
func (c *Ctx) ClusterNode(key string) string {
	if c.w.cluster == nil {
		return ""
	}
	return c.w.cluster.firstNode(c.t.p, []string{"GET", key})
}

// rawCall is Call to a node, without cluster routing.
func (c *Ctx) rawCall(node string, timeout time.Duration, args ...string) (resp.Reply, error) {
	c.t.op, c.t.target, c.t.args, c.t.timeout = opCall, node, args, timeout
	c.yield()
	return c.t.reply, c.t.callErr
}

// firstNode is where process p sends a command first: the node its slot
// map gives the slot of the command's first key, or, for a keyless
// command (WAIT), the node its last command went to, as a client sends
// WAIT on the connection of the write it waits for (the first shard's
// primary before any).
func (cl *cluster) firstNode(p *proc, args []string) string {
	keys, _ := clusterCommandKeys(strings.ToUpper(args[0]), args)
	if len(keys) == 0 {
		if p.routed != "" {
			return p.routed
		}
		return cl.groups[0].primary
	}
	slot := KeySlot(keys[0])
	if n, ok := p.slots[slot]; ok {
		return n
	}
	if g := cl.initial[slot]; g >= 0 {
		return cl.w.cfg.Groups[g].Primary
	}
	return cl.groups[0].primary
}

// reload is a process reading the slot map again after a failed call (as
// go-redis reloads CLUSTER SLOTS): the command's slot maps to its owner's
// current primary. The read itself is not simulated: it takes no time and
// no fault reaches it.
func (cl *cluster) reload(p *proc, args []string) {
	keys, _ := clusterCommandKeys(strings.ToUpper(args[0]), args)
	if len(keys) == 0 {
		return
	}
	slot := KeySlot(keys[0])
	if o := cl.owner[slot]; o >= 0 {
		if p.slots == nil {
			p.slots = map[int]string{}
		}
		p.slots[slot] = cl.groups[o].primary
	}
}

// parseRedirect reads "MOVED 3999 r2:6379" or "ASK 3999 r2:6379".
func parseRedirect(s string) (kind string, slot int, node string, ok bool) {
	f := strings.Fields(s)
	if len(f) != 3 || (f[0] != "MOVED" && f[0] != "ASK") {
		return "", 0, "", false
	}
	slot, err := strconv.Atoi(f[1])
	if err != nil {
		return "", 0, "", false
	}
	host, _, found := strings.Cut(f[2], ":")
	if !found {
		return "", 0, "", false
	}
	return f[0], slot, host, true
}
