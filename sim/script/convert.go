package script

import (
	"strings"

	"github.com/pkg/errors"
	lua "github.com/yuin/gopher-lua"

	"locksim/sim/resp"
)

// maxReplyDepth bounds the nesting of a script's returned tables (a table
// holding itself would otherwise recurse forever). Redis answers such
// replies with "reached lua stack limit".
const maxReplyDepth = 256

const msgReplyTooDeep = "ERR reached lua stack limit"

var errNeedsMeta = errors.New("result has a metatable")

// luaToReply converts a script's result the way miniredis's luaToRedis
// writes it, as the RESP parser would read it back:
//
//	nil, false -> nil bulk     true -> integer 1
//	number     -> integer (Go int conversion, truncating)
//	string     -> bulk
//	table      -> as Redis 7.0's luaReplyToRedisReply reads it (RESP2):
//	              a string err field: an error; a string ok field: a
//	              status; a number double field: a bulk ("%.17g"); a string
//	              big_number: a bulk; verbatim_string {format=, string=}:
//	              a bulk; a table map: an array of its keys and values; a
//	              table set: an array of its keys; else an array of t[1],
//	              t[2], ... up to the first nil (fields of other types are
//	              ignored: {err=1} is an empty array)
//
// map and set visit their table in gopher-lua's next order (Redis: its
// own hash order), so only a one-entry map or set replies as Redis's. Functions, threads and userdata become nil bulk (miniredis panics; Redis
// gives nil). With getTable nil tables are read raw and errNeedsMeta is
// returned for a table with a metatable, whose t[i] could run Lua code;
// convertProtected then redoes the conversion under PCall with L.GetTable.
func luaToReply(L *lua.LState, d *ids, v lua.LValue, depth int, getTable bool) (resp.Reply, error) {
	switch t := v.(type) {
	case nil:
		return resp.Nil, nil
	case *lua.LNilType:
		return resp.Nil, nil
	case lua.LBool:
		if t {
			return resp.IntReply(1), nil
		}
		return resp.Nil, nil
	case lua.LNumber:
		return resp.IntReply(int64(int(t))), nil
	case lua.LString:
		return resp.BulkReply(string(t)), nil
	case *lua.LTable:
		if depth >= maxReplyDepth {
			return resp.ErrorReply(msgReplyTooDeep), errors.New("too deep")
		}
		if r, ok, err := typedReply(L, d, t, depth, getTable); ok {
			return r, err
		}
		if t.Metatable != lua.LNil && !getTable {
			return resp.Reply{}, errNeedsMeta
		}
		elems := make([]resp.Reply, 0, t.Len())
		for j := 1; ; j++ {
			var el lua.LValue
			if getTable {
				el = L.GetTable(t, lua.LNumber(j))
			} else {
				el = t.RawGetInt(j)
			}
			if el != nil && el.Type() == lua.LTNil {
				break
			}
			r, err := luaToReply(L, d, el, depth+1, getTable)
			if err != nil {
				return r, err
			}
			elems = append(elems, r)
		}
		return resp.Reply{Kind: resp.Array, Elems: elems}, nil
	default:
		return resp.Nil, nil
	}
}

// convertProtected is an LGFunction run under PCall: it converts argument 1
// with metamethods honoured and leaves the reply in e.converted.
func (e *Engine) convertProtected(L *lua.LState) int {
	r, err := luaToReply(L, &e.lua.ids, L.Get(1), 0, true)
	if err != nil {
		r = resp.ErrorReply(msgReplyTooDeep)
	}
	e.converted = r
	return 0
}

// typedReply converts a table with one of the fields Redis 7.0 reads
// before treating a table as an array; ok is false when t has none.
func typedReply(L *lua.LState, d *ids, t *lua.LTable, depth int, getTable bool) (resp.Reply, bool, error) {
	if s, ok := t.RawGetString("err").(lua.LString); ok {
		return resp.ErrorReply(toInline(string(s))), true, nil
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		return resp.Reply{Kind: resp.Status, Str: toInline(string(s))}, true, nil
	}
	if n, ok := t.RawGetString("double").(lua.LNumber); ok {
		return resp.BulkReply(callArgText(float64(n))), true, nil
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		return resp.BulkReply(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(s))), true, nil
	}
	if v, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		_, okf := v.RawGetString("format").(lua.LString)
		s, oks := v.RawGetString("string").(lua.LString)
		if okf && oks {
			return resp.BulkReply(string(s)), true, nil
		}
	}
	for _, field := range []string{"map", "set"} {
		m, ok := t.RawGetString(field).(*lua.LTable)
		if !ok {
			continue
		}
		elems := []resp.Reply{}
		for k, v := m.Next(lua.LNil); k != lua.LNil; k, v = m.Next(k) {
			vals := []lua.LValue{k, v}
			if field == "set" {
				vals = vals[:1]
			}
			for _, x := range vals {
				r, err := luaToReply(L, d, x, depth+1, getTable)
				if err != nil {
					return r, true, err
				}
				elems = append(elems, r)
			}
		}
		return resp.Reply{Kind: resp.Array, Elems: elems}, true, nil
	}
	return resp.Reply{}, false, nil
}
