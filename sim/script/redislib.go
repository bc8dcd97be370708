package script

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"locksim/sim/resp"
)

// redisLib builds the real `redis` table (scripts see a read-only proxy of
// it) for the state's current engine. Functions and texts follow
// miniredis's mkLua (lua.go).
func (st *luaState) redisLib(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 16)
	set := func(name string, f lua.LGFunction) { t.RawSetString(name, L.NewFunction(f)) }
	set("call", func(L *lua.LState) int { return st.e.luaCall(L, true) })
	set("pcall", func(L *lua.LState) int { return st.e.luaCall(L, false) })
	set("error_reply", luaErrorReply)
	set("status_reply", luaStatusReplyFn)
	set("sha1hex", luaSha1hex)
	set("log", func(L *lua.LState) int {
		L.CheckInt(1)
		L.CheckString(2)
		return 0 // logs are dropped, as miniredis does by default
	})
	set("replicate_commands", func(L *lua.LState) int {
		L.Push(lua.LTrue)
		return 1
	})
	set("set_repl", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			L.Error(lua.LString(msgWrongNumberOfArgs), 1)
			return 0
		}
		return 1 // ignored; returns its argument, as miniredis does
	})
	set("setresp", func(L *lua.LState) int {
		// miniredis validates the level but the switch never takes effect:
		// its EVAL restores the protocol before the switch would apply.
		switch L.CheckInt(1) {
		case 2, 3:
		default:
			L.Error(lua.LString(msgRespVersion), 1)
		}
		return 0
	})
	st.chargeRedisLibrary(t)
	for _, c := range []struct {
		name string
		v    int
	}{{"LOG_DEBUG", 0}, {"LOG_VERBOSE", 1}, {"LOG_NOTICE", 2}, {"LOG_WARNING", 3}} {
		t.RawSetString(c.name, lua.LNumber(c.v))
	}
	return t
}

// luaCall is redis.call (failFast) and redis.pcall.
func (e *Engine) luaCall(L *lua.LState, failFast bool) int {
	run := &e.run
	top := L.GetTop()
	if top == 0 {
		L.Error(lua.LString(msgNoArgs(run.sha)), 1)
		return 0
	}
	args := make([]string, top)
	var argBytes int64
	for i := 1; i <= top; i++ {
		switch a := L.Get(i).(type) {
		case lua.LNumber:
			args[i-1] = callArgText(float64(a))
		case lua.LString:
			args[i-1] = string(a)
		default:
			L.Error(lua.LString(msgBadArgType(run.sha)), 1)
			return 0
		}
		argBytes += int64(len(args[i-1])) + stringHeaderBytes
	}
	// The command reads its arguments; what it stores is the node's to
	// bound (package sim's keyspace limits).
	e.lua.budget.spend(L, argBytes/bytesPerInstruction)
	if run.readOnly && e.srv.IsRegisteredCommand(args[0]) && !e.srv.IsReadOnlyCommand(args[0]) {
		if failFast {
			L.Error(lua.LString(msgReadOnlyScript), 1)
			return 0
		}
		res := L.CreateTable(0, 1)
		res.RawSetString("err", lua.LString(msgReadOnlyScript))
		L.Push(res)
		return 1
	}

	r := e.scriptDispatch(failFast, args)

	if msg, isErr := firstError(r); isErr {
		unknown := strings.Contains(msg, "ERR unknown command")
		if failFast {
			if unknown {
				msg = msgUnknownFromCall(run.sha)
			}
			L.Error(lua.LString(msg), 1)
			return 0
		}
		if unknown {
			msg = msgUnknownFromPcall
		}
		res := L.CreateTable(0, 1)
		res.RawSetString("err", lua.LString(msg))
		L.Push(res)
		return 1
	}
	e.lua.budget.charge(L, replyBytes(r))
	L.Push(replyToLua(L, r))
	return 1
}

// replyBytes is what replyToLua allocates for r.
func replyBytes(r resp.Reply) int64 {
	switch r.Kind {
	case resp.Bulk:
		return int64(len(r.Str)) + stringHeaderBytes
	case resp.Status:
		return tableBytes + hashPartBytes + hashSlotBytes + int64(len(r.Str)) + stringHeaderBytes
	case resp.Array:
		n := int64(tableBytes)
		for _, el := range r.Elems {
			n += arraySlotBytes + replyBytes(el)
		}
		return n
	}
	return 0
}

