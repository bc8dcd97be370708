package script

import (
	"github.com/pkg/errors"
	lua "github.com/yuin/gopher-lua"

	"locksim/sim/resp"
)

// maxReplyDepth bounds the nesting of a script's returned tables (a table
// holding itself would otherwise recurse forever). Redis answers such
// replies with "reached lua stack limit".
const maxReplyDepth = 256

const msgReplyTooDeep = "ERR reached lua stack limit"

var errNeedsMeta = errors.New("script: result has a metatable")

// luaToReply converts a script's result the way miniredis's luaToRedis
// writes it, as the RESP parser would read it back:
//
//	nil, false -> nil bulk     true -> integer 1
//	number     -> integer (Go int conversion, truncating)
//	string     -> bulk
//	table      -> its err field as an error, else its ok field as a status,
//	              else an array of t[1], t[2], ... up to the first nil
//
// Tables, functions, ... in err and ok fields print by their run's ids
// (ids.go). Functions, threads and userdata become nil bulk (miniredis panics; Redis
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
		if s := t.RawGetString("err"); s.Type() != lua.LTNil {
			return resp.ErrorReply(toInline(d.name(s))), nil
		}
		if s := t.RawGetString("ok"); s.Type() != lua.LTNil {
			return resp.Reply{Kind: resp.Status, Str: toInline(d.name(s))}, nil
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
