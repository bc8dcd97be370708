package script

import (
	lua "github.com/yuin/gopher-lua"
)

// tableSort is Lua 5.1's table.sort (ltablib.c auxsort): the same
// quicksort, so elements that compare equal end in the same order as in
// Redis, and a comparator that is not a strict order ("return true")
// raises "invalid order function for sorting" where Lua 5.1 does
// (gopher-lua's sort is Go's, which accepts it). Each comparison spends
// an instruction, and comparing two strings one per 16 bytes.
func (st *luaState) tableSort(L *lua.LState) int {
	t := L.CheckTable(1)
	var cmp *lua.LFunction
	if v := L.Get(2); v != lua.LNil {
		f, ok := v.(*lua.LFunction)
		if !ok {
			argError(L, 2, "sort", "function expected, got "+typeName(L, 2))
		}
		cmp = f
	}
	s := luaSorter{st: st, L: L, t: t, cmp: cmp}
	s.sort(1, t.Len())
	return 0
}

type luaSorter struct {
	st  *luaState
	L   *lua.LState
	t   *lua.LTable
	cmp *lua.LFunction
}

func (s *luaSorter) get(i int) lua.LValue    { return s.t.RawGetInt(i) }
func (s *luaSorter) set(i int, v lua.LValue) { s.t.RawSetInt(i, v) }

// less is sort_comp: the comparator's truth, or a < b.
func (s *luaSorter) less(a, b lua.LValue) bool {
	work := int64(1)
	if x, ok := a.(lua.LString); ok {
		if y, ok := b.(lua.LString); ok {
			work += int64(min(len(x), len(y))) / bytesPerInstruction
		}
	}
	s.st.budget.spend(s.L, work)
	if s.cmp == nil {
		return s.L.LessThan(a, b)
	}
	s.L.Push(s.cmp)
	s.L.Push(a)
	s.L.Push(b)
	s.L.Call(2, 1)
	r := lua.LVAsBool(s.L.Get(-1))
	s.L.Pop(1)
	return r
}

func (s *luaSorter) invalid() {
	s.L.Error(lua.LString("invalid order function for sorting"), 1)
}

// sort is auxsort, step for step.
func (s *luaSorter) sort(l, u int) {
	for l < u {
		if al, au := s.get(l), s.get(u); s.less(au, al) {
			s.set(l, au)
			s.set(u, al)
		}
		if u-l == 1 {
			break
		}
		i := (l + u) / 2
		if ai, al := s.get(i), s.get(l); s.less(ai, al) {
			s.set(i, al)
			s.set(l, ai)
		} else if au := s.get(u); s.less(au, ai) {
			s.set(i, au)
			s.set(u, ai)
		}
		if u-l == 2 {
			break
		}
		p := s.get(i)
		s.set(i, s.get(u-1))
		s.set(u-1, p)
		i, j := l, u-1
		for {
			for i++; s.less(s.get(i), p); i++ {
				if i > u {
					s.invalid()
				}
			}
			for j--; s.less(p, s.get(j)); j-- {
				if j < l {
					s.invalid()
				}
			}
			if j < i {
				break
			}
			ai, aj := s.get(i), s.get(j)
			s.set(i, aj)
			s.set(j, ai)
		}
		au1, ai := s.get(u-1), s.get(i)
		s.set(u-1, ai)
		s.set(i, au1)
		if i-l < u-i {
			j, i, l = l, i-1, i+1
		} else {
			j, i, u = i+1, u, i-1
		}
		s.sort(j, i)
	}
}
