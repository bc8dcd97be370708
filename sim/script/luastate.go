package script

import (
	"strings"
	"sync"

	luajson "github.com/alicebob/miniredis/v2/gopher-json"
	"github.com/pkg/errors"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// luaState is the one reused Lua interpreter of an Engine, sandboxed so that
// no script can leave anything behind for the next one.
//
// Globals a script sees, looked up in this order:
//
//	env      an empty table per run (the functions' environment; metatable envMT)
//	globals  library functions, read-only proxies of the library tables, and
//	         KEYS, ARGV and _G of the current run (overwritten per run)
//
// Invariants:
//   - Scripts reach only env (per run) and read-only proxies; globals, the
//     real library tables and all metatables are unreachable (metatables
//     carry __metatable; getfenv, setfenv and debug are absent).
//   - Writing a global that does not exist raises miniredis's "Script
//     attempted to create global variable" error; writing one that exists
//     (KEYS, redis, ...) shadows it in env for the rest of that run only.
//   - Writing into a library table raises "Attempt to modify a readonly
//     table", also through rawset and table.insert/remove/sort.
//   - Every thread (main and coroutines) polls the same budget
//     (instructions and memory, budget.go).
type luaState struct {
	// e is the engine using the state now; the state's Go functions
	// (redis.*, math.random, the reply conversion) reach it through this
	// field, so a state can serve one engine after another (statePool).
	e         *Engine
	L         *lua.LState
	budget    *budget
	envMT     *lua.LTable // metatable of every run's env
	globals   *lua.LTable
	idleEnv   *lua.LTable // L.Env between runs
	protected map[*lua.LTable]struct{}
	convertFn *lua.LFunction // converts a result under PCall (tables with metatables)
	nextFn    *lua.LFunction // next, which pairs returns

	env        *lua.LTable // the last run's env, reused while it stays empty
	keys, argv argTable
	ids        ids // how the current run prints tables, functions, ... (ids.go)
}

// baseNames are the base-library globals kept from gopher-lua, as miniredis
// exposes them. Left out on purpose: dofile, loadfile, require, module,
// getfenv, setfenv, package, debug and _printregs. rawset, print and
// collectgarbage, tostring, load, loadstring, next and pairs are replaced
// (see newLuaState, load.go, libs.go).
var baseNames = []string{
	"_VERSION", "_GOPHER_LUA_VERSION",
	"assert", "error", "getmetatable", "ipairs", "newproxy",
	"pcall", "rawequal", "rawget", "select", "setmetatable",
	"tonumber", "type", "unpack", "xpcall",
}

// protectChunk installs the metamethods that refuse new globals. Its line
// layout copies miniredis's protectGlobals (cmd_scripting.go) so that error
// positions and tracebacks match miniredis's: __newindex is defined on line
// 5 and raises on line 9; the missing-global __index is defined on line 14
// and raises on line 16. Line 6 adds one test: an existing global may be
// assigned (it is shadowed in the run's env), as miniredis lets a script
// assign an existing global.
const protectChunk = `
local dbg=debug
local mt, G = ENVMT, GLOBALS
local gmt = GLOBALSMT
mt.__newindex = function (t, n, v)
  if rawget(G, n) == nil and dbg.getinfo(2) then
    local w = dbg.getinfo(2, "S").what
    if w ~= "C" then
      error("Script attempted to create global variable '"..tostring(n).."'", 2)
    end
  end
  rawset(t, n, v)
end
gmt.__index = function (t, n)
  if dbg.getinfo(2) and dbg.getinfo(2, "S").what ~= "C" then
    error("Script attempted to access nonexistent global variable '"..tostring(n).."'", 2)
  end
  return rawget(t, n)
end
`

// statePool holds the Lua states of engines that were released: building
// one (libraries, sandbox, protection chunk) costs about as much as a
// whole short simulated run, and every run builds one per node.
var statePool sync.Pool

// acquireState returns a Lua state bound to e, reused when one is pooled.
func acquireState(e *Engine) (*luaState, error) {
	st, _ := statePool.Get().(*luaState)
	if st == nil {
		var err error
		if st, err = newLuaState(); err != nil {
			return nil, err
		}
	}
	st.e = e
	st.budget.limit, st.budget.memLimit = e.maxInstructions, e.maxMemory
	return st, nil
}

// release unbinds the state from its engine and pools it. The sandbox's
// invariants (above) keep scripts from leaving anything visible behind;
// what is left invisibly is dropped here: a Lua table keeps the slots of
// deleted keys, which decide the order pairs() visits it in, so the
// per-run tables (the last env, KEYS, ARGV) do not go to another engine.
// Within one engine their reuse is deterministic and kept.
func (st *luaState) release() {
	st.e = nil
	st.env, st.keys, st.argv = nil, argTable{}, argTable{}
	statePool.Put(st)
}

func newLuaState() (st *luaState, err error) {
	if layoutErr != nil {
		return nil, layoutErr // no memory budget without it: refuse to run scripts
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer func() {
		if err != nil {
			L.Close()
		}
	}()
	// The same libraries, in the same order, as miniredis opens.
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.CoroutineLibName, lua.OpenCoroutine},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.DebugLibName, lua.OpenDebug},
	} {
		if err := L.CallByParam(lua.P{Fn: L.NewFunction(lib.open), Protect: true}, lua.LString(lib.name)); err != nil {
			return nil, errors.Wrapf(err, "open lua library %q", lib.name)
		}
	}
	if err := L.CallByParam(lua.P{Fn: L.NewFunction(luajson.Loader), NRet: 1, Protect: true}); err != nil {
		return nil, errors.Wrap(err, "open cjson")
	}
	cjson, ok := L.Get(-1).(*lua.LTable)
	L.Pop(1)
	if !ok {
		return nil, errors.New("cjson loader returned no table")
	}

	st = &luaState{
		L:         L,
		budget:    newBudget(DefaultMaxInstructions, DefaultMaxMemory), // acquireState sets the engine's
		protected: map[*lua.LTable]struct{}{},
		idleEnv:   L.CreateTable(0, 0),
	}
	real := L.G.Global
	lib := func(name string) *lua.LTable { return real.RawGetString(name).(*lua.LTable) }
	gofn := func(t *lua.LTable, name string) lua.LGFunction {
		return t.RawGetString(name).(*lua.LFunction).GFunction
	}

	base := L.CreateTable(0, 64) // the globals table
	for _, name := range []string{"KEYS", "ARGV", "_G"} {
		base.RawSetString(name, lua.LFalse) // set per run; allocate the slots once
	}
	for _, name := range baseNames {
		base.RawSetString(name, real.RawGetString(name))
	}
	rawset := gofn(real, "rawset")
	base.RawSetString("rawset", L.NewFunction(func(L *lua.LState) int {
		st.refuseProtected(L, 1)
		if t, ok := L.Get(1).(*lua.LTable); ok {
			st.budget.charge(L, slotBytes(t, L.Get(2), L.Get(3)))
		}
		return rawset(L)
	}))
	base.RawSetString("tostring", L.NewFunction(st.tostring))
	st.nextFn = L.NewFunction(st.next)
	base.RawSetString("next", st.nextFn)
	base.RawSetString("pairs", L.NewFunction(st.pairs))
	base.RawSetString("loadstring", L.NewFunction(st.loadString))
	base.RawSetString("load", L.NewFunction(st.loadReader))
	for _, name := range []string{"pcall", "xpcall"} {
		base.RawSetString(name, L.NewFunction(st.scrubResults(gofn(real, name))))
	}
	// print would write to the process's stdout; Redis writes to its log.
	base.RawSetString("print", L.NewFunction(func(*lua.LState) int { return 0 }))
	// collectgarbage returns nothing, as gopher-lua's, but does not run the
	// Go collector (which costs milliseconds).
	base.RawSetString("collectgarbage", L.NewFunction(func(*lua.LState) int { return 0 }))

	// string: also the __index of every string value's metatable.
	strProxy := st.readOnly(lib(lua.StringLibName))
	base.RawSetString("string", strProxy)
	// string.format is Lua 5.1's (format.go), not Go's fmt.
	strLib := lib(lua.StringLibName)
	strLib.RawSetString("format", L.NewFunction(st.format))
	smt, ok := L.GetMetatable(lua.LString("")).(*lua.LTable)
	if !ok {
		return nil, errors.New("strings have no metatable")
	}
	smt.RawSetString("__index", strProxy)
	smt.RawSetString("__metatable", st.readOnly(smt))

	mathLib := lib(lua.MathLibName)
	mathLib.RawSetString("random", L.NewFunction(func(L *lua.LState) int { return st.e.mathRandom(L) }))
	mathLib.RawSetString("randomseed", L.NewFunction(func(L *lua.LState) int { return st.e.mathRandomseed(L) }))
	base.RawSetString("math", st.readOnly(mathLib))

	tableLib := lib(lua.TabLibName)
	tableLib.RawSetString("sort", L.NewFunction(st.tableSort)) // Lua 5.1's quicksort (sort.go)
	for _, name := range []string{"insert", "remove", "sort"} {
		f := gofn(tableLib, name)
		tableLib.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			st.refuseProtected(L, 1)
			switch name {
			case "insert":
				st.chargeInsert(L)
			case "remove":
				st.chargeRemove(L)
			}
			return f(L)
		}))
	}
	st.chargeLibraries(base, strLib, tableLib)
	base.RawSetString("tonumber", L.NewFunction(st.tonumber))
	st.budget.numText = L.NewFunction(st.numText)
	base.RawSetString(numTextName, st.budget.numText)
	st.installPatternFunctions(strLib)
	st.stringArgs(strLib)
	tableLib.RawSetString("concat", L.NewFunction(st.tableConcat))
	base.RawSetString("table", st.readOnly(tableLib))

	coLib := lib(lua.CoroutineLibName)
	create, wrap := gofn(coLib, "create"), gofn(coLib, "wrap")
	coLib.RawSetString("resume", L.NewFunction(st.scrubResults(gofn(coLib, "resume"))))
	coLib.RawSetString("create", L.NewFunction(func(L *lua.LState) int {
		st.budget.charge(L, threadBytes)
		n := create(L)
		if th, ok := L.Get(-1).(*lua.LState); ok {
			th.SetContext(&threadCtx{b: st.budget, L: th})
		}
		return n
	}))
	coLib.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
		st.budget.charge(L, threadBytes)
		n := wrap(L)
		if fn, ok := L.Get(-1).(*lua.LFunction); ok && len(fn.Upvalues) == 1 {
			if th, ok := fn.Upvalues[0].Value().(*lua.LState); ok {
				th.SetContext(&threadCtx{b: st.budget, L: th})
			}
		}
		return n
	}))
	base.RawSetString("coroutine", st.readOnly(coLib))

	// No os: Redis 7.0 has none (miniredis has os.clock, always 42).
	st.installCJSON(cjson)
	base.RawSetString("cjson", st.readOnly(cjson))

	redis := st.readOnly(st.redisLib(L))
	base.RawSetString("redis", redis)
	base.RawSetString("server", redis)

	st.globals = base
	st.envMT = L.CreateTable(0, 3)
	st.envMT.RawSetString("__index", base)
	baseMT := L.CreateTable(0, 1)
	base.Metatable = baseMT

	priv := L.CreateTable(0, 10)
	for _, name := range []string{"debug", "error", "rawget", "rawset"} {
		priv.RawSetString(name, real.RawGetString(name))
	}
	priv.RawSetString("tostring", base.RawGetString("tostring"))
	priv.RawSetString(numTextName, base.RawGetString(numTextName))
	priv.RawSetString("ENVMT", st.envMT)
	priv.RawSetString("GLOBALS", base)
	priv.RawSetString("GLOBALSMT", baseMT)
	proto, err := compileCached(protectChunk)
	if err != nil {
		return nil, errors.Wrap(err, "compile global protection")
	}
	fn := L.NewFunctionFromProto(proto)
	fn.Env = priv
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		return nil, errors.Wrap(err, "install global protection")
	}
	st.envMT.RawSetString("__metatable", lua.LFalse)

	st.convertFn = L.NewFunction(func(L *lua.LState) int { return st.e.convertProtected(L) })
	L.Env = st.idleEnv
	L.SetContext(&threadCtx{b: st.budget, L: L})
	return st, nil
}

