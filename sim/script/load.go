package script

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// loadstring and load, as gopher-lua's (same results, same messages), with
// the compile limits of compilecheck.go and their cost charged: a script
// could otherwise build a 10 MB chunk at run time and hand it to
// gopher-lua's superlinear compiler.

func (st *luaState) loadString(L *lua.LState) int {
	return st.load(L, L.CheckString(1), L.OptString(2, "<string>"))
}

// loadReader is load(f [, chunkname]): f returns the source piece by
// piece; a nil, an empty string or a non-string ends it.
func (st *luaState) loadReader(L *lua.LState) int {
	fn := L.CheckFunction(1)
	name := L.OptString(2, "?")
	top := L.GetTop()
	var src strings.Builder
	for {
		L.SetTop(top)
		L.Push(fn)
		L.Call(0, 1)
		ret := L.Get(-1)
		L.Pop(1)
		if ret == lua.LNil {
			break
		}
		if !lua.LVCanConvToString(ret) {
			L.Push(lua.LNil)
			L.Push(lua.LString("reader function must return a string"))
			return 2
		}
		piece := ret.String()
		if piece == "" {
			break
		}
		if src.Len()+len(piece) > MaxScriptBytes {
			L.Push(lua.LNil)
			L.Push(lua.LString(errScriptTooLarge(src.Len() + len(piece)).Error()))
			return 2
		}
		st.budget.charge(L, int64(len(piece)))
		src.WriteString(piece)
	}
	return st.load(L, src.String(), name)
}

// load compiles src as a function of the running script's environment,
// or returns nil and the error message.
func (st *luaState) load(L *lua.LState, src, name string) int {
	fail := func(err error) int {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	if err := checkSource(src); err != nil {
		return fail(err)
	}
	st.budget.charge(L, int64(len(src))*parseBytes)
	if err := checkSyntaxLevels(src, loadBase); err != nil {
		return fail(err)
	}
	chunk, err := parse.Parse(strings.NewReader(src), name)
	if err != nil {
		return fail(err)
	}
	if err := checkChunk(chunk); err != nil {
		return fail(err)
	}
	concatText(chunk)
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		return fail(err)
	}
	L.Push(L.NewFunctionFromProto(proto))
	return 1
}
