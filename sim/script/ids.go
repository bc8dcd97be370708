package script

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// ids names the values that Lua prints by address (tables, functions,
// threads, userdata) by a number instead: "table: 0x0001" for the first
// value printed in a script run, "function: 0x0002" for the next new one,
// and so on. gopher-lua prints Go pointers ("table: 0xc000123450"), which
// differ from run to run, so a lock value or an error text built from
// tostring({}) would break "the same seed gives the same bytes".
//
// Invariants: the numbering restarts with every script run (reset), so a
// run's output depends only on the run; a value keeps its number for the
// whole run. The map holds at most one entry per value printed in the run.
type ids struct {
	m    map[lua.LValue]int
	next int
}

// reset forgets the previous run's numbers.
func (d *ids) reset() {
	if d.next > 0 {
		clear(d.m)
		d.next = 0
	}
}

// name returns how v prints: strings, numbers, booleans and nil as
// gopher-lua prints them, the others as "<type>: 0x<id>".
func (d *ids) name(v lua.LValue) string {
	var kind string
	switch v.(type) {
	case *lua.LTable:
		kind = "table"
	case *lua.LFunction:
		kind = "function"
	case *lua.LState:
		kind = "thread"
	case *lua.LUserData:
		kind = "userdata"
	case lua.LChannel:
		kind = "channel"
	default:
		if v == nil {
			return "nil"
		}
		return v.String()
	}
	if d.m == nil {
		d.m = map[lua.LValue]int{}
	}
	id, ok := d.m[v]
	if !ok {
		d.next++
		id = d.next
		d.m[v] = id
	}
	return fmt.Sprintf("%s: 0x%04x", kind, id)
}

// tostring is the base library's tostring with ids for addresses; a
// __tostring metamethod still decides, as in Lua.
func (st *luaState) tostring(L *lua.LState) int {
	v := L.CheckAny(1)
	if fn, ok := L.GetMetaField(v, "__tostring").(*lua.LFunction); ok {
		L.Push(fn)
		L.Push(v)
		L.Call(1, 1)
		return 1
	}
	L.Push(lua.LString(st.ids.name(v)))
	return 1
}

// errorText is err.Error() with an error object printed by ids: Lua's
// error({}) raises the table itself, which gopher-lua prints by address.
func (st *luaState) errorText(err error) string {
	apiErr, ok := err.(*lua.ApiError)
	if !ok || apiErr.Object == nil {
		return err.Error()
	}
	msg := st.ids.name(apiErr.Object)
	if apiErr.StackTrace != "" {
		return msg + "\n" + apiErr.StackTrace
	}
	return msg
}