// readOnly returns an empty proxy that reads through to t and refuses writes.
func (st *luaState) readOnly(t *lua.LTable) *lua.LTable {
	L := st.L
	mt := L.CreateTable(0, 3)
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError(msgReadOnlyTable)
		return 0
	}))
	mt.RawSetString("__metatable", lua.LFalse)
	p := L.CreateTable(0, 0)
	p.Metatable = mt
	st.protected[p] = struct{}{}
	return p
}

// refuseProtected raises the read-only error if argument n is a protected
// table; used by the functions that write tables raw.
func (st *luaState) refuseProtected(L *lua.LState, n int) {
	if t, ok := L.Get(n).(*lua.LTable); ok {
		if _, ok := st.protected[t]; ok {
			L.RaiseError(msgReadOnlyTable)
		}
	}
}

// protoCache holds compiled main chunks by source for every engine of the
// process: compiling is pure and a FunctionProto is never written after
// compile (gopher-lua's VM only reads it), so engines on any goroutine
// share them. Bounded by maxCompiled scripts and maxCompiledBytes; past
// either, scripts compile uncached.
var protoCache = struct {
	sync.Mutex
	m     map[string]*lua.FunctionProto
	bytes int // source bytes of the cached scripts, at most maxCompiledBytes
}{m: map[string]*lua.FunctionProto{}}

