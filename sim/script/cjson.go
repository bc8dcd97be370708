package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// cjson.encode and cjson.decode. miniredis's gopher-json encodes through
// encoding/json, recursing on the Go stack once per nesting level (a table
// nested 10^6 deep ends the process), and decodes through json.Unmarshal,
// returning nil and a message for invalid JSON and building objects in Go
// map order (so pairs() over a decoded object visits its keys in an order
// no seed controls).
//
//   - encode: lua-cjson's rules and texts (cjsonEncode); gopher-json's
//     differ ({} is [], {1,nil,3} is nil, numbers print with Go's %v).
//   - decode: a decoder with lua-cjson's grammar, depth limit and error
//     texts (raised, as Redis raises them: "Expected value but found
//     invalid token at character 1"), building values as gopher-json does
//     (null is nil, so [1,null,2] is {1,2}), keys in document order.

// cjsonMaxDepth is lua-cjson's encode_max_depth and decode_max_depth in
// Redis 7.
const cjsonMaxDepth = 1000

func (st *luaState) installCJSON(t *lua.LTable) {
	t.RawSetString("encode", st.L.NewFunction(st.cjsonEncode))
	t.RawSetString("decode", st.L.NewFunction(st.cjsonDecode))
}

// cjsonEncode is lua-cjson's encode with Redis 7's settings: a table
// whose keys are all positive integers is an array (nil holes are null;
// more than twice as many slots as items and more than 10 is the
// "excessively sparse array" error), any other non-empty table is an
// object (number keys as "%.14g" strings), {} is {}; numbers print with
// "%.14g" and NaN or Inf are errors; strings escape control bytes, ", \
// and / as lua-cjson does and pass other bytes through. Object members
// come in gopher-lua's next order (Redis: its own hash order).
func (st *luaState) cjsonEncode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argError(L, 1, "encode", "expected 1 argument")
	}
	e := jsonEncoder{st: st, L: L}
	e.value(L.Get(1), 0)
	L.Push(lua.LString(e.b.String()))
	return 1
}

// jsonEncoder writes one cjson.encode text, charging each piece before
// it is written (a table shared n times is written n times, as lua-cjson
// does).
type jsonEncoder struct {
	st *luaState
	L  *lua.LState
	b  strings.Builder
}

func (e *jsonEncoder) write(s string) {
	e.st.budget.charge(e.L, 2*int64(len(s))) // the builder doubles
	e.st.budget.spend(e.L, 1+int64(len(s))/bytesPerInstruction)
	e.b.WriteString(s)
}

func (e *jsonEncoder) fail(v lua.LValue, why string) {
	e.L.Error(lua.LString("Cannot serialise "+v.Type().String()+": "+why), 1)
}

func (e *jsonEncoder) value(v lua.LValue, depth int) {
	switch x := v.(type) {
	case lua.LString:
		e.quote(string(x))
	case lua.LNumber:
		f := float64(x)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			e.fail(v, "must not be NaN or Inf")
		}
		e.write(numberText(f))
	case lua.LBool:
		e.write(map[bool]string{true: "true", false: "false"}[bool(x)])
	case *lua.LNilType:
		e.write("null")
	case *lua.LTable:
		depth++
		if depth > cjsonMaxDepth {
			e.L.Error(lua.LString(fmt.Sprintf("Cannot serialise, excessive nesting (%d)", depth)), 1)
		}
		n := e.arrayLength(x)
		if n > 0 {
			e.write("[")
			for i := 1; i <= n; i++ {
				if i > 1 {
					e.write(",")
				}
				e.value(x.RawGetInt(i), depth)
			}
			e.write("]")
			return
		}
		e.write("{")
		first := true
		for k, val := x.Next(lua.LNil); k != lua.LNil; k, val = x.Next(k) {
			if !first {
				e.write(",")
			}
			first = false
			switch key := k.(type) {
			case lua.LString:
				e.quote(string(key))
			case lua.LNumber:
				e.quote(numberText(float64(key)))
			default:
				e.fail(k, "table key must be a number or string")
			}
			e.write(":")
			e.value(val, depth)
		}
		e.write("}")
	default:
		if x == nil {
			e.write("null")
			return
		}
		e.fail(v, "type not supported")
	}
}