// scriptDispatch runs one redis.call on the script peer that stands for
// miniredis's per-function nested context: a call and a pcall peer, each
// starting a run in the caller's DB. Commands that miniredis refuses from a
// nested context (and the blocking ones, which Redis 7 refuses) get the
// refusal without being dispatched.
func (e *Engine) scriptDispatch(failFast bool, args []string) resp.Reply {
	info, special := lookup(args[0], &e.nameBuf)
	if special && refusedInScript(info, args) {
		return resp.ErrorReply(msgNotFromScripts(e.run.sha))
	}
	sp := &e.pcallPeer
	if failFast {
		sp = &e.callPeer
	}
	if sp.run != e.run.id {
		sp.run = e.run.id
		if sp.db != e.run.db {
			if r := e.dispatch(sp.peer, []string{"SELECT", itoa(e.run.db)}); isOK(r) {
				sp.db = e.run.db
			}
		}
	}
	// miniredis makes a fresh peer per call; undo what a command may have
	// left on ours.
	sp.peer.Resp3 = false
	sp.peer.SwitchResp3 = nil
	sp.peer.ClientName = ""
	r := e.dispatch(sp.peer, args)
	if special && info.kind == kindSelect {
		noteSelect(&sp.db, args, r)
	}
	return r
}

// firstError mirrors miniredis's server.ParseReply, which turns a reply
// holding an error anywhere into that error.
func firstError(r resp.Reply) (string, bool) {
	switch r.Kind {
	case resp.Error:
		return r.Str, true
	case resp.Array:
		for _, el := range r.Elems {
			if msg, ok := firstError(el); ok {
				return msg, true
			}
		}
	}
	return "", false
}

// replyToLua converts a command reply for the script: integer -> number,
// bulk -> string, nil -> false, array -> table, status -> {ok=...}.
// (miniredis panics on a status inside an array; this gives {ok=...} as
// Redis does.)
func replyToLua(L *lua.LState, r resp.Reply) lua.LValue {
	switch r.Kind {
	case resp.Int:
		return lua.LNumber(r.Int)
	case resp.Bulk:
		return lua.LString(r.Str)
	case resp.Status:
		return luaStatusReply(L, r.Str)
	case resp.Array:
		t := L.CreateTable(len(r.Elems), 0)
		for i, el := range r.Elems {
			t.RawSetInt(i+1, replyToLua(L, el))
		}
		return t
	default: // NilBulk, NilArray
		return lua.LFalse
	}
}

func luaStatusReply(L *lua.LState, msg string) *lua.LTable {
	t := L.CreateTable(0, 1)
	t.RawSetString("ok", lua.LString(msg))
	return t
}

func luaStatusReplyFn(L *lua.LState) int {
	msg, ok := L.Get(1).(lua.LString)
	if !ok {
		L.Error(lua.LString(msgWrongArgs), 1)
		return 0
	}
	L.Push(luaStatusReply(L, string(msg)))
	return 1
}

func luaErrorReply(L *lua.LState) int {
	msg, ok := L.Get(1).(lua.LString)
	if !ok {
		L.Error(lua.LString(msgWrongArgs), 1)
		return 0
	}
	parts := strings.SplitN(string(msg), " ", 2)
	// a leading '-' would be doubled by the error reply
	if parts[0] != "" && parts[0][0] == '-' {
		parts[0] = parts[0][1:]
	}
	var final string
	if len(parts) == 2 {
		final = fmt.Sprintf("%s %s", parts[0], parts[1])
	} else {
		final = fmt.Sprintf("ERR %s", parts[0])
	}
	t := L.CreateTable(0, 1)
	t.RawSetString("err", lua.LString(final))
	L.Push(t)
	return 1
}

func luaSha1hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Error(lua.LString(msgWrongNumberOfArgs), 1)
		return 0
	}
	L.Push(lua.LString(sha1Hex(lua.LVAsString(L.Get(1)))))
	return 1
}

// mathRandom is math.random on the engine's seeded PCG (gopher-lua's uses
// Go's global source). Argument handling follows gopher-lua's mathRandom;
// an empty interval raises Lua 5.1's error instead of panicking.
func (e *Engine) mathRandom(L *lua.LState) int {
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(e.rng.Float64()))
	case 1:
		n := L.CheckInt(1)
		if n < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(e.rng.IntN(n) + 1))
	default:
		lo, hi := L.CheckInt(1), L.CheckInt(2)
		if lo > hi {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(e.rng.IntN(hi-lo+1) + lo))
	}
	return 1
}

// mathRandomseed reseeds the engine's generator.
func (e *Engine) mathRandomseed(L *lua.LState) int {
	e.pcg.Seed(uint64(L.CheckInt64(1)), 0)
	return 0
}
