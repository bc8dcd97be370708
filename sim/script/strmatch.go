package script

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"locksim/sim/script/luapattern"
)

// string.find, match, gmatch (gfind) and gsub, as gopher-lua's stringlib
// implements them, on luapattern instead of gopher-lua's pm: every
// matching step counts against the instruction budget, so a backtracking
// pattern such as ("a?"):rep(22)..("a"):rep(22) stops with the budget error
// instead of running for minutes; `.*` loops instead of recursing once per
// byte; every match kept is charged (gmatch and gsub find all matches
// first, as gopher-lua does, so errors and side effects come in the same
// order); gsub builds its result in one pass, charging each piece
// (gopher-lua splices each replacement into a copy of the whole string:
// quadratic). Results and error texts are gopher-lua's for every input
// within the limits (TestPatternFunctionsAsMiniredis).

// patternBytes is what compiling a pattern allocates per pattern byte.
const patternBytes = 64

// matchBytes is what one match's capture record allocates.
const matchBytes = 96

// stepBudget lets a match spend the script's instructions, one a step.
type stepBudget struct{ b *budget }

func (s stepBudget) Spend(n int64) bool { return s.b.work(n) }

func (st *luaState) compilePattern(L *lua.LState, p string) *luapattern.Pattern {
	st.budget.charge(L, int64(len(p))*patternBytes)
	pat, err := luapattern.Compile(p)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	return pat
}

// matchErr raises a match's error: the budget's, or the pattern's.
func (st *luaState) matchErr(L *lua.LState, err error) {
	if luapattern.ErrBudget(err) {
		st.budget.raise(L)
	}
	L.RaiseError("%s", err.Error())
}

func (st *luaState) matcher(L *lua.LState, pat *luapattern.Pattern, s string) *luapattern.Matcher {
	return luapattern.NewMatcher(pat, []byte(s), stepBudget{st.budget})
}

// installPatternFunctions replaces gopher-lua's pattern functions in the
// string library table.
func (st *luaState) installPatternFunctions(str *lua.LTable) {
	L := st.L
	str.RawSetString("find", L.NewFunction(st.strFind))
	str.RawSetString("match", L.NewFunction(st.strMatch))
	str.RawSetString("gsub", L.NewFunction(st.strGsub))
	iter := L.NewFunction(st.strGmatchIter)
	gmatch := L.NewFunction(func(L *lua.LState) int { return st.strGmatch(L, iter) })
	str.RawSetString("gmatch", gmatch)
	str.RawSetString("gfind", gmatch)
}

func (st *luaState) strFind(L *lua.LState) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	if len(pattern) == 0 {
		L.Push(lua.LNumber(1))
		L.Push(lua.LNumber(0))
		return 2
	}
	init := strIndex(str, L.OptInt(3, 1), true)
	plain := false
	if L.GetTop() == 4 {
		plain = lua.LVAsBool(L.Get(4))
	}
	if plain {
		st.budget.spend(L, int64(len(str)-init+len(pattern))/bytesPerInstruction)
		pos := strings.Index(str[init:], pattern)
		if pos < 0 {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(lua.LNumber(init+pos) + 1)
		L.Push(lua.LNumber(init + pos + len(pattern)))
		return 2
	}
	mds, err := st.matcher(L, st.compilePattern(L, pattern), str).Find(init, 1)
	if err != nil {
		st.matchErr(L, err)
	}
	if len(mds) == 0 {
		L.Push(lua.LNil)
		return 1
	}
	md := mds[0]
	L.Push(lua.LNumber(md.Capture(0) + 1))
	L.Push(lua.LNumber(md.Capture(1)))
	for i := 2; i < md.CaptureLength(); i += 2 {
		if md.IsPosCapture(i) {
			L.Push(lua.LNumber(md.Capture(i)))
		} else {
			L.Push(lua.LString(str[md.Capture(i):md.Capture(i+1)]))
		}
	}
	return md.CaptureLength()/2 + 1
}

func (st *luaState) strMatch(L *lua.LState) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	offset := L.OptInt(3, 1)
	l := len(str)
	if offset < 0 {
		offset = l + offset + 1
	}
	offset--
	if offset < 0 {
		offset = 0
	}
	mds, err := st.matcher(L, st.compilePattern(L, pattern), str).Find(offset, 1)
	if err != nil {
		st.matchErr(L, err)
	}
	if len(mds) == 0 {
		L.Push(lua.LNil)
		return 0 // gopher-lua returns no value here (Lua: nil)
	}
	return pushCaptures(L, str, mds[0])
}

// pushCaptures pushes a match's captures, or the whole match when it has
// none, as match and gmatch return them.
func pushCaptures(L *lua.LState, str string, md *luapattern.MatchData) int {
	if md.CaptureLength() == 2 {
		L.Push(lua.LString(str[md.Capture(0):md.Capture(1)]))
		return 1
	}
	for i := 2; i < md.CaptureLength(); i += 2 {
		if md.IsPosCapture(i) {
			L.Push(lua.LNumber(md.Capture(i)))
		} else {
			L.Push(lua.LString(str[md.Capture(i):md.Capture(i+1)]))
		}
	}
	return md.CaptureLength()/2 - 1
}

// gmatchState is a gmatch iteration over matches found at the call, as
// gopher-lua finds them (so a pattern error is raised by gmatch itself).
type gmatchState struct {
	str     string
	matches []*luapattern.MatchData
	next    int
}

func (st *luaState) strGmatch(L *lua.LState, iter *lua.LFunction) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	mds := st.findAll(L, st.compilePattern(L, pattern), str, -1)
	L.Push(iter)
	ud := L.NewUserData()
	ud.Value = &gmatchState{str: str, matches: mds}
	L.Push(ud)
	return 2
}

