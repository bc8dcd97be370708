package script

import (
	lua "github.com/yuin/gopher-lua"
)

// chargeLibraries wraps the library functions written in Go whose cost
// grows with their arguments, so that each charges the budget before it
// allocates or works (budget.go): memory for what it produces, instructions
// for what it scans, moves or compares. The wrapped functions behave as
// gopher-lua's otherwise (same results, same errors).
//
// Left alone: functions whose work is bounded by a constant or by the
// value stack (5,120 slots, a "registry overflow" beyond), and those that
// return parts of their arguments without copying (string.sub, string.len).
func (st *luaState) chargeLibraries(base, str, tbl *lua.LTable) {
	b := st.budget
	wrap := func(t *lua.LTable, name string, pre func(L *lua.LState)) {
		f := t.RawGetString(name).(*lua.LFunction).GFunction
		t.RawSetString(name, st.L.NewFunction(func(L *lua.LState) int {
			pre(L)
			return f(L)
		}))
	}
	strArg := func(L *lua.LState, n int) int64 {
		s, _ := L.Get(n).(lua.LString)
		return int64(len(s))
	}

	// string.rep(s, n) builds len(s)*n bytes: charged before, so that
	// string.rep('x', 2^31) is an error instead of 2 GB.
	wrap(str, "rep", func(L *lua.LState) {
		n := L.CheckInt(2)
		b.charge(L, mulBytes(int64(len(L.CheckString(1))), int64(max(n, 0)))+stringHeaderBytes)
	})
	for _, name := range []string{"upper", "lower", "reverse"} {
		wrap(str, name, func(L *lua.LState) { b.charge(L, strArg(L, 1)*2+stringHeaderBytes) })
	}
	wrap(str, "byte", func(L *lua.LState) { b.spend(L, strArg(L, 1)/bytesPerInstruction+int64(L.GetTop())) })
	wrap(str, "char", func(L *lua.LState) { b.charge(L, int64(L.GetTop())+stringHeaderBytes) })
	// string.format's text is bounded by its format and arguments; see
	// formatBytes. Its %s of a table is handled in luastate.go (ids).
	wrap(str, "format", func(L *lua.LState) { b.charge(L, 3*formatBytes(L)) }) // fmt's buffer doubles, then is copied

	// (tonumber, numbers.go, charges its own scan.)
	wrap(base, "unpack", func(L *lua.LState) {
		t := L.CheckTable(1)
		b.spend(L, int64(trailingNils(t))) // unpack(t) scans for #t
		i, j := L.OptInt(2, 1), L.OptInt(3, t.Len())
		if j >= i {
			b.charge(L, mulBytes(int64(j-i)+1, 16)) // one stack slot each
		}
	})
	wrap(base, "select", func(L *lua.LState) { b.spend(L, int64(L.GetTop())) })
	// error and assert copy their message (adding the position), and
	// newproxy(true) makes a metatable.
	for _, name := range []string{"error", "assert"} {
		n := 1
		if name == "assert" {
			n = 2
		}
		wrap(base, name, func(L *lua.LState) { b.charge(L, 2*strArg(L, n)+numberTextBytes+stringHeaderBytes) })
	}
	wrap(base, "newproxy", func(L *lua.LState) { b.charge(L, 2*tableBytes) })

	// table.sort (sort.go) charges each comparison itself.
	wrap(tbl, "maxn", func(L *lua.LState) {
		t := L.CheckTable(1)
		keys, _ := hashKeys(t, nil)
		b.spend(L, int64(arrayLen(t)+keys))
	})
	wrap(tbl, "getn", func(L *lua.LState) { b.spend(L, int64(arrayLen(L.CheckTable(1)))) })
}

// chargeRedisLibrary charges the redis.* helpers that build tables or
// hash their argument.
func (st *luaState) chargeRedisLibrary(t *lua.LTable) {
	b := st.budget
	for _, name := range []string{"error_reply", "status_reply", "sha1hex"} {
		f := t.RawGetString(name).(*lua.LFunction).GFunction
		t.RawSetString(name, st.L.NewFunction(func(L *lua.LState) int {
			s, _ := L.Get(1).(lua.LString)
			b.charge(L, tableBytes+hashPartBytes+hashSlotBytes+2*int64(len(s))+numberTextBytes)
			return f(L)
		}))
	}
}

