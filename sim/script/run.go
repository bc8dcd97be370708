package script

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"locksim/sim/resp"
)

// state returns the engine's Lua state, taking one (pooled or new) on
// first use.
func (e *Engine) state() (*luaState, error) {
	if e.lua == nil {
		st, err := acquireState(e)
		if err != nil {
			return nil, err
		}
		e.lua = st
	}
	return e.lua, nil
}

// Release hands the engine's Lua state back for reuse by other engines.
// The engine stays usable (a later script takes a state again); call it
// when the node is done, e.g. at the end of a simulated run.
func (e *Engine) Release() {
	if e.lua != nil {
		e.lua.release()
		e.lua = nil
	}
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
		proto, err := compileCached(s.src)
		if err != nil {
			return resp.ErrorReply(toInline(errLuaParseError(err.Error()))), false
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
	env := st.freshEnv()
	st.globals.RawSetString("KEYS", st.keys.fill(L, keys))
	st.globals.RawSetString("ARGV", st.argv.fill(L, argv))
	st.globals.RawSetString("_G", env)
	s.fn.Env = env
	L.Env = env
	st.budget.reset()
	st.ids.reset()
	defer func() {
		L.SetTop(0)
		L.Env = st.idleEnv
		s.fn.Env = st.idleEnv
		L.G.CurrentThread = L.G.MainThread
		for _, k := range [...]string{"KEYS", "ARGV", "_G"} {
			st.globals.RawSetString(k, lua.LFalse) // drop references, keep the slots
		}
	}()

	L.Push(s.fn)
	if err := L.PCall(0, 1, nil); err != nil {
		return e.runError(st, s, err), false
	}
	v := L.Get(-1)
	r, cerr := luaToReply(L, &st.ids, v, 0, false)
	switch {
	case cerr == errNeedsMeta:
		L.Push(st.convertFn)
		L.Push(v)
		if err := L.PCall(1, 0, nil); err != nil {
			return e.runError(st, s, err), true
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
func (e *Engine) runError(st *luaState, s *script, err error) resp.Reply {
	switch st.budget.stop {
	case stopInstructions:
		return resp.ErrorReply(msgBudget(s.sha, e.maxInstructions))
	case stopMemory:
		return resp.ErrorReply(msgMemory(s.sha, e.maxMemory))
	}
	if apiErr, ok := err.(*lua.ApiError); ok && apiErr.Type == lua.ApiErrorPanic {
		e.lua = nil // a Go panic may have left the state inconsistent
		return resp.ErrorReply(toInline(msgGoPanic(s.sha, apiErr.Object.String())))
	}
	return resp.ErrorReply(toInline(errLuaParseError(st.errorText(err))))
}

// freshEnv returns an empty environment for a run: the previous run's if
// that one is still empty (nothing of a finished run can reach it any more:
// every table a script could store it in is per-run or read-only), else a
// new one.
func (st *luaState) freshEnv() *lua.LTable {
	if st.env != nil {
		if k, _ := st.env.Next(lua.LNil); k == lua.LNil && st.env.Metatable == st.envMT {
			return st.env
		}
	}
	st.env = st.L.CreateTable(0, 0)
	st.env.Metatable = st.envMT
	return st.env
}

// argTable is a reusable KEYS or ARGV table. A run may modify its table;
// fill then replaces it, so every run sees a table holding exactly its own
// strings, and unchanged elements are not re-boxed.
type argTable struct {
	t    *lua.LTable
	vals []string // what t holds, when pristine
}

// fill returns a table holding exactly ss as a Lua array.
func (a *argTable) fill(L *lua.LState, ss []string) *lua.LTable {
	if a.t == nil || !a.pristine() {
		a.t = L.CreateTable(len(ss), 0)
		a.vals = a.vals[:0]
	}
	for i, s := range ss {
		if i < len(a.vals) && a.vals[i] == s {
			continue
		}
		a.t.RawSetInt(i+1, lua.LString(s))
	}
	for i := len(ss); i < len(a.vals); i++ {
		a.t.RawSetInt(i+1, lua.LNil)
	}
	a.vals = append(a.vals[:0], ss...)
	return a.t
}

// pristine reports whether t still holds exactly vals and nothing else.
func (a *argTable) pristine() bool {
	if a.t.Metatable != lua.LNil {
		return false
	}
	for i, s := range a.vals {
		v, ok := a.t.RawGetInt(i + 1).(lua.LString)
		if !ok || string(v) != s {
			return false
		}
	}
	var k lua.LValue
	if len(a.vals) == 0 {
		k, _ = a.t.Next(lua.LNil)
	} else {
		k, _ = a.t.Next(lua.LNumber(len(a.vals)))
	}
	return k == lua.LNil
}
