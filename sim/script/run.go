package script

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"locksim/sim/resp"
)

// state returns the engine's Lua state, building it on first use.
func (e *Engine) state() (*luaState, error) {
	if e.lua == nil {
		st, err := newLuaState(e)
		if err != nil {
			return nil, err
		}
		e.lua = st
	}
	return e.lua, nil
}

// execute runs a compiled-or-not script with its keys and arguments on the
// reused Lua state and converts its result. ok is false for compile and run
// errors. A Go panic anywhere in the run becomes an error reply and the Lua
// state is dropped (a fresh one is built for the next script).
func (e *Engine) execute(c *Conn, s *script, readOnly bool, keys, argv []string) (reply resp.Reply, ok bool) {
	st, err := e.state()
	if err != nil {
		return resp.ErrorReply(toInline("ERR locksim: " + err.Error())), false
	}
	L := st.L
	if s.fn == nil {
		proto, err := compile(s.src)
		if err != nil {
			return resp.ErrorReply(toInline(asFormat(errLuaParseError(err)))), false
		}
		s.fn = L.NewFunctionFromProto(proto)
	}

	defer func() {
		if rcv := recover(); rcv != nil {
			e.lua = nil
			reply, ok = resp.ErrorReply(toInline(msgGoPanic(s.sha, fmt.Sprint(rcv)))), false
		}
	}()

	e.run = runState{id: e.run.id + 1, sha: s.sha, readOnly: readOnly, db: c.db}
	env := L.CreateTable(0, 0)
	env.Metatable = st.envMT
	st.callG.RawSetString("KEYS", stringTable(L, keys))
	st.callG.RawSetString("ARGV", stringTable(L, argv))
	st.callG.RawSetString("_G", env)
	s.fn.Env = env
	L.Env = env
	st.budget.reset()
	defer func() {
		L.SetTop(0)
		L.Env = st.idleEnv
		s.fn.Env = st.idleEnv
		L.G.CurrentThread = L.G.MainThread
		for _, k := range [...]string{"KEYS", "ARGV", "_G"} {
			st.callG.RawSetString(k, lua.LFalse) // drop references, keep the slots
		}
	}()

	L.Push(s.fn)
	if err := L.PCall(0, 1, nil); err != nil {
		return e.runError(s, err), false
	}
	v := L.Get(-1)
	r, cerr := luaToReply(L, v, 0, false)
	switch {
	case cerr == errNeedsMeta:
		L.Push(st.convertFn)
		L.Push(v)
		if err := L.PCall(1, 0, nil); err != nil {
			return e.runError(s, err), true
		}
		r = e.converted
	case cerr != nil:
		r = resp.ErrorReply(msgReplyTooDeep)
	}
	return r, true
}

// runError turns a failed PCall into the reply miniredis gives
// ("ERR Error compiling script (new function): <message and traceback>",
// with the message used as a format string and made inline), or into the
// budget or internal error.
func (e *Engine) runError(s *script, err error) resp.Reply {
	if e.lua.budget.spent() {
		return resp.ErrorReply(msgBudget(s.sha, e.maxInstructions))
	}
	if apiErr, ok := err.(*lua.ApiError); ok && apiErr.Type == lua.ApiErrorPanic {
		e.lua = nil // a Go panic may have left the state inconsistent
		return resp.ErrorReply(toInline(msgGoPanic(s.sha, apiErr.Object.String())))
	}
	return resp.ErrorReply(toInline(asFormat(errLuaParseError(err))))
}

// stringTable returns a Lua array of ss.
func stringTable(L *lua.LState, ss []string) *lua.LTable {
	t := L.CreateTable(len(ss), 0)
	for i, s := range ss {
		t.RawSetInt(i+1, lua.LString(s))
	}
	return t
}