// chargeInsert is table.insert's charge: a new slot, and the slots it
// moves (inserting at pos shifts everything after it).
func (st *luaState) chargeInsert(L *lua.LState) {
	t := L.CheckTable(1)
	n := arrayLen(t)
	if L.GetTop() >= 3 {
		pos := L.CheckInt(2)
		if pos > n {
			st.budget.charge(L, growBytes(t, pos))
			return
		}
		if pos >= 1 {
			st.budget.spend(L, int64(n-pos))
		}
	}
	st.budget.spend(L, int64(trailingNils(t))) // Append looks for the border
	st.budget.charge(L, arraySlotBytes)
}

// next is the base library's next, and pairs returns it as its iterator
// (gopher-lua's pairs returns an equivalent Go function). Each call
// charges the slots it skipped: gopher-lua keeps deleted hash keys in its
// key list, so next over a table emptied of 200,000 keys scans all of them
// every time.
func (st *luaState) next(L *lua.LState) int {
	t := L.CheckTable(1)
	key := lua.LValue(lua.LNil)
	if L.GetTop() >= 2 {
		key = L.Get(2)
	}
	k, v := t.Next(key)
	st.budget.spend(L, nextWork(t, key, k))
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

func (st *luaState) pairs(L *lua.LState) int {
	t := L.CheckTable(1)
	L.Push(st.nextFn)
	L.Push(t)
	L.Push(lua.LNil)
	return 3
}

// nextWork is how many slots t.Next(from) looked at to return to: array
// slots first, then the hash-key list.
func nextWork(t *lua.LTable, from, to lua.LValue) int64 {
	alen := arrayLen(t)
	nkeys, _ := hashKeys(t, nil)
	pos := func(k lua.LValue, end int) int {
		if k == nil || k == lua.LNil {
			return end
		}
		if n, ok := k.(lua.LNumber); ok && isArrayKey(n) && int(n) <= alen {
			return int(n)
		}
		if _, i := hashKeys(t, k); i >= 0 {
			return alen + i + 1
		}
		return end
	}
	return int64(max(pos(to, alen+nkeys)-pos(from, 0), 0)) + 1
}

// chargeRemove is table.remove's charge: the slots it moves.
func (st *luaState) chargeRemove(L *lua.LState) {
	t := L.CheckTable(1)
	if L.GetTop() >= 2 {
		if pos := L.CheckInt(2); pos >= 1 && pos < arrayLen(t) {
			st.budget.spend(L, int64(arrayLen(t)-pos))
		}
	}
}

// formatBytes bounds the text string.format writes: every byte of the
// format, each argument at four bytes a byte (%q escapes a byte as \xNN),
// and each verb's width and precision (fmt refuses either above 10^6).
func formatBytes(L *lua.LState) int64 {
	f, _ := L.Get(1).(lua.LString)
	n := int64(len(f)) + stringHeaderBytes
	for i := 2; i <= L.GetTop(); i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			n += 4*int64(len(v)) + numberTextBytes
		default:
			n += 4 * numberTextBytes // a number or an id ("table: 0x0001")
		}
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		for i++; i < len(f) && (f[i] == '-' || f[i] == '+' || f[i] == ' ' || f[i] == '#' || f[i] == '0'); i++ {
		}
		for _, part := range [2]bool{true, false} { // width, then .precision
			if !part {
				if i >= len(f) || f[i] != '.' {
					break
				}
				i++
			}
			var w int64
			for ; i < len(f) && '0' <= f[i] && f[i] <= '9'; i++ {
				if w <= 1_000_000 {
					w = w*10 + int64(f[i]-'0')
				}
			}
			n += min(w, 1_000_001) + numberTextBytes
		}
	}
	return n
}

// concatBytes is what table.concat(t, sep, i, j) builds: its elements'
// texts and the separators between them. Elements that are not strings
// or numbers make table.concat raise an error; they count nothing.
func concatBytes(L *lua.LState) int64 {
	t := L.CheckTable(1)
	sep := int64(len(L.OptString(2, "")))
	i, j := L.OptInt(3, 1), L.OptInt(4, t.Len())
	n := int64(stringHeaderBytes)
	for k := i; k <= j && k-i < lua.RegistrySize; k++ { // it pushes them on the value stack
		n += textBytes(t.RawGetInt(k)) + sep + 2*16
	}
	return n
}
