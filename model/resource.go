package model

import (
	"strconv"
	"strings"

	"locksim/model/history"
	"locksim/sim"
	"locksim/sim/resp"
)

// Resource is the protected storage service (seed 000's FencingResource,
// in SQL `UPDATE ... SET state=?, last_token=? WHERE id=? AND last_token <
// ?`). It applies a write atomically only if the fencing rule accepts its
// token, and answers rows affected, 1 or 0.
//
// Commands (sent by clients with sim.Ctx.Call to the service "resource"):
//
//	READ [token]                          -> (integer) value (token: strict-reads)
//	WRITE token lockvalue newvalue [state] -> (integer) 1 applied, 0 rejected
//	STATE                                 -> "state" last_token value
type Resource struct {
	// Fencing is the acceptance rule.
	Fencing Fencing
	// Value is the counter the workload increments.
	Value int64
	// LastToken is the last accepted token.
	LastToken int64
	// Highest is the highest token seen on any operation (strict-reads).
	Highest int64
	// State is the free-form state a write may set (e.g. CANCELLED).
	State string
}

// ResourceName is the service's endpoint name (history.ResourceName).
const ResourceName = history.ResourceName

// accepts applies the fencing rule.
func (r *Resource) accepts(token int64) bool {
	switch r.Fencing {
	case FenceStrict:
		return token > r.LastToken
	case FenceNonstrict:
		return token >= r.LastToken
	case FenceStrictReads:
		return token > r.LastToken && token >= r.Highest
	default:
		return true
	}
}

// Handle implements sim.Service.
func (r *Resource) Handle(sc *sim.ServiceCtx, from string, args []string) resp.Reply {
	switch strings.ToUpper(args[0]) {
	case "READ":
		if r.Fencing == FenceStrictReads && len(args) == 2 {
			token, err := strconv.ParseInt(args[1], 10, 64)
			if err != nil {
				return resp.ErrorReply("ERR resource: token must be an integer")
			}
			if token < r.Highest {
				reply := resp.ErrorReply("FENCED token " + args[1] + " is older than " + strconv.FormatInt(r.Highest, 10))
				sc.Record(sim.Event{Kind: history.KindResRead, Peer: from, Token: token, N: r.Value, Reply: reply.String(),
					Note: "rejected: token " + args[1] + " < highest seen " + strconv.FormatInt(r.Highest, 10)})
				return reply
			}
			r.Highest = token
			return r.served(sc, from, token)
		}
		return r.served(sc, from, 0)
	case "STATE":
		return resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.BulkReply(r.State), resp.IntReply(r.LastToken), resp.IntReply(r.Value)}}
	case "WRITE":
		if len(args) < 4 || len(args) > 5 {
			return resp.ErrorReply("ERR resource: WRITE token lockvalue newvalue [state]")
		}
		token, err1 := strconv.ParseInt(args[1], 10, 64)
		val, err2 := strconv.ParseInt(args[3], 10, 64)
		if err1 != nil || err2 != nil {
			return resp.ErrorReply("ERR resource: token and value must be integers")
		}
		if !r.accepts(token) {
			why := "rejected: token " + args[1] + " <= last " + strconv.FormatInt(r.LastToken, 10)
			switch {
			case r.Fencing == FenceNonstrict:
				why = "rejected: token " + args[1] + " < last " + strconv.FormatInt(r.LastToken, 10)
			case r.Fencing == FenceStrictReads && token < r.Highest:
				why = "rejected: token " + args[1] + " < highest seen " + strconv.FormatInt(r.Highest, 10)
			}
			sc.Record(sim.Event{Kind: history.KindResWrite, Peer: from, Token: token, Value: args[2], N: val, Reply: rejected, Note: why})
			return resp.IntReply(0)
		}
		r.Highest = max(r.Highest, token)
		r.Value = val
		if token > r.LastToken {
			r.LastToken = token
		}
		if len(args) == 5 {
			r.State = args[4]
		}
		sc.Record(sim.Event{Kind: history.KindResWrite, Peer: from, Token: token, Value: args[2], N: val, Reply: applied})
		return resp.IntReply(1)
	default:
		return resp.ErrorReply("ERR resource: unknown command '" + args[0] + "'")
	}
}

// The replies to a write, as res-write events record them.
var (
	applied  = resp.IntReply(1).String()
	rejected = resp.IntReply(0).String()
)

// served answers a read and records it.
func (r *Resource) served(sc *sim.ServiceCtx, from string, token int64) resp.Reply {
	reply := resp.IntReply(r.Value)
	sc.Record(sim.Event{Kind: history.KindResRead, Peer: from, Token: token, N: r.Value, Reply: reply.String()})
	return reply
}
