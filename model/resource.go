package model

import (
	"strconv"
	"strings"

	"locksim/model/history"
	"locksim/sim"
	"locksim/sim/resp"
)

// Resource is the protected storage service (a fenced table,
// in SQL `UPDATE ... SET state=?, last_token=? WHERE id=? AND last_token <
// ?`). It applies a write atomically only if the fencing rule accepts its
// token, and answers rows affected, 1 or 0. Under FenceVersion it checks a
// row version instead (optimistic locking, `UPDATE ... SET value=?,
// version=version+1 WHERE id=? AND version=?`): a write applies only if it
// carries the version the row has now.
//
// Commands (sent by clients with sim.Ctx.Call to the service "resource"):
//
//	READ [token]        -> (integer) value (token: strict-reads);
//	                       under version: [value, version]
//	WRITE token lockvalue newvalue [state] [VERSION n]
//	                    -> (integer) 1 applied, 0 rejected (VERSION: the
//	                       version the writer read; judged under version)
//	STATE               -> "state" last_token value
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
	// Version is the row's version under FenceVersion: how many writes it
	// applied. It starts at 0 and only an applied write bumps it.
	Version int64
	// Holder is the lock value the last read marked under FenceLockValue.
	Holder string
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
		if r.Fencing == FenceVersion {
			return r.served(sc, from, 0)
		}
		if r.Fencing == FenceLockValue && len(args) == 2 {
			r.Holder = args[1]
			reply := resp.IntReply(r.Value)
			sc.Record(sim.Event{Kind: history.KindResRead, Peer: from, Value: args[1], N: r.Value, Reply: reply.String(),
				Note: "marked: writes now need lock value " + args[1]})
			return reply
		}
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
		version := int64(-1) // none given
		if n := len(args); n >= 6 && strings.EqualFold(args[n-2], "VERSION") {
			v, err := strconv.ParseInt(args[n-1], 10, 64)
			if err != nil || v < 0 {
				return resp.ErrorReply("ERR resource: VERSION must be a non-negative integer")
			}
			version, args = v, args[:n-2]
		}
		if len(args) < 4 || len(args) > 5 {
			return resp.ErrorReply("ERR resource: WRITE token lockvalue newvalue [state] [VERSION n]")
		}
		token, err1 := strconv.ParseInt(args[1], 10, 64)
		val, err2 := strconv.ParseInt(args[3], 10, 64)
		if err1 != nil || err2 != nil {
			return resp.ErrorReply("ERR resource: token and value must be integers")
		}
		if r.Fencing == FenceVersion && version != r.Version {
			why := "rejected: version " + strconv.FormatInt(version, 10) + " is not the row's version " + strconv.FormatInt(r.Version, 10)
			if version < 0 {
				why = "rejected: no version given; the row's version is " + strconv.FormatInt(r.Version, 10)
			}
			sc.Record(sim.Event{Kind: history.KindResWrite, Peer: from, Token: token, Value: args[2], N: val, Reply: rejected, Note: why})
			return resp.IntReply(0)
		}
		if r.Fencing == FenceLockValue && args[2] != r.Holder {
			why := "rejected: lock value " + args[2] + " is not the marked " + r.Holder
			if r.Holder == "" {
				why = "rejected: no read marked a lock value"
			}
			sc.Record(sim.Event{Kind: history.KindResWrite, Peer: from, Token: token, Value: args[2], N: val, Reply: rejected, Note: why})
			return resp.IntReply(0)
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
		r.Version++
		if token > r.LastToken {
			r.LastToken = token
		}
		if len(args) == 5 {
			r.State = args[4]
		}
		note := ""
		if r.Fencing == FenceVersion {
			note = "version " + strconv.FormatInt(version, 10) + ", the row's; now " + strconv.FormatInt(r.Version, 10)
		}
		sc.Record(sim.Event{Kind: history.KindResWrite, Peer: from, Token: token, Value: args[2], N: val, Reply: applied, Note: note})
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

// served answers a read and records it: the value, and under FenceVersion
// the value and the row's version.
func (r *Resource) served(sc *sim.ServiceCtx, from string, token int64) resp.Reply {
	reply := resp.IntReply(r.Value)
	if r.Fencing == FenceVersion {
		reply = resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.IntReply(r.Value), resp.IntReply(r.Version)}}
	}
	sc.Record(sim.Event{Kind: history.KindResRead, Peer: from, Token: token, N: r.Value, Reply: reply.String()})
	return reply
}
