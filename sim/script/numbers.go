package script

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// Numbers as Redis 7's Lua 5.1 converts them, where gopher-lua differs
// (measured against redis-server 7.0.15):
//
//	number -> string   "%.14g" (LUAI_NUMFFORMAT): 10/3 is 3.3333333333333,
//	                   1e15 is 1e+15, 1/0 is inf, 0/0 is -nan on x86
//	                   (gopher-lua: 3.3333333333333335, 1000000000000000, +Inf)
//	redis.call args    "%.17g": 0.1 is 0.10000000000000001 (gopher-lua: 0.1)
//	string -> number   strtod, then a hex integer (luaO_str2d): 1e1, 5e-1,
//	                   -0x10, 0x1p4, inf, nan and integers past 2^63 are
//	                   numbers (gopher-lua's tonumber: nil)
//
// gopher-lua's LNumber.String is used by its VM for `..` and by its string
// library for number arguments; neither can be changed from outside, so
// compile rewrites every operand of `..` into a call of numText (concatText)
// and the string functions convert number arguments first (stringArgs).

// numberText is Lua 5.1's lua_Number to string: "%.14g" as C prints it.
func numberText(f float64) string { return cFormatG(f, 14) }

// callArgText is how Redis 7.0 passes a number to a command from
// redis.call: "%.17g".
func callArgText(f float64) string { return cFormatG(f, 17) }

// cFormatG is C's "%.<prec>g" of f (glibc: inf, -inf, nan, -nan).
func cFormatG(f float64, prec int) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', prec, 64)
}

// valueText is what Lua 5.1 gives for a string or number value as a
// string (lua_tolstring), and ok false for any other value.
func valueText(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return numberText(float64(v)), true
	}
	return "", false
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// cString is s as C sees it: up to its first NUL byte.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// str2d is Lua 5.1's luaO_str2d: strtod (glibc: decimal, hexadecimal with
// an optional binary exponent, inf, infinity, nan), then a hex integer if
// strtod stopped at an x, then only white space may follow.
func str2d(s string) (float64, bool) {
	s = cString(s)
	f, n := strtod(s)
	if n == 0 {
		return 0, false
	}
	if n < len(s) && (s[n] == 'x' || s[n] == 'X') {
		u, m := strtoul(s, 16)
		f, n = float64(u), m
	}
	for n < len(s) && isSpace(s[n]) {
		n++
	}
	return f, n == len(s)
}

// strtod is glibc's strtod: the value of the longest prefix of s that is a
// number, and that prefix's length (0: no number).
func strtod(s string) (float64, int) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	neg := start < i && s[start] == '-'
	rest := strings.ToLower(s[i:min(len(s), i+8)])
	switch {
	case strings.HasPrefix(rest, "infinity"):
		return signed(math.Inf(1), neg), i + 8
	case strings.HasPrefix(rest, "inf"):
		return signed(math.Inf(1), neg), i + 3
	case strings.HasPrefix(rest, "nan"):
		n := i + 3
		if n < len(s) && s[n] == '(' { // nan(chars)
			j := n + 1
			for j < len(s) && (isAlnum(s[j]) || s[j] == '_') {
				j++
			}
			if j < len(s) && s[j] == ')' {
				n = j + 1
			}
		}
		return signed(math.NaN(), neg), n
	}
	hex := i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X')
	digit, expChar := isDigitByte, byte('e')
	mant := i
	if hex {
		mant = i + 2
		digit, expChar = isHexDigit, 'p'
	}
	j, digits := mant, 0
	for j < len(s) && digit(s[j]) {
		j, digits = j+1, digits+1
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && digit(s[j]) {
			j, digits = j+1, digits+1
		}
	}
	if digits == 0 {
		if hex { // "0x" alone: strtod reads the 0
			return 0, i + 1
		}
		return 0, 0
	}
	end := j
	if j < len(s) && (s[j]|0x20) == expChar {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigitByte(s[k]) {
			for k < len(s) && isDigitByte(s[k]) {
				k++
			}
			end = k
		}
	}
	text := s[start:end]
	if hex && end == j {
		text += "p0" // Go's hexadecimal floats need an exponent
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, 0
		}
	}
	return f, end
}

func signed(f float64, neg bool) float64 {
	if neg {
		return -f
	}
	return f
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }
func isHexDigit(c byte) bool  { return isDigitByte(c) || ('a' <= c|0x20 && c|0x20 <= 'f') }
func isAlnum(c byte) bool     { return isDigitByte(c) || ('a' <= c|0x20 && c|0x20 <= 'z') }