func (st *luaState) strGmatchIter(L *lua.LState) int {
	gs, ok := L.CheckUserData(1).Value.(*gmatchState)
	if !ok {
		L.ArgError(1, "gmatch state expected")
	}
	if gs.next >= len(gs.matches) {
		return 0
	}
	md := gs.matches[gs.next]
	gs.next++
	return pushCaptures(L, gs.str, md)
}

// findAll is pm.Find(p, str, 0, limit) with every match charged before it
// is kept: ("x"):rep(1e6):gmatch(".") is a memory error, not 100 MB.
func (st *luaState) findAll(L *lua.LState, p *luapattern.Pattern, str string, limit int) []*luapattern.MatchData {
	m := st.matcher(L, p, str)
	mds := []*luapattern.MatchData{}
	for sp := 0; sp <= len(str); {
		md, end, err := m.At(sp)
		if err != nil {
			st.matchErr(L, err)
		}
		sp++
		if md != nil {
			st.budget.charge(L, matchBytes)
			if sp < end {
				sp = end
			}
			mds = append(mds, md)
		}
		if len(mds) == limit || p.Anchored() {
			break
		}
	}
	return mds
}

func (st *luaState) strGsub(L *lua.LState) int {
	str := L.CheckString(1)
	pat := L.CheckString(2)
	L.CheckTypes(3, lua.LTString, lua.LTTable, lua.LTFunction)
	repl := L.CheckAny(3)
	limit := L.OptInt(4, -1)

	mds := st.findAll(L, st.compilePattern(L, pat), str, limit)
	count := len(mds)
	var out strings.Builder
	prev := 0
	for _, md := range mds {
		start, end := md.Capture(0), md.Capture(1)
		if r, ok := st.replacement(L, str, repl, md); ok {
			st.budget.charge(L, int64(start-prev+len(r)))
			out.WriteString(str[prev:start])
			out.WriteString(r)
			prev = end
		}
	}
	if count == 0 {
		L.SetTop(1)
		L.Push(lua.LNumber(0))
		return 2
	}
	st.budget.charge(L, int64(len(str)-prev)+stringHeaderBytes)
	out.WriteString(str[prev:])
	L.Push(lua.LString(out.String()))
	L.Push(lua.LNumber(count))
	return 2
}

// replacement is gsub's text for one match, and false when the match is
// kept as it is (a table or function gave nil or false).
func (st *luaState) replacement(L *lua.LState, str string, repl lua.LValue, md *luapattern.MatchData) (string, bool) {
	switch lv := repl.(type) {
	case lua.LString:
		return st.expandRepl(L, str, string(lv), md), true
	case *lua.LTable:
		idx := 0
		if md.CaptureLength() > 2 { // has captures
			idx = 2
		}
		var value lua.LValue
		if md.IsPosCapture(idx) {
			value = L.GetTable(lv, lua.LNumber(md.Capture(idx)))
		} else {
			value = L.GetField(lv, str[md.Capture(idx):md.Capture(idx+1)])
		}
		if lua.LVIsFalse(value) {
			return "", false
		}
		return lua.LVAsString(value), true
	case *lua.LFunction:
		L.Push(lv)
		nargs := 0
		if md.CaptureLength() > 2 { // has captures
			for i := 2; i < md.CaptureLength(); i += 2 {
				if md.IsPosCapture(i) {
					L.Push(lua.LNumber(md.Capture(i)))
				} else {
					L.Push(lua.LString(capturedString(L, md, str, i)))
				}
				nargs++
			}
		} else {
			L.Push(lua.LString(capturedString(L, md, str, 0)))
			nargs++
		}
		L.Call(nargs, 1)
		ret := L.Get(-1)
		L.Pop(1)
		if lua.LVIsFalse(ret) {
			return "", false
		}
		return lua.LVAsString(ret), true
	}
	return "", false
}

// expandRepl is gopher-lua's reading of a gsub replacement string (its
// flagScanner): %0-%9 are captures, %% is %, % before anything else is
// kept with it, a final % is kept.
func (st *luaState) expandRepl(L *lua.LState, str, repl string, md *luapattern.MatchData) string {
	if strings.IndexByte(repl, '%') < 0 {
		return repl
	}
	var b strings.Builder
	for i := 0; i < len(repl); {
		c := repl[i]
		switch {
		case c == '%' && i+1 < len(repl) && repl[i+1] == '%':
			b.WriteByte('%')
			i += 2
		case c == '%' && i+1 < len(repl):
			d := repl[i+1]
			if '0' <= d && d <= '9' {
				s := capturedString(L, md, str, 2*int(d-'0'))
				st.budget.charge(L, int64(len(s)))
				b.WriteString(s)
			} else {
				b.WriteByte('%')
				b.WriteByte(d)
			}
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// capturedString is gopher-lua's: capture idx (a position as its number),
// %1 meaning the whole match when there are no captures.
func capturedString(L *lua.LState, md *luapattern.MatchData, str string, idx int) string {
	if idx > 2 && idx >= md.CaptureLength() {
		L.RaiseError("invalid capture index")
	}
	if idx >= md.CaptureLength() && idx == 2 {
		idx = 0
	}
	if md.IsPosCapture(idx) {
		return strconv.Itoa(md.Capture(idx))
	}
	return str[md.Capture(idx):md.Capture(idx+1)]
}

// strIndex is gopher-lua's luaIndex2StringIndex.
func strIndex(str string, i int, start bool) int {
	if start && i != 0 {
		i--
	}
	l := len(str)
	if i < 0 {
		i = l + i + 1
	}
	i = max(0, i)
	if !start && i > l {
		i = l
	}
	return i
}
