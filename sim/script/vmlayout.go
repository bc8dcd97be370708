package script

import (
	"reflect"
	"unsafe"

	"github.com/pkg/errors"
	lua "github.com/yuin/gopher-lua"
)

// gopher-lua has no allocation hooks, and its VM runs `s = s .. s` or
// `t[6e7] = 1` (a 1 GB array) in one instruction. The only place the
// simulator can act before such an instruction runs is the context that
// the VM polls before every instruction (budget.go). To charge the memory
// an instruction is about to allocate, that poll must see which
// instruction is next and what its operands hold, which gopher-lua keeps in
// unexported fields: LState.currentFrame (the Lua function and its pc),
// LState.reg (the value stack) and LTable.array (the array part's length).
//
// layout locates those fields once, by reflection, and the poll reads them
// through unsafe pointers. It is read only, never written, and checked:
// if gopher-lua (pinned at v1.1.1 in go.mod) changes any of these fields'
// names or types, layoutErr says so and NewEngine fails, rather than a
// script running without its memory budget (TestVMLayout).
var layout struct {
	curFrame  uintptr // LState.currentFrame  *callFrame
	reg       uintptr // LState.reg           *registry
	frameFn   uintptr // callFrame.Fn         *LFunction
	framePc   uintptr // callFrame.Pc         int: index of the next instruction
	frameBase uintptr // callFrame.LocalBase  int: register 0 of the frame
	regArray  uintptr // registry.array       []LValue
	regTop    uintptr // registry.top         int: one past the last value in use
	tblArray  uintptr // LTable.array         []LValue
	tblDict   uintptr // LTable.dict          map[LValue]LValue
	tblStr    uintptr // LTable.strdict       map[string]LValue
	tblKeys   uintptr // LTable.keys          []LValue: hash keys in insertion order
	tblK2i    uintptr // LTable.k2i           map[LValue]int: a key's index in keys
}

var layoutErr = findLayout()

func findLayout() error {
	field := func(t reflect.Type, name string, want reflect.Type, kind reflect.Kind) (reflect.StructField, error) {
		f, ok := t.FieldByName(name)
		switch {
		case !ok:
			return f, errors.Errorf("gopher-lua's %s has no field %s", t, name)
		case want != nil && f.Type != want:
			return f, errors.Errorf("gopher-lua's %s.%s is %s, want %s", t, name, f.Type, want)
		case want == nil && f.Type.Kind() != kind:
			return f, errors.Errorf("gopher-lua's %s.%s is %s, want a %s", t, name, f.Type, kind)
		}
		return f, nil
	}
	intT := reflect.TypeOf(0)
	valuesT := reflect.TypeOf([]lua.LValue(nil))
	st := reflect.TypeOf(lua.LState{})
	cf, err := field(st, "currentFrame", nil, reflect.Pointer)
	if err != nil {
		return err
	}
	rg, err := field(st, "reg", nil, reflect.Pointer)
	if err != nil {
		return err
	}
	frame, regT := cf.Type.Elem(), rg.Type.Elem()
	fn, err := field(frame, "Fn", reflect.TypeOf((*lua.LFunction)(nil)), 0)
	if err != nil {
		return err
	}
	pc, err := field(frame, "Pc", intT, 0)
	if err != nil {
		return err
	}
	base, err := field(frame, "LocalBase", intT, 0)
	if err != nil {
		return err
	}
	arr, err := field(regT, "array", valuesT, 0)
	if err != nil {
		return err
	}
	top, err := field(regT, "top", intT, 0)
	if err != nil {
		return err
	}
	tarr, err := field(reflect.TypeOf(lua.LTable{}), "array", valuesT, 0)
	if err != nil {
		return err
	}
	dict, err := field(reflect.TypeOf(lua.LTable{}), "dict", reflect.TypeOf(map[lua.LValue]lua.LValue(nil)), 0)
	if err != nil {
		return err
	}
	strdict, err := field(reflect.TypeOf(lua.LTable{}), "strdict", reflect.TypeOf(map[string]lua.LValue(nil)), 0)
	if err != nil {
		return err
	}
	keys, err := field(reflect.TypeOf(lua.LTable{}), "keys", valuesT, 0)
	if err != nil {
		return err
	}
	k2i, err := field(reflect.TypeOf(lua.LTable{}), "k2i", reflect.TypeOf(map[lua.LValue]int(nil)), 0)
	if err != nil {
		return err
	}
	layout.tblDict, layout.tblStr = dict.Offset, strdict.Offset
	layout.tblKeys, layout.tblK2i = keys.Offset, k2i.Offset
	layout.curFrame, layout.reg = cf.Offset, rg.Offset
	layout.frameFn, layout.framePc, layout.frameBase = fn.Offset, pc.Offset, base.Offset
	layout.regArray, layout.regTop, layout.tblArray = arr.Offset, top.Offset, tarr.Offset
	return nil
}

