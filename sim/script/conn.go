package script

import (
	"github.com/alicebob/miniredis/v2/server"

	"locksim/sim/resp"
)

// Conn is one client connection to the node: its own miniredis peer (so its
// own selected DB, WATCHed keys and client name) and, in fast mode, its own
// MULTI queue.
type Conn struct {
	e    *Engine
	peer *server.Peer
	db   int      // selected DB, tracked from successful SELECTs
	tx   *txState // non-nil between MULTI and EXEC/DISCARD (fast mode)
}

// Peer is the connection's miniredis peer (its protocol, Resp3, and its
// name).
func (c *Conn) Peer() *server.Peer { return c.peer }

// Do runs one command of any kind on the node and returns its reply: script
// commands (EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT) through the fast
// path, MULTI/EXEC/DISCARD through the Conn's own transaction (so that
// scripts can be queued), everything else through miniredis's
// server.Dispatch. The caller sets the node's time (m.SetTime) before Do.
//
// Outside MULTI, commands that would block or start goroutines in miniredis
// (BLPOP and the other blocking pops, XREAD/XREADGROUP with BLOCK,
// SUBSCRIBE, PSUBSCRIBE) get an error reply instead. With Options.Slow every
// command goes to miniredis unchanged.
func (c *Conn) Do(args ...string) resp.Reply {
	e := c.e
	if len(args) == 0 {
		return resp.ErrorReply("ERR locksim: empty command")
	}
	if e.slow {
		return e.dispatch(c.peer, args)
	}
	info, special := lookup(args[0], &e.nameBuf)
	if c.tx != nil {
		return c.queue(info, special, args)
	}
	if !special {
		return e.dispatch(c.peer, args)
	}
	switch info.kind {
	case kindEval, kindEvalSHA, kindScript:
		return c.scriptCommand(info, args)
	case kindMulti:
		if len(args) == 1 {
			c.tx = &txState{}
			return resp.OK
		}
	case kindSelect:
		r := e.dispatch(c.peer, args)
		noteSelect(&c.db, args, r)
		return r
	}
	if wouldBlock(info, args) {
		return resp.ErrorReply(msgNotSimulated(args[0]))
	}
	return e.dispatch(c.peer, args)
}
