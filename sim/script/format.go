package script

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1's string.format (lstrlib.c str_format), as Redis 7 runs it:
// flags "-+ #0", a width and a precision of at most two digits each,
// conversions c d i o u x X e E f g G q s, printed as C's sprintf prints
// them; arguments are checked as luaL_checknumber and luaL_checklstring
// check them (a string that reads as a number is a number, a number is
// its "%.14g" text, anything else is an error). gopher-lua's format is
// Go's fmt: it prints "%!s(MISSING)" for a missing argument, accepts any
// width and prints tables, booleans and nil.

const (
	formatFlags   = "-+ #0"
	formatItemMax = 512 // MAX_ITEM: the buffer one conversion writes into
)

// format is string.format.
func (st *luaState) format(L *lua.LState) int {
	top := L.GetTop()
	arg := 1
	f := st.checkStringArg(L, arg, "format")
	var b strings.Builder
	for i := 0; i < len(f); {
		if f[i] != '%' {
			b.WriteByte(f[i])
			i++
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		arg++
		if arg > top {
			argError(L, arg, "format", "no value")
		}
		spec, conv, next := scanFormat(L, f, i)
		i = next
		st.budget.charge(L, formatItemMax)
		switch conv {
		case 'c':
			b.WriteString(pad(string([]byte{byte(int32(cInt(st.checkNumber(L, arg, "format"))))}), spec, false))
		case 'd', 'i':
			b.WriteString(fmt.Sprintf(spec.goVerb('d'), cInt(st.checkNumber(L, arg, "format"))))
		case 'o', 'u', 'x', 'X':
			n := cUint(st.checkNumber(L, arg, "format"))
			verb := map[byte]byte{'o': 'o', 'u': 'd', 'x': 'x', 'X': 'X'}[conv]
			if n == 0 && verb != 'o' {
				spec.flags = strings.ReplaceAll(spec.flags, "#", "") // C prints 0, not 0x0
			}
			b.WriteString(fmt.Sprintf(spec.goVerb(verb), n))
		case 'e', 'E', 'f', 'g', 'G':
			b.WriteString(formatFloat(st.checkNumber(L, arg, "format"), spec, conv))
		case 'q':
			b.WriteString(quoted(st.checkStringArg(L, arg, "format")))
		case 's':
			s := st.checkStringArg(L, arg, "format")
			if !spec.hasPrec && len(s) >= 100 {
				b.WriteString(s) // Lua keeps a long string whole
				continue
			}
			s = cString(s)
			if spec.hasPrec && len(s) > spec.prec {
				s = s[:spec.prec]
			}
			b.WriteString(pad(s, spec, false))
		default:
			L.Error(lua.LString("invalid option '%"+string([]byte{conv})+"' to 'format'"), 1)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// formatSpec is one conversion's flags, width and precision.
type formatSpec struct {
	flags           string
	width, prec     int
	hasWid, hasPrec bool
}

// goVerb is the spec as a Go format with verb.
func (s formatSpec) goVerb(verb byte) string {
	v := "%" + s.flags
	if s.hasWid {
		v += fmt.Sprint(s.width)
	}
	if s.hasPrec {
		v += "." + fmt.Sprint(s.prec)
	}
	return v + string(verb)
}

// scanFormat is lstrlib.c's scanformat: the spec starting at f[i] (after
// the %), its conversion byte (0 at the end of f) and where the text
// goes on after it.
func scanFormat(L *lua.LState, f string, i int) (formatSpec, byte, int) {
	var s formatSpec
	start := i
	for i < len(f) && strings.IndexByte(formatFlags, f[i]) >= 0 {
		i++
	}
	if i-start >= len(formatFlags)+1 {
		L.Error(lua.LString("invalid format (repeated flags)"), 1)
	}
	s.flags = f[start:i]
	digits := func() (int, bool) {
		n, k := 0, 0
		for k < 2 && i < len(f) && isDigitByte(f[i]) {
			n, k, i = n*10+int(f[i]-'0'), k+1, i+1
		}
		return n, k > 0
	}
	s.width, s.hasWid = digits()
	if i < len(f) && f[i] == '.' {
		i++
		s.prec, _ = digits()
		s.hasPrec = true
	}
	if i < len(f) && isDigitByte(f[i]) {
		L.Error(lua.LString("invalid format (width or precision too long)"), 1)
	}
	if i >= len(f) {
		return s, 0, i
	}
	return s, f[i], i + 1
}

// pad pads s to the spec's width, left-justified with the - flag, with
// zeros when zero is set and the 0 flag is given.
func pad(s string, spec formatSpec, zero bool) string {
	if !spec.hasWid || len(s) >= spec.width {
		return s
	}
	fill := strings.Repeat(" ", spec.width-len(s))
	switch {
	case strings.Contains(spec.flags, "-"):
		return s + fill
	case zero && strings.Contains(spec.flags, "0"):
		sign := ""
		if s != "" && (s[0] == '-' || s[0] == '+' || s[0] == ' ') {
			sign, s = s[:1], s[1:]
		}
		return sign + strings.Repeat("0", len(fill)) + s
	}
	return fill + s
}

// formatFloat prints f with a C float conversion: Go's fmt for finite
// numbers (precision 6 when none is given, as in C), glibc's inf and nan
// otherwise.
func formatFloat(f float64, spec formatSpec, conv byte) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		s := cFormatG(f, 6)
		if s[0] != '-' {
			if strings.Contains(spec.flags, "+") {
				s = "+" + s
			} else if strings.Contains(spec.flags, " ") {
				s = " " + s
			}
		}
		if conv == 'E' || conv == 'G' {
			s = strings.ToUpper(s)
		}
		return pad(s, spec, false)
	}
	if !spec.hasPrec {
		spec.prec, spec.hasPrec = 6, true
	}
	if (conv == 'g' || conv == 'G') && spec.prec == 0 {
		spec.prec = 1
	}
	return fmt.Sprintf(spec.goVerb(conv), f)
}

// cInt is C's (long)f on x86-64: out of range and NaN give LONG_MIN.
func cInt(f float64) int64 {
	if !(f >= -(1 << 63)) || f >= 1<<63 {
		return math.MinInt64
	}
	return int64(f)
}

// cUint is gcc's (unsigned long)f on x86-64.
func cUint(f float64) uint64 {
	if f < 1<<63 {
		return uint64(cInt(f))
	}
	return uint64(cInt(f-(1<<63))) ^ (1 << 63)
}

// quoted is %q: the string in double quotes, with ", \ and newline
// escaped by a backslash, \r as \r and NUL as \000.
func quoted(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\000`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// checkNumber is luaL_checknumber: a number, or a string that reads as
// one (str2d).
func (st *luaState) checkNumber(L *lua.LState, n int, fn string) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, ok := str2d(string(v)); ok {
			return f
		}
	}
	argError(L, n, fn, "number expected, got "+typeName(L, n))
	return 0
}

// checkStringArg is luaL_checklstring with Lua 5.1's error text.
func (st *luaState) checkStringArg(L *lua.LState, n int, fn string) string {
	v := L.Get(n)
	if s, ok := valueText(v); ok {
		if _, isNum := v.(lua.LNumber); isNum {
			st.budget.charge(L, numberTextBytes+stringHeaderBytes)
		}
		return s
	}
	argError(L, n, fn, "string expected, got "+typeName(L, n))
	return ""
}

// typeName is the type of argument n as luaL_typerror names it ("no
// value" past the last argument).
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// argError raises luaL_argerror's message.
func argError(L *lua.LState, n int, fn, msg string) {
	L.Error(lua.LString(fmt.Sprintf("bad argument #%d to '%s' (%s)", n, fn, msg)), 1)
}
