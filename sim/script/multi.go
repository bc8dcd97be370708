package script

import (
	"slices"
	"strings"

	"locksim/sim/resp"
)

// txState is a Conn's open transaction.
//
// miniredis queues commands as closures inside its own connection state, so
// it cannot queue a script for the fast path. The Conn therefore keeps the
// queue itself and uses miniredis only for what it decides:
//   - queue time: each command is first dispatched on the engine's
//     validation peer, which sits in MULTI with an empty queue, so the reply
//     (QUEUED or an error) and the dirty flag are miniredis's own;
//   - EXEC: runs of plain commands between scripts are replayed on the
//     Conn's peer inside a real MULTI/EXEC (the first one, possibly empty,
//     also checks the WATCHed keys), and the scripts run on the fast path in
//     between. Nothing else runs in between, as the node is single-threaded.
type txState struct {
	queue [][]string
	dirty bool // a queue-time error made miniredis mark the transaction
}

// queue handles a command while c is inside MULTI.
func (c *Conn) queue(info cmdInfo, special bool, args []string) resp.Reply {
	e := c.e
	if special && len(args) == 1 {
		switch info.kind {
		case kindExec:
			return c.exec()
		case kindDiscard:
			c.tx = nil
			e.dispatch(c.peer, []string{"UNWATCH"}) // DISCARD unwatches
			return resp.OK
		case kindUnwatch:
			// miniredis unwatches at once and also queues the command.
			e.dispatch(c.peer, []string{"UNWATCH"})
			c.tx.queue = append(c.tx.queue, slices.Clone(args))
			return resp.Reply{Kind: resp.Status, Str: "QUEUED"}
		}
	}
	if special && info.kind == kindSubscribe && info.arity.ok(len(args)-1) {
		c.tx.dirty = true
		return resp.ErrorReply(msgNotSimulated(args[0]))
	}
	return c.validate(args)
}

// validate dispatches args on the validation peer and queues it if
// miniredis did.
func (c *Conn) validate(args []string) resp.Reply {
	e := c.e
	r := e.dispatch(e.valPeer, args)
	e.valPeer.Resp3 = false
	e.valPeer.SwitchResp3 = nil
	e.valPeer.ClientName = ""
	switch {
	case isStatus(r, "QUEUED"):
		e.dispatch(e.valPeer, []string{"DISCARD"})
		e.dispatch(e.valPeer, []string{"MULTI"})
		c.tx.queue = append(c.tx.queue, slices.Clone(args))
		return r
	case r.Kind == resp.Error:
		// EXEC on the empty queue tells whether the error made the
		// transaction dirty (EXECABORT) or not (an empty array). The
		// refusals a node's pre-hook gives for Redis's queue-time checks
		// (a write on a replica, a limit) make it dirty as in Redis.
		if e.dispatch(e.valPeer, []string{"EXEC"}).Kind == resp.Error || queueTimeRefusal(r.Str) {
			c.tx.dirty = true
		}
		e.dispatch(e.valPeer, []string{"MULTI"})
		return r
	default:
		// miniredis runs a few commands at once even inside MULTI (WAIT,
		// HELLO, COMMAND, ...): run it for real on the connection.
		return e.dispatch(c.peer, args)
	}
}

// exec runs the queued commands.
func (c *Conn) exec() resp.Reply {
	e := c.e
	tx := c.tx
	c.tx = nil
	if tx.dirty {
		e.dispatch(c.peer, []string{"UNWATCH"}) // a failed EXEC unwatches
		return resp.ErrorReply(msgExecAbort)
	}
	out := make([]resp.Reply, 0, len(tx.queue))
	q := tx.queue
	for first := true; first || len(q) > 0; first = false {
		n := 0
		for n < len(q) && !c.isScript(q[n]) {
			n++
		}
		if n > 0 || first {
			r, ok := c.execSegment(q[:n])
			if !ok {
				return r
			}
			out = append(out, r.Elems...)
			q = q[n:]
		}
		if len(q) > 0 {
			if info, ok := lookup(q[0][0], &e.nameBuf); ok {
				out = append(out, c.scriptCommand(info, q[0]))
			} else {
				out = append(out, e.dispatch(c.peer, q[0])) // Options.RunsAlone
			}
			q = q[1:]
		}
	}
	return resp.Reply{Kind: resp.Array, Elems: out}
}

// isScript reports whether a queued command runs on its own at EXEC: a
// script command, or one Options.RunsAlone claims.
func (c *Conn) isScript(args []string) bool {
	info, ok := lookup(args[0], &c.e.nameBuf)
	if ok && (info.kind == kindEval || info.kind == kindEvalSHA || info.kind == kindScript) {
		return true
	}
	return !ok && c.e.runsAlone != nil && c.e.runsAlone(args)
}

// execSegment runs plain commands in one miniredis MULTI/EXEC on c's peer.
// ok is false when the EXEC reply is to be returned as is (a WATCHed key
// changed: nil array) or something unexpected happened.
func (c *Conn) execSegment(cmds [][]string) (resp.Reply, bool) {
	e := c.e
	if r := e.dispatch(c.peer, []string{"MULTI"}); !isOK(r) {
		return resp.ErrorReply("ERR locksim: MULTI at EXEC failed: " + r.String()), false
	}
	for _, args := range cmds {
		if r := e.dispatch(c.peer, args); !isStatus(r, "QUEUED") {
			e.dispatch(c.peer, []string{"DISCARD"})
			return resp.ErrorReply("ERR locksim: command not queued at EXEC: " + r.String()), false
		}
	}
	r := e.dispatch(c.peer, []string{"EXEC"})
	if r.Kind != resp.Array || len(r.Elems) != len(cmds) {
		return r, false
	}
	for i, args := range cmds {
		if info, ok := lookup(args[0], &e.nameBuf); ok && info.kind == kindSelect {
			noteSelect(&c.db, args, r.Elems[i])
		}
	}
	return r, true
}

// queueTimeRefusal reports whether msg is an error Redis gives before it
// queues a command in MULTI, flagging the transaction: READONLY on a
// replica, NOREPLICAS on a primary short of good replicas, locksim's
// limits (as Redis's OOM), and a command the node's release does not have
// (Redis's wording, which package sim's pre-hook gives; miniredis's own,
// with backquotes, does not flag the transaction).
func queueTimeRefusal(msg string) bool {
	return strings.HasPrefix(msg, "READONLY ") || strings.HasPrefix(msg, "NOREPLICAS ") || strings.Contains(msg, "(limits: ") ||
		strings.HasPrefix(msg, "ERR unknown command '")
}