// arrayLength is lua-cjson's lua_array_length: the largest key if every
// key is a positive integer, else -1 (an object); an excessively sparse
// array is an error.
func (e *jsonEncoder) arrayLength(t *lua.LTable) int {
	max, items := 0, 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		e.st.budget.spend(e.L, 1)
		n, ok := k.(lua.LNumber)
		if !ok || float64(n) < 1 || float64(n) != math.Floor(float64(n)) || float64(n) > math.MaxInt32 {
			return -1
		}
		max, items = maxInt(max, int(n)), items+1
	}
	if max > items*2 && max > 10 {
		e.L.Error(lua.LString("Cannot serialise table: excessively sparse array"), 1)
	}
	return max
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// quote writes s with lua-cjson's string escaping: \" \\ \/ \b \f \n \r
// \t, other control bytes and 127 as \u00XX, other bytes unchanged. It
// charges the longest text (6 bytes a byte) before writing.
func (e *jsonEncoder) quote(s string) {
	n := 6*int64(len(s)) + 2
	e.st.budget.charge(e.L, 2*n)
	e.st.budget.spend(e.L, 1+n/bytesPerInstruction)
	b := &e.b
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '/':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

func (st *luaState) cjsonDecode(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.Error(lua.LString("bad argument #1 to decode"), 1)
		return 0
	}
	s := L.CheckString(1)
	if len(s) >= 2 && (s[0] == 0 || s[1] == 0) {
		L.RaiseError("JSON parser does not support UTF-16 or UTF-32")
	}
	st.budget.spend(L, int64(len(s))/bytesPerInstruction)
	d := &jsonDecoder{st: st, L: L, data: s}
	tok := d.next()
	v := d.value(tok)
	if tok = d.next(); tok.kind != tEnd {
		d.fail("the end", tok)
	}
	L.Push(v)
	return 1
}

// Token kinds, as lua-cjson names them in its errors.
type jsonTokenKind uint8

const (
	tObjBegin jsonTokenKind = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tError
)

var singleTokens = map[byte]jsonTokenKind{'{': tObjBegin, '}': tObjEnd, '[': tArrBegin, ']': tArrEnd, ':': tColon, ',': tComma}

var jsonTokenNames = [...]string{"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_ERROR"}

type jsonToken struct {
	kind  jsonTokenKind
	index int    // where it starts, from 0
	str   string // tString: the decoded text; tError: what is wrong
	num   float64
	b     bool
}

// jsonDecoder is lua-cjson's decoder (lua_cjson.c in Redis 7) over a Lua
// string. As in C, a NUL byte ends the input.
type jsonDecoder struct {
	st    *luaState
	L     *lua.LState
	data  string
	i     int
	depth int
}

func (d *jsonDecoder) at(i int) byte {
	if i < len(d.data) {
		return d.data[i]
	}
	return 0
}

func (d *jsonDecoder) fail(expected string, t jsonToken) {
	found := jsonTokenNames[t.kind]
	if t.kind == tError {
		found = t.str
	}
	d.L.RaiseError("Expected %s but found %s at character %d", expected, found, t.index+1)
}

func (d *jsonDecoder) next() jsonToken {
	for {
		switch d.at(d.i) {
		case ' ', '\t', '\n', '\r':
			d.i++
			continue
		}
		break
	}
	t := jsonToken{index: d.i}
	c := d.at(d.i)
	if k, ok := singleTokens[c]; ok {
		d.i++
		t.kind = k
		return t
	}
	rest := d.data[min(d.i, len(d.data)):]
	switch {
	case c == 0:
		t.kind = tEnd
	case c == '"':
		d.stringToken(&t)
	case c == '-' || ('0' <= c && c <= '9'):
		d.numberToken(&t)
	case strings.HasPrefix(rest, "true"):
		t.kind, t.b = tBoolean, true
		d.i += 4
	case strings.HasPrefix(rest, "false"):
		t.kind = tBoolean
		d.i += 5
	case strings.HasPrefix(rest, "null"):
		t.kind = tNull
		d.i += 4
	case c == '+' || c == 'i' || c == 'I' || c == 'n' || c == 'N':
		if invalidNumber(rest) {
			d.numberToken(&t)
		} else {
			t.kind, t.str = tError, "invalid token"
		}
	default:
		t.kind, t.str = tError, "invalid token"
	}
	return t
}

// invalidNumber is json_is_invalid_number for the characters that are not
// the start of a JSON number: + and inf and nan, which strtod reads.
func invalidNumber(s string) bool {
	if s[0] == '+' {
		return true
	}
	l := strings.ToLower(s[:min(3, len(s))])
	return l == "inf" || l == "nan"
}

// numberToken reads what strtod reads (lua-cjson does not refuse bad
// numbers by default): a sign, then inf, infinity or nan, a hexadecimal
// number, or a decimal one.
func (d *jsonDecoder) numberToken(t *jsonToken) {
	n := strtodPrefix(d.data[d.i:])
	if n == 0 {
		t.kind, t.str = tError, "invalid number"
		return
	}
	text := d.data[d.i : d.i+n]
	d.i += n
	t.kind = tNumber
	t.num = parseCNumber(text)
}

