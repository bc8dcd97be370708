package model

import (
	"strconv"
	"strings"

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
//	READ                                  -> (integer) value
//	WRITE token lockvalue newvalue [state] -> (integer) 1 applied, 0 rejected
//	STATE                                 -> "state" last_token value
type Resource struct {
	// Fencing is the acceptance rule.
	Fencing Fencing
	// Value is the counter the workload increments.
	Value int64
	// LastToken is the last accepted token.
	LastToken int64
	// State is the free-form state a write may set (e.g. CANCELLED).
	State string
}

// ResourceName is the service's endpoint name.
const ResourceName = "resource"

// accepts applies the fencing rule.
func (r *Resource) accepts(token int64) bool {
	switch r.Fencing {
	case FenceStrict:
		return token > r.LastToken
	case FenceNonstrict:
		return token >= r.LastToken
	default:
		return true
	}
}

// Handle implements sim.Service.
func (r *Resource) Handle(sc *sim.ServiceCtx, from string, args []string) resp.Reply {
	switch strings.ToUpper(args[0]) {
	case "READ":
		sc.Record(sim.Event{Kind: KindResRead, Peer: from, N: r.Value})
		return resp.IntReply(r.Value)
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
			sc.Record(sim.Event{Kind: KindResWrite, Peer: from, Token: token, Value: args[2], N: 0,
				Note: "rejected: token " + args[1] + " <= last " + strconv.FormatInt(r.LastToken, 10)})
			return resp.IntReply(0)
		}
		r.Value = val
		if token > r.LastToken {
			r.LastToken = token
		}
		if len(args) == 5 {
			r.State = args[4]
		}
		sc.Record(sim.Event{Kind: KindResWrite, Peer: from, Token: token, Value: args[2], N: 1,
			Note: "value=" + args[3]})
		return resp.IntReply(1)
	default:
		return resp.ErrorReply("ERR resource: unknown command '" + args[0] + "'")
	}
}