// frame is what the poll needs of the running Lua function.
type frame struct {
	proto *lua.FunctionProto
	pc    int          // index of the instruction about to run in proto.Code
	regs  []lua.LValue // the frame's registers from R(0) on
	top   int          // the stack top, relative to R(0); >= 0
}

// nextInstruction returns the instruction L's running Lua function is
// about to execute and the frame to read its operands from; ok is false
// when L runs a Go function or nothing. It allocates nothing.
func nextInstruction(L *lua.LState) (inst uint32, cf unsafe.Pointer, proto *lua.FunctionProto, ok bool) {
	cf = *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(L), layout.curFrame))
	if cf == nil {
		return 0, nil, nil, false
	}
	fn := *(**lua.LFunction)(unsafe.Add(cf, layout.frameFn))
	if fn == nil || fn.IsG || fn.Proto == nil {
		return 0, nil, nil, false
	}
	// The VM increments Pc before it polls: the instruction about to run
	// is Code[Pc-1].
	pc := *(*int)(unsafe.Add(cf, layout.framePc)) - 1
	if uint(pc) >= uint(len(fn.Proto.Code)) {
		return 0, nil, nil, false
	}
	return fn.Proto.Code[pc], cf, fn.Proto, true
}

// frameOf returns the registers and pc of cf, a frame of L that
// nextInstruction returned.
func frameOf(L *lua.LState, cf unsafe.Pointer, proto *lua.FunctionProto) (f frame, ok bool) {
	base := *(*int)(unsafe.Add(cf, layout.frameBase))
	reg := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(L), layout.reg))
	if reg == nil {
		return f, false
	}
	all := *(*[]lua.LValue)(unsafe.Add(reg, layout.regArray))
	top := *(*int)(unsafe.Add(reg, layout.regTop))
	if base < 0 || base > len(all) || top < base {
		return f, false
	}
	pc := *(*int)(unsafe.Add(cf, layout.framePc)) - 1
	return frame{proto: proto, pc: pc, regs: all[base:], top: top - base}, true
}

// reg returns R(i), or nil when i is out of range.
func (f frame) reg(i int) lua.LValue {
	if i < 0 || i >= len(f.regs) {
		return nil
	}
	return f.regs[i]
}

// rk returns RK(x): a constant when x has the constant bit, else R(x).
func (f frame) rk(x int) lua.LValue {
	const bitRK = 1 << 8 // gopher-lua's opBitRk
	if x&bitRK != 0 {
		if k := x &^ bitRK; k < len(f.proto.Constants) {
			return f.proto.Constants[k]
		}
		return nil
	}
	return f.reg(x)
}

// arrayLen is len(t.array): the slots t's array part holds.
func arrayLen(t *lua.LTable) int {
	return len(tableArray(t))
}

func tableArray(t *lua.LTable) []lua.LValue {
	return *(*[]lua.LValue)(unsafe.Add(unsafe.Pointer(t), layout.tblArray))
}

// trailingNils counts the nil slots at the end of t's array part: what
// gopher-lua's #t and table.insert scan (at most arrayLen).
func trailingNils(t *lua.LTable) int {
	a := tableArray(t)
	n := 0
	for i := len(a) - 1; i >= 0 && (a[i] == nil || a[i] == lua.LNil); i-- {
		n++
	}
	return n
}

// hashKeys returns t's hash-key list (deleted keys stay in it) and the
// index of key in it, -1 when absent.
func hashKeys(t *lua.LTable, key lua.LValue) (n, index int) {
	p := unsafe.Pointer(t)
	keys := *(*[]lua.LValue)(unsafe.Add(p, layout.tblKeys))
	k2i := *(*map[lua.LValue]int)(unsafe.Add(p, layout.tblK2i))
	index = -1
	if i, ok := k2i[key]; ok && key != nil {
		index = i
	}
	return len(keys), index
}

// hashMaps reports whether t has its hash maps: dict (non-string keys)
// and strdict (string keys).
func hashMaps(t *lua.LTable) (dict, strdict bool) {
	p := unsafe.Pointer(t)
	return *(*map[lua.LValue]lua.LValue)(unsafe.Add(p, layout.tblDict)) != nil,
		*(*map[string]lua.LValue)(unsafe.Add(p, layout.tblStr)) != nil
}
