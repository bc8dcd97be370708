package script

import lua "github.com/yuin/gopher-lua"

// What the budget charges for Lua values, in bytes. Each is at least what
// gopher-lua v1.1.1 allocates on amd64 (measured: a table ~96, a closure
// ~136, a new hash key ~165-205, a coroutine ~104,400), so the memory
// budget bounds the Go heap a run can hold from above.
const (
	stringHeaderBytes = 16      // a string's header, on top of its bytes
	numberTextBytes   = 24      // the longest text of a number ("-1.2345678901234567e+308")
	tableBytes        = 128     // an empty table
	arraySlotBytes    = 32      // one array slot, counting append's doubling
	hashSlotBytes     = 256     // one new hash key (map entry, key list, key index)
	hashMapBytes      = 320     // a table's first string key, or first other key: its map
	hashPartBytes     = 640     // a table's first hash key: both its maps
	closureBytes      = 160     // a Lua closure
	upvalueBytes      = 48      // one of its upvalues
	goCallBytes       = 32      // what a call to a Go library function may box
	numberBoxBytes    = 24      // a number stored in a table (gopher-lua boxes it)
	threadBytes       = 112_000 // a coroutine: its own value stack and call stack
)

// watched marks the opcodes whose execution can allocate more than a few
// bytes; every other instruction allocates at most a boxed number.
var watched = func() (w [64]bool) {
	for _, op := range []int{lua.OP_CONCAT, lua.OP_NEWTABLE, lua.OP_SETLIST, lua.OP_CLOSURE,
		lua.OP_SETTABLE, lua.OP_SETTABLEKS, lua.OP_CALL, lua.OP_TAILCALL} {
		w[op] = true
	}
	return w
}()

// chargeNext charges the memory L's next instruction will allocate; false
// once the budget is spent. Decoding follows gopher-lua's vm.go.
func (b *budget) chargeNext(L *lua.LState) bool {
	inst, cf, proto, ok := nextInstruction(L)
	if !ok || !watched[inst>>26] {
		return true
	}
	f, ok := frameOf(L, cf, proto)
	if !ok {
		return true
	}
	a := int(inst>>18) & 0xff
	bArg := int(inst & 0x1ff)
	c := int(inst>>9) & 0x1ff
	var n int64
	switch int(inst >> 26) {
	case lua.OP_CONCAT: // R(A) := R(B).. ... ..R(C)
		n = stringHeaderBytes
		for i := bArg; i <= c; i++ {
			n += textBytes(f.reg(i)) + stringHeaderBytes // the operand and its slot in the join
		}
	case lua.OP_NEWTABLE: // R(A) := {} with B array and C hash slots preallocated
		n = tableBytes + int64(bArg)*arraySlotBytes + int64(c)*hashSlotBytes
		if c > 0 {
			n += hashPartBytes
		}
	case lua.OP_SETLIST: // R(A)[(C-1)*FPF+i] := R(A+i), 1 <= i <= B (B == 0: up to the top)
		if c == 0 && f.pc+1 < len(proto.Code) {
			c = int(proto.Code[f.pc+1])
		}
		nelem := bArg
		if bArg == 0 {
			nelem = f.top - a - 1
		}
		if t, ok := f.reg(a).(*lua.LTable); ok && nelem > 0 {
			n = growBytes(t, (c-1)*lua.FieldsPerFlush+nelem)
		}
	case lua.OP_CLOSURE: // R(A) := closure(KPROTO[Bx])
		bx := int(inst & 0x3ffff)
		n = closureBytes
		if bx < len(proto.FunctionPrototypes) {
			n += int64(proto.FunctionPrototypes[bx].NumUpvalues) * upvalueBytes
		}
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS: // R(A)[RK(B)] := RK(C)
		if t, ok := f.reg(a).(*lua.LTable); ok {
			n = slotBytes(t, f.rk(bArg), f.rk(c))
		}
	case lua.OP_CALL, lua.OP_TAILCALL: // R(A)(...)
		if fn, ok := f.reg(a).(*lua.LFunction); ok && fn.IsG {
			n = goCallBytes
		}
	}
	return b.alloc(n)
}

// textBytes is the length of v's text as `..` writes it.
func textBytes(v lua.LValue) int64 {
	switch s := v.(type) {
	case lua.LString:
		return int64(len(s))
	case lua.LNumber:
		return numberTextBytes
	}
	return 0 // `..` raises an error or calls __concat, which is charged itself
}

// slotBytes is what storing v at key in t allocates: nothing for an
// existing key or a nil value, an array slot (and the nils before it) for
// an integer key, a hash entry otherwise, and the box of a number value.
// (Numbers computed and dropped are garbage and not charged; one stored
// in a new slot lives as long as the table.)
func slotBytes(t *lua.LTable, key, v lua.LValue) int64 {
	if v == nil || v == lua.LNil || key == nil || t.RawGet(key) != lua.LNil {
		return 0
	}
	var n int64
	if _, ok := v.(lua.LNumber); ok {
		n = numberBoxBytes
	}
	if k, ok := key.(lua.LNumber); ok && isArrayKey(k) {
		return n + growBytes(t, int(k))
	}
	return n + hashBytes(t, key)
}

// hashBytes is what a new key in t's hash part allocates: an entry, and
// the maps when t has none yet (a table with one field costs ~700 bytes).
func hashBytes(t *lua.LTable, key lua.LValue) int64 {
	dict, strdict := hashMaps(t)
	_, isStr := key.(lua.LString)
	switch {
	case !dict && !strdict:
		return hashSlotBytes + hashPartBytes
	case isStr && !strdict, !isStr && !dict:
		return hashSlotBytes + hashMapBytes
	}
	return hashSlotBytes
}

// growBytes is what extending t's array part to hold index n (from 1)
// allocates: gopher-lua appends every missing slot up to n, so t[6e7] = 1
// alone asks for a 1 GB array.
func growBytes(t *lua.LTable, n int) int64 {
	if n >= lua.MaxArrayIndex || n < 1 {
		return hashSlotBytes
	}
	if have := arrayLen(t); n > have {
		return int64(n-have) * arraySlotBytes
	}
	return 0
}

// isArrayKey is gopher-lua's: an integer in [1, MaxArrayIndex) goes to the
// array part.
func isArrayKey(k lua.LNumber) bool {
	return float64(k) == float64(int64(k)) && k > 0 && k < lua.LNumber(lua.MaxArrayIndex)
}