// maxCompiledBytes bounds the compile cache by source bytes: a compiled
// chunk takes tens of bytes per source byte, and the cache is shared by
// every engine of the process.
const maxCompiledBytes = 1 << 20

// compileCached is compile through protoCache. Errors are not cached.
func compileCached(src string) (*lua.FunctionProto, error) {
	protoCache.Lock()
	p, ok := protoCache.m[src]
	protoCache.Unlock()
	if ok {
		return p, nil
	}
	p, err := compile(src)
	if err != nil {
		return nil, err
	}
	protoCache.Lock()
	if len(protoCache.m) < maxCompiled && protoCache.bytes+len(src) <= maxCompiledBytes {
		if _, ok := protoCache.m[src]; !ok {
			protoCache.m[src] = p
			protoCache.bytes += len(src)
		}
	}
	protoCache.Unlock()
	return p, nil
}

// compile parses and compiles a script exactly as miniredis's compile does
// (chunk name "<string>" for parse errors, source name "" for positions),
// then clears the main chunk's vararg-needs-arg flag: the main chunk has no
// named `arg` local, so the hidden arg table gopher-lua would build on every
// call is unreachable garbage.
//
// Sources beyond MaxScriptBytes, and chunks that would take the compiler
// too long, are refused first (compilecheck.go).
func compile(src string) (*lua.FunctionProto, error) {
	if err := checkSource(src); err != nil {
		return nil, err
	}
	if err := checkSyntaxLevels(src, evalBase); err != nil {
		return nil, err
	}
	chunk, err := parse.Parse(strings.NewReader(src), "<string>")
	if err != nil {
		return nil, err
	}
	if err := checkChunk(chunk); err != nil {
		return nil, err
	}
	concatText(chunk)
	proto, err := lua.Compile(chunk, "")
	if err != nil {
		return nil, err
	}
	proto.IsVarArg &^= lua.VarArgNeedsArg
	return proto, nil
}
