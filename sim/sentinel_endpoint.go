package sim

import (
	"slices"
	"strings"

	"locksim/sim/resp"
)

// The sentinel as a Sentinel RESP endpoint, for external processes: a
// stream dialed to SentinelName reaches the simulated sentinel (sentinel.go),
// which answers the commands a Sentinel client such as go-redis's
// NewFailoverClient sends, from its own view of the groups (a group's name
// is its master name), and pushes "+switch-master" to the streams that
// subscribed when it promotes a replica. It never crashes; partitions that
// name "sentinel" delay its streams.
//
//	SENTINEL GET-MASTER-ADDR-BY-NAME g  -> [primary, "6379"], or nil
//	SENTINEL SENTINELS g                -> [] (the sentinel is one process)
//	SENTINEL REPLICAS|SLAVES g          -> one flat field list per replica
//	SUBSCRIBE ch...                     -> ["subscribe", ch, n] per channel
//	PING                                -> PONG, or ["pong", ""] when subscribed
//	CLIENT SETINFO|SETNAME ...          -> OK; HELLO -> an error (RESP2 only)

// NodePort is the port every simulated Redis node is addressed by in a
// Sentinel reply ("r1", "6379").
const NodePort = "6379"

// sentinelServe answers one command that reached the sentinel on s.
func (w *World) sentinelServe(s *stream, c *call) {
	args := c.args
	cmd := strings.ToUpper(args[0])
	var replies []resp.Reply
	switch {
	case cmd == "PING" && len(s.subs) > 0:
		replies = []resp.Reply{{Kind: resp.Array, Elems: []resp.Reply{resp.BulkReply("pong"), resp.BulkReply("")}}}
	case cmd == "PING":
		replies = []resp.Reply{{Kind: resp.Status, Str: "PONG"}}
	case cmd == "HELLO":
		replies = []resp.Reply{resp.ErrorReply("ERR unknown command 'HELLO': locksim's sentinel speaks RESP2 only")}
	case cmd == "CLIENT" && len(args) > 1 && (strings.EqualFold(args[1], "SETINFO") || strings.EqualFold(args[1], "SETNAME")):
		replies = []resp.Reply{resp.OK}
	case cmd == "SUBSCRIBE" && len(args) > 1:
		for _, ch := range args[1:] {
			if !slices.Contains(s.subs, ch) {
				s.subs = append(s.subs, ch)
			}
			replies = append(replies, resp.Reply{Kind: resp.Array, Elems: []resp.Reply{
				resp.BulkReply("subscribe"), resp.BulkReply(ch), resp.IntReply(int64(len(s.subs)))}})
		}
	case cmd == "SENTINEL" && len(args) == 3:
		replies = []resp.Reply{w.sentinelCommand(strings.ToUpper(args[1]), args[2])}
	default:
		replies = []resp.Reply{resp.ErrorReply("ERR unknown command '" + args[0] + "': locksim's sentinel answers SENTINEL GET-MASTER-ADDR-BY-NAME, SENTINELS, REPLICAS, SUBSCRIBE and PING")}
	}
	for i, r := range replies {
		w.recordBounded(&Event{Actor: SentinelName, Kind: KindExec, Local: w.now, Peer: s.x.p.name, Args: args, Reply: recordedReply(r)})
		rc := c
		if i > 0 { // a reply of its own for each channel of a SUBSCRIBE
			cp := *c
			cp.rendered = ""
			rc = &cp
		}
		s.reply(rc, r, nil)
	}
}

// sentinelCommand answers SENTINEL sub group.
func (w *World) sentinelCommand(sub, name string) resp.Reply {
	g := w.groups[name]
	switch sub {
	case "GET-MASTER-ADDR-BY-NAME":
		if g == nil {
			return resp.Reply{Kind: resp.NilArray}
		}
		return resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.BulkReply(g.primary), resp.BulkReply(NodePort)}}
	case "SENTINELS":
		if g == nil {
			return resp.ErrorReply("ERR No such master with that name")
		}
		return resp.Reply{Kind: resp.Array}
	case "REPLICAS", "SLAVES":
		if g == nil {
			return resp.ErrorReply("ERR No such master with that name")
		}
		out := resp.Reply{Kind: resp.Array}
		for _, m := range g.members {
			n := w.nodes[m]
			if m == g.primary || n.role != roleReplica {
				continue
			}
			flags := "slave"
			if !w.sentinel.reachable(n) {
				flags += ",s_down,disconnected"
			}
			var fs []resp.Reply
			for _, f := range []string{"name", m + ":" + NodePort, "ip", m, "port", NodePort, "flags", flags} {
				fs = append(fs, resp.BulkReply(f))
			}
			out.Elems = append(out.Elems, resp.Reply{Kind: resp.Array, Elems: fs})
		}
		return out
	}
	return resp.ErrorReply("ERR unknown sentinel subcommand '" + sub + "'")
}

// publishSwitch pushes "+switch-master <group> <old> 6379 <new> 6379" to
// every open sentinel stream subscribed to it, as a Sentinel does after a
// failover.
func (w *World) publishSwitch(g *group, old string) {
	if w.ext == nil {
		return
	}
	payload := g.name + " " + old + " " + NodePort + " " + g.primary + " " + NodePort
	msg := resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.BulkReply("message"), resp.BulkReply("+switch-master"), resp.BulkReply(payload)}}
	for _, id := range sortedIDs(w.ext.streams) {
		s := w.ext.streams[id]
		if s.node != nil || s.broken || s.closed || !slices.Contains(s.subs, "+switch-master") {
			continue
		}
		s.push(msg, "+switch-master", payload)
	}
}

// push sends a message the client did not ask for on s.
func (s *stream) push(r resp.Reply, channel, payload string) {
	w, x := s.x.w, s.x
	f := w.net.SendStream(s.peer, x.p.name, w.now)
	if !f.Delivered {
		s.breakAt(f.At, f.Why+": a pushed message was lost")
		return
	}
	w.schedule(f.At, func() {
		if s.broken || s.closed || x.exited {
			return
		}
		x.deliver(func() {
			if s.broken || s.closed {
				return
			}
			w.record(&Event{Actor: x.p.name, Task: "main", Kind: KindMessage, Local: x.Now(), Peer: s.peer, Key: channel, Note: payload})
			x.effect(Effect{Kind: EffectData, Stream: s.id, Reply: r})
		})
	})
}