// strtoul is C's strtoul(s, &end, base) for 2 <= base <= 36: its value
// (ULONG_MAX on overflow, negated as unsigned after a '-') and how many
// bytes it read (0: no digits).
func strtoul(s string, base int) (uint64, int) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 16 && i+2 < len(s) && s[i] == '0' && (s[i+1]|0x20) == 'x' && digitValue(s[i+2]) < 16 {
		i += 2
	}
	var v uint64
	overflow := false
	j := i
	for ; j < len(s); j++ {
		d := digitValue(s[j])
		if d >= base {
			break
		}
		if hi, lo := mulAdd(v, uint64(base), uint64(d)); hi {
			overflow = true
		} else {
			v = lo
		}
	}
	if j == i {
		return 0, 0
	}
	if overflow {
		return math.MaxUint64, j
	}
	if neg {
		v = -v
	}
	return v, j
}

func mulAdd(v, base, d uint64) (overflow bool, r uint64) {
	if v > (math.MaxUint64-d)/base {
		return true, 0
	}
	return false, v*base + d
}

// digitValue is c's value as a digit of base up to 36, or 99.
func digitValue(c byte) int {
	switch {
	case isDigitByte(c):
		return int(c - '0')
	case 'a' <= c|0x20 && c|0x20 <= 'z':
		return int(c|0x20-'a') + 10
	}
	return 99
}

// sameText reports whether gopher-lua prints f as Lua 5.1 does: an
// integer of at most 14 digits (then the VM may convert it itself).
func sameText(f float64) bool {
	return f == math.Trunc(f) && math.Abs(f) < 1e14 && !(f == 0 && math.Signbit(f))
}

// tonumber is Lua 5.1's luaB_tonumber.
func (st *luaState) tonumber(L *lua.LState) int {
	base := L.OptInt(2, 10)
	if base == 10 {
		v := L.CheckAny(1)
		switch v := v.(type) {
		case lua.LNumber:
			L.Push(v)
			return 1
		case lua.LString:
			st.budget.spend(L, int64(len(v))/bytesPerInstruction)
			if f, ok := str2d(string(v)); ok {
				L.Push(lua.LNumber(f))
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}
	s := st.checkString(L, 1)
	if base < 2 || base > 36 {
		L.ArgError(2, "base out of range")
	}
	st.budget.spend(L, int64(len(s))/bytesPerInstruction)
	s = cString(s)
	if n, end := strtoul(s, base); end > 0 {
		for end < len(s) && isSpace(s[end]) {
			end++
		}
		if end == len(s) {
			L.Push(lua.LNumber(float64(n)))
			return 1
		}
	}
	L.Push(lua.LNil)
	return 1
}

// checkString is luaL_checkstring: a string, or a number as Lua 5.1
// prints it.
func (st *luaState) checkString(L *lua.LState, n int) string {
	v := L.Get(n)
	if s, ok := valueText(v); ok {
		if _, isNum := v.(lua.LNumber); isNum {
			st.budget.charge(L, numberTextBytes+stringHeaderBytes)
		}
		return s
	}
	L.TypeError(n, lua.LTString)
	return ""
}

// numTextName is the global that concatText calls: a name no Lua
// identifier or string a script is likely to write can reach by accident
// (a script that assigns it changes only its own run's `..`).
const numTextName = "\x00locksim.concat"

// numText returns its first argument, a number converted with numberText
// (the operand of a `..`; anything else is left for the VM to judge).
func (st *luaState) numText(L *lua.LState) int {
	v := L.Get(1)
	if n, ok := v.(lua.LNumber); ok && !sameText(float64(n)) {
		st.budget.charge(L, numberTextBytes+stringHeaderBytes)
		L.Push(lua.LString(numberText(float64(n))))
		return 1
	}
	L.Push(v)
	return 1
}

// concatText rewrites every operand of a `..` that may be a number into
// numText(operand), so that the VM's concatenation sees Lua 5.1's text of
// a number. String constants and nested concatenations (always strings or
// a __concat result) are left alone, which keeps a chain a .. b .. c one
// concatenation.
func concatText(stmts []ast.Stmt) {
	w := &astWalker{expr: func(e ast.Expr) ast.Expr {
		c, ok := e.(*ast.StringConcatOpExpr)
		if !ok {
			return e
		}
		c.Lhs, c.Rhs = wrapNumText(c.Lhs), wrapNumText(c.Rhs)
		return c
	}}
	w.block(stmts)
}

func wrapNumText(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.StringExpr, *ast.StringConcatOpExpr:
		return e
	case *ast.NumberExpr: // a constant: its text now
		if f, ok := str2d(x.Value); ok {
			s := &ast.StringExpr{Value: numberText(f)}
			s.SetLine(e.Line())
			s.SetLastLine(e.LastLine())
			return s
		}
	}
	fn := &ast.IdentExpr{Value: numTextName}
	fn.SetLine(e.Line())
	fn.SetLastLine(e.LastLine())
	call := &ast.FuncCallExpr{Func: fn, Args: []ast.Expr{e}}
	call.SetLine(e.Line())
	call.SetLastLine(e.LastLine())
	return call
}
