package script

import lua "github.com/yuin/gopher-lua"

// What the budget charges for Lua values, in bytes. Each is at least what
// gopher-lua v1.1.1 allocates on amd64 (measured: a table ~96, a table
// with one field ~720, a closure ~136, a new hash key ~165-205, a
// coroutine ~104,400; TestChargesCoverHeap checks them against the heap),
// so the memory budget bounds the Go heap a run can hold from above.
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

// watched marks the opcodes that can allocate more than a few bytes or do
// more than a constant amount of work; every other instruction allocates
// at most a boxed number, and works in constant time.
var watched = func() (w [64]bool) {
	for _, op := range []int{lua.OP_CONCAT, lua.OP_NEWTABLE, lua.OP_SETLIST, lua.OP_CLOSURE,
		lua.OP_SETTABLE, lua.OP_SETTABLEKS, lua.OP_CALL, lua.OP_TAILCALL, lua.OP_RETURN,
		lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF, lua.OP_GETGLOBAL, lua.OP_SETGLOBAL,
		lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_LEN} {
		w[op] = true
	}
	return w
}()

// chargeNext charges the memory L's next instruction will allocate and
// the work it will do beyond a constant (hashing or comparing long
// strings, scanning an array's trailing nils, moving a variable number of
// values); false once the budget is spent. Decoding follows gopher-lua's
// vm.go.
func (b *budget) chargeNext(L *lua.LState) bool {
	inst, cf, proto, ok := nextInstruction(L)
	if !ok || !watched[inst>>26] {
		return true
	}
	switch int(inst >> 26) {
	case lua.OP_GETGLOBAL, lua.OP_SETGLOBAL, lua.OP_GETTABLEKS:
		// The key is a constant: no need for the frame (the common case:
		// redis.call is a GETGLOBAL and a GETTABLEKS).
		var k int
		if int(inst>>26) == lua.OP_GETTABLEKS {
			k = int(inst>>9) & 0xff // RK(C) without its constant bit
		} else {
			k = int(inst & 0x3ffff)
		}
		if k < len(proto.Constants) {
			return b.work(keyWork(proto.Constants[k]))
		}
		return true
	}
	f, ok := frameOf(L, cf, proto)
	if !ok {
		return true
	}
	a := int(inst>>18) & 0xff
	bArg := int(inst & 0x1ff)
	c := int(inst>>9) & 0x1ff
	bx := int(inst & 0x3ffff)
	var n, work int64
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
		n = closureBytes
		if bx < len(proto.FunctionPrototypes) {
			n += int64(proto.FunctionPrototypes[bx].NumUpvalues) * upvalueBytes
		}
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS: // R(A)[RK(B)] := RK(C)
		key := f.rk(bArg)
		work = keyWork(key)
		if t, ok := f.reg(a).(*lua.LTable); ok {
			n = slotBytes(t, key, f.rk(c))
		}
	case lua.OP_GETTABLE, lua.OP_SELF: // R(A) := R(B)[RK(C)]
		work = keyWork(f.rk(c))
	case lua.OP_EQ, lua.OP_LT, lua.OP_LE: // RK(B) op RK(C)
		x, okx := f.rk(bArg).(lua.LString)
		y, oky := f.rk(c).(lua.LString)
		if okx && oky {
			work = int64(min(len(x), len(y))) / bytesPerInstruction
		}
	case lua.OP_LEN: // R(A) := #R(B)
		if t, ok := f.reg(bArg).(*lua.LTable); ok {
			work = int64(trailingNils(t))
		}
	case lua.OP_CALL, lua.OP_TAILCALL: // R(A)(R(A+1) ... R(A+B-1)), B == 0: up to the top
		if fn, ok := f.reg(a).(*lua.LFunction); ok && fn.IsG && fn != b.numText {
			n = goCallBytes
		}
		if bArg == 0 {
			work = int64(f.top - a)
		}
	case lua.OP_RETURN: // return R(A) ... R(A+B-2), B == 0: up to the top
		if bArg == 0 {
			work = int64(f.top - a)
		}
	}
	return b.work(work) && b.alloc(n)
}

// keyWork is the work of hashing a table key: a long string key costs
// one instruction per 16 bytes.
func keyWork(key lua.LValue) int64 {
	if s, ok := key.(lua.LString); ok {
		return int64(len(s)) / bytesPerInstruction
	}
	return 0
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
