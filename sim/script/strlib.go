package script

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// stringArgPositions are the arguments of the string library that Lua 5.1
// reads with luaL_checkstring, so a number there is its "%.14g" text
// (gopher-lua would print it with Go's formatting).
var stringArgPositions = map[string][]int{
	"len": {1}, "sub": {1}, "upper": {1}, "lower": {1}, "rep": {1},
	"reverse": {1}, "byte": {1}, "find": {1, 2}, "match": {1, 2},
	"gmatch": {1, 2}, "gsub": {1, 2, 3},
}

// stringArgs wraps the string functions so that their number arguments
// reach them as Lua 5.1's text of the number.
func (st *luaState) stringArgs(str *lua.LTable) {
	for name, at := range stringArgPositions {
		f := str.RawGetString(name).(*lua.LFunction).GFunction
		str.RawSetString(name, st.L.NewFunction(func(L *lua.LState) int {
			for _, i := range at {
				if n, ok := L.Get(i).(lua.LNumber); ok {
					st.budget.charge(L, numberTextBytes+stringHeaderBytes)
					L.Replace(i, lua.LString(numberText(float64(n))))
				}
			}
			return f(L)
		}))
	}
}

// tableConcat is Lua 5.1's table.concat: strings and numbers ("%.14g")
// joined by sep, an error naming the index of any other value.
func (st *luaState) tableConcat(L *lua.LState) int {
	sep := ""
	if L.Get(2) != lua.LNil {
		sep = st.checkStringArg(L, 2, "concat")
		L.Replace(2, lua.LString(sep)) // concatBytes reads it
	}
	t := L.CheckTable(1)
	st.budget.spend(L, int64(trailingNils(t)))
	i, last := L.OptInt(3, 1), L.OptInt(4, t.Len())
	st.budget.charge(L, concatBytes(L))
	var b strings.Builder
	for ; i <= last; i++ {
		v := t.RawGetInt(i)
		s, ok := valueText(v)
		if !ok { // Redis's Lua 5.1 names the type
			L.Error(lua.LString(fmt.Sprintf("invalid value (%s) at index %d in table for 'concat'", v.Type(), i)), 1)
		}
		b.WriteString(s)
		if i < last {
			b.WriteString(sep)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}