func strtodPrefix(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	l := strings.ToLower(s[i:min(i+8, len(s))])
	switch {
	case strings.HasPrefix(l, "infinity"):
		return i + 8
	case strings.HasPrefix(l, "inf"), strings.HasPrefix(l, "nan"):
		return i + 3
	case strings.HasPrefix(l, "0x") && i+2 < len(s) && isHex(s[i+2]):
		j := i + 2
		for j < len(s) && isHex(s[j]) {
			j++
		}
		return j
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	digits := i - start
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		digits += j - i - 1
		if digits > 0 {
			i = j
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'f') }

// parseCNumber is the value strtod gives the text strtodPrefix accepted.
func parseCNumber(s string) float64 {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	neg := strings.HasPrefix(s, "-")
	u := strings.TrimLeft(s, "+-")
	var f float64
	if v, err := strconv.ParseUint(u[min(2, len(u)):], 16, 64); err == nil && strings.HasPrefix(strings.ToLower(u), "0x") {
		f = float64(v)
	} else if f2, err := strconv.ParseFloat(u, 64); err == nil || f2 != 0 {
		f = f2 // out of range: ±Inf, as strtod
	}
	if neg {
		return -f
	}
	return f
}

var jsonEscapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func (d *jsonDecoder) stringToken(t *jsonToken) {
	d.i++ // the opening quote
	var b strings.Builder
	for {
		c := d.at(d.i)
		switch {
		case c == '"':
			d.i++
			d.st.budget.charge(d.L, int64(b.Len())+stringHeaderBytes)
			t.kind, t.str = tString, b.String()
			return
		case c == 0:
			t.kind, t.index, t.str = tError, d.i, "unexpected end of string"
			return
		case c == '\\':
			e := d.at(d.i + 1)
			if e == 'u' {
				r, n := d.unicodeEscape()
				if n == 0 {
					t.kind, t.index, t.str = tError, d.i, "invalid unicode escape code"
					return
				}
				b.WriteRune(r)
				d.i += n
				continue
			}
			ch, ok := jsonEscapes[e]
			if !ok {
				t.kind, t.index, t.str = tError, d.i, "invalid escape code"
				return
			}
			b.WriteByte(ch)
			d.i += 2
		default:
			b.WriteByte(c)
			d.i++
		}
	}
}

// unicodeEscape reads \uXXXX (or a surrogate pair \uD8XX\uDCXX) at d.i and
// returns the rune and the bytes read, 0 when it is invalid.
func (d *jsonDecoder) unicodeEscape() (rune, int) {
	hex4 := func(i int) int {
		if i+4 > len(d.data) {
			return -1
		}
		v, err := strconv.ParseUint(d.data[i:i+4], 16, 32)
		if err != nil || strings.ContainsAny(d.data[i:i+4], "+-") {
			return -1
		}
		return int(v)
	}
	cp := hex4(d.i + 2)
	if cp < 0 {
		return 0, 0
	}
	n := 6
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 || d.at(d.i+6) != '\\' || d.at(d.i+7) != 'u' {
			return 0, 0
		}
		lo := hex4(d.i + 8)
		if lo < 0 || lo&0xFC00 != 0xDC00 {
			return 0, 0
		}
		cp = ((cp&0x3FF)<<10 | lo&0x3FF) + 0x10000
		n = 12
	}
	if cp == 0 {
		return 0, n // lua-cjson writes the NUL byte
	}
	if !utf8.ValidRune(rune(cp)) {
		return utf8.RuneError, n
	}
	return rune(cp), n
}

// value is json_process_value.
func (d *jsonDecoder) value(t jsonToken) lua.LValue {
	switch t.kind {
	case tString:
		return lua.LString(t.str)
	case tNumber:
		return lua.LNumber(t.num)
	case tBoolean:
		return lua.LBool(t.b)
	case tNull:
		return lua.LNil
	case tObjBegin, tArrBegin:
		d.depth++
		if d.depth > cjsonMaxDepth {
			d.L.RaiseError("Found too many nested data structures (%d) at character %d", d.depth, t.index+1)
		}
		defer func() { d.depth-- }()
		if t.kind == tObjBegin {
			return d.object()
		}
		return d.array()
	}
	d.fail("value", t)
	return lua.LNil
}

func (d *jsonDecoder) object() lua.LValue {
	b := d.st.budget
	b.charge(d.L, tableBytes)
	tbl := d.L.CreateTable(0, 0)
	t := d.next()
	if t.kind == tObjEnd {
		return tbl
	}
	for {
		if t.kind != tString {
			d.fail("object key string", t)
		}
		key := lua.LString(t.str)
		if t = d.next(); t.kind != tColon {
			d.fail("colon", t)
		}
		v := d.value(d.next())
		b.charge(d.L, slotBytes(tbl, key, v))
		tbl.RawSetH(key, v)
		t = d.next()
		if t.kind == tObjEnd {
			return tbl
		}
		if t.kind != tComma {
			d.fail("comma or object end", t)
		}
		t = d.next()
	}
}

func (d *jsonDecoder) array() lua.LValue {
	b := d.st.budget
	b.charge(d.L, tableBytes)
	tbl := d.L.CreateTable(0, 0)
	t := d.next()
	if t.kind == tArrEnd {
		return tbl
	}
	for {
		v := d.value(t)
		b.charge(d.L, arraySlotBytes+numberBoxBytes)
		tbl.Append(v) // as gopher-json: a null is skipped
		t = d.next()
		if t.kind == tArrEnd {
			return tbl
		}
		if t.kind != tComma {
			d.fail("comma or array end", t)
		}
		t = d.next()
	}
}
