package luapattern

// Budget is what a match spends its steps from: Spend(n) takes n steps
// and reports whether the budget allows them. A match calls it every
// stepBatch steps and at its end, so a budget sees the steps in order.
type Budget interface {
	Spend(steps int64) bool
}

// stepBatch is how many steps a match takes between Spend calls.
const stepBatch = 1024

// errBudget stops a match whose budget said no.
var errBudget = &Error{_UNKNOWN, "pattern matching exceeded its budget"}

// ErrBudget reports whether err is a match stopped by its budget.
func ErrBudget(err error) bool { return err == errBudget }

// Pattern is a compiled pattern.
type Pattern struct {
	insts    []inst
	mustHead bool // anchored with ^: matches only at the first position tried
}

// Compile parses and compiles p.
func Compile(p string) (pat *Pattern, err error) {
	defer func() {
		if v := recover(); v != nil {
			perr, ok := v.(*Error)
			if !ok {
				panic(v)
			}
			err = perr
		}
	}()
	seq := parsePattern(newScanner([]byte(p)), true)
	return &Pattern{insts: compilePattern(seq), mustHead: seq.MustHead}, nil
}

// Matcher runs a pattern over one subject.
type Matcher struct {
	p      *Pattern
	src    []byte
	b      Budget
	steps  int64 // taken since the last Spend
	depth  int
	failed bool // the budget said no
}

// NewMatcher returns a matcher of p over src spending from b.
func NewMatcher(p *Pattern, src []byte, b Budget) *Matcher {
	return &Matcher{p: p, src: src, b: b}
}

// At reports whether the pattern matches exactly at position sp (not
// after it), and where that match ends.
func (m *Matcher) At(sp int) (md *MatchData, end int, err error) {
	defer m.recover(&err)
	if ok, nsp, ms := m.run(0, sp, newMatchState()); ok {
		return ms, nsp, nil
	}
	return nil, sp, nil
}

// Anchored reports whether the pattern starts with ^.
func (p *Pattern) Anchored() bool { return p.mustHead }

// Find is pm.Find, loop for loop: the matches from offset on, stopping
// when there are limit of them (checked after every position tried, so a
// limit of 0 stops after the first position unless it matched).
func (m *Matcher) Find(offset, limit int) (matches []*MatchData, err error) {
	defer m.recover(&err)
	matches = []*MatchData{}
	for sp := offset; sp <= len(m.src); {
		ok, nsp, ms := m.run(0, sp, newMatchState())
		sp++
		if ok {
			if sp < nsp {
				sp = nsp
			}
			matches = append(matches, ms)
		}
		if len(matches) == limit || m.p.mustHead {
			break
		}
	}
	return matches, nil
}

// recover ends Next and Find: a panic with an *Error becomes *err, and
// the steps taken are spent.
func (m *Matcher) recover(err *error) {
	if v := recover(); v != nil {
		perr, ok := v.(*Error)
		if !ok {
			panic(v)
		}
		*err = perr
	}
	if *err == nil && !m.flush() {
		*err = errBudget
	}
}

// step takes one step, spending a batch when one is full.
func (m *Matcher) step() {
	m.steps++
	if m.steps >= stepBatch && !m.flush() {
		panic(errBudget)
	}
}

// flush spends the steps taken; false once the budget said no.
func (m *Matcher) flush() bool {
	if m.failed {
		return false
	}
	if m.steps > 0 {
		n := m.steps
		m.steps = 0
		if !m.b.Spend(n) {
			m.failed = true
			return false
		}
	}
	return true
}

// run is pm's recursiveVM with steps, bounded recursion and the looping
// opStar and opMinus. It reports whether insts[pc:] matches at sp, and
// where the match ends.
func (m *Matcher) run(pc, sp int, ms *MatchData) (bool, int, *MatchData) {
	if m.depth++; m.depth > MaxDepth {
		panic(newError(_UNKNOWN, "pattern too complex"))
	}
	defer func() { m.depth-- }()
	src, insts := m.src, m.p.insts
redo:
	m.step()
	inst := insts[pc]
	switch inst.OpCode {
	case opChar:
		if sp >= len(src) || !inst.Class.Matches(int(src[sp])) {
			return false, sp, ms
		}
		pc++
		sp++
		goto redo
	case opMatch:
		return true, sp, ms
	case opTailMatch:
		return sp >= len(src), sp, ms
	case opJmp:
		pc = inst.Operand1
		goto redo
	case opSplit:
		if ok, nsp, _ := m.run(inst.Operand1, sp, ms); ok {
			return true, nsp, ms
		}
		pc = inst.Operand2
		goto redo
	case opStar:
		n := 0
		for sp+n < len(src) && inst.Class.Matches(int(src[sp+n])) {
			m.step()
			n++
		}
		for ; n >= 0; n-- {
			if ok, nsp, _ := m.run(pc+1, sp+n, ms); ok {
				return true, nsp, ms
			}
		}
		return false, sp, ms
	case opMinus:
		for i := 0; ; i++ {
			if ok, nsp, _ := m.run(pc+1, sp+i, ms); ok {
				return true, nsp, ms
			}
			if sp+i >= len(src) || !inst.Class.Matches(int(src[sp+i])) {
				return false, sp, ms
			}
			m.step()
		}
	case opSave:
		s := ms.setCapture(inst.Operand1, sp)
		if ok, nsp, _ := m.run(pc+1, sp, ms); ok {
			return true, nsp, ms
		}
		ms.restoreCapture(inst.Operand1, s)
		return false, sp, ms
	case opPSave:
		ms.addPosCapture(inst.Operand1, sp+1)
		pc++
		goto redo
	case opBrace:
		if sp >= len(src) || int(src[sp]) != inst.Operand1 {
			return false, sp, ms
		}
		count := 1
		for sp = sp + 1; sp < len(src); sp++ {
			m.step()
			if int(src[sp]) == inst.Operand2 {
				count--
			}
			if count == 0 {
				pc++
				sp++
				goto redo
			}
			if int(src[sp]) == inst.Operand1 {
				count++
			}
		}
		return false, sp, ms
	case opNumber:
		idx := inst.Operand1 * 2
		if idx >= ms.CaptureLength()-1 {
			panic(newError(_UNKNOWN, "invalid capture index"))
		}
		start, end := ms.Capture(idx), ms.Capture(idx+1)
		if end < start || end > len(src) { // locksim: pm slices out of range here
			panic(newError(_UNKNOWN, "unfinished capture"))
		}
		capture := src[start:end]
		for i := 0; i < len(capture); i++ {
			m.step()
			if i+sp >= len(src) || capture[i] != src[i+sp] {
				return false, sp, ms
			}
		}
		pc++
		sp += len(capture)
		goto redo
	}
	panic("luapattern: unknown instruction")
}
