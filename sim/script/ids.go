package script

import (
	"fmt"
	"regexp"

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
	m     map[lua.LValue]int
	addrs map[string]int // addresses found in gopher-lua's messages (scrub)
	next  int
}

// reset forgets the previous run's numbers.
func (d *ids) reset() {
	if d.next > 0 {
		clear(d.m)
		clear(d.addrs)
		d.next = 0
	}
}

// addressRe matches a value printed by gopher-lua's String methods.
var addressRe = regexp.MustCompile(`\b(table|function|thread|userdata|channel): 0x[0-9a-f]{5,}`)

// scrub replaces the addresses in a message that gopher-lua formatted
// itself ("attempt to index a non-table object(number) with key
// 'table: 0xc000123450'") by ids, the same address by the same id.
func (d *ids) scrub(msg string) string {
	if !addressRe.MatchString(msg) {
		return msg
	}
	return addressRe.ReplaceAllStringFunc(msg, func(m string) string {
		if d.addrs == nil {
			d.addrs = map[string]int{}
		}
		id, ok := d.addrs[m]
		if !ok {
			d.next++
			id = d.next
			d.addrs[m] = id
		}
		return fmt.Sprintf("%s: 0x%04x", addressRe.FindStringSubmatch(m)[1], id)
	})
}

// scrubResults wraps pcall, xpcall and coroutine.resume: when they return
// false and an error message, the message is scrubbed of addresses.
func (st *luaState) scrubResults(f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		n := f(L)
		if top := L.GetTop(); n >= 2 && L.Get(top-n+1) == lua.LFalse {
			if s, ok := L.Get(top - n + 2).(lua.LString); ok {
				L.Replace(top-n+2, lua.LString(st.ids.scrub(string(s))))
			}
		}
		return n
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
		if n, ok := v.(lua.LNumber); ok {
			return numberText(float64(n))
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
	st.budget.charge(L, idBytes)
	L.Push(lua.LString(st.ids.name(v)))
	return 1
}

// idBytes is what tostring may allocate: its text and a map entry for a
// newly numbered value.
const idBytes = 128

// errorText is err.Error() with an error object printed by ids: Lua's
// error({}) raises the table itself, which gopher-lua prints by address.
func (st *luaState) errorText(err error) string {
	apiErr, ok := err.(*lua.ApiError)
	if !ok || apiErr.Object == nil {
		return err.Error()
	}
	msg := st.ids.name(apiErr.Object)
	if apiErr.StackTrace != "" {
		msg += "\n" + apiErr.StackTrace
	}
	return st.ids.scrub(msg)
}
