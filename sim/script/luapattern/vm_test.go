package luapattern

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/gopher-lua/pm"
)

type unlimited struct{ steps int64 }

func (u *unlimited) Spend(n int64) bool { u.steps += n; return true }

type limit struct{ left int64 }

func (l *limit) Spend(n int64) bool { l.left -= n; return l.left >= 0 }

// captures renders matches as pm.MatchData would be read by stringlib.
type capture struct {
	Pos     bool
	Capture int
}

func render(ms []*MatchData) [][]capture {
	out := [][]capture{}
	for _, m := range ms {
		var cs []capture
		for i := 0; i < m.CaptureLength(); i++ {
			cs = append(cs, capture{m.IsPosCapture(i), m.Capture(i)})
		}
		out = append(out, cs)
	}
	return out
}

func renderPM(ms []*pm.MatchData) [][]capture {
	out := [][]capture{}
	for _, m := range ms {
		var cs []capture
		for i := 0; i < m.CaptureLength(); i++ {
			cs = append(cs, capture{m.IsPosCapture(i), m.Capture(i)})
		}
		out = append(out, cs)
	}
	return out
}

func find(p, src string, offset, lim int) ([][]capture, error) {
	pat, err := Compile(p)
	if err != nil {
		return nil, err
	}
	ms, err := NewMatcher(pat, []byte(src), &unlimited{}).Find(offset, lim)
	return render(ms), err
}

// TestSameAsGopherLua compares every match and error with gopher-lua's pm
// over generated patterns and subjects.
func TestSameAsGopherLua(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	atoms := []string{"a", "b", ".", "%a", "%d", "%s", "[ab]", "[^a]", "[a-c]", "%%", "x", "(", ")", "()", "%b()", "%1", "^", "$", "[", "]", "%"}
	quant := []string{"", "", "", "*", "+", "-", "?"}
	subj := []string{"", "a", "ab", "aab", "ba", "abc", "a1 b2", "(a(b)c)", "xx", "aaaa", "abab"}
	for i := 0; i < 30000; i++ {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(atoms[r.IntN(len(atoms))])
			b.WriteString(quant[r.IntN(len(quant))])
		}
		p := b.String()
		s := subj[r.IntN(len(subj))] + subj[r.IntN(len(subj))]
		off := r.IntN(3)
		lim := r.IntN(4) - 1
		want, werr := func() (out [][]capture, err error) {
			defer func() {
				if v := recover(); v != nil {
					err = fmt.Errorf("panic: %v", v)
				}
			}()
			ms, err := pm.Find(p, []byte(s), off, lim)
			return renderPM(ms), err
		}()
		got, gerr := find(p, s, off, lim)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			if strings.HasPrefix(fmt.Sprint(werr), "panic:") {
				continue // pm panics (index out of range) where we return an error
			}
			t.Fatalf("Find(%q, %q, %d, %d) error: pm %v, luapattern %v", p, s, off, lim, werr, gerr)
		}
		if werr == nil {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("Find(%q, %q, %d, %d) (-pm +luapattern):\n%s", p, s, off, lim, diff)
			}
		}
	}
}

// TestLimits: pathological patterns stop on the budget, long subjects do
// not overflow the stack, and too many captures are refused.
func TestLimits(t *testing.T) {
	// ("a?"):rep(22)..("a"):rep(22) against ("a"):rep(22) backtracks 2^22 ways.
	p := strings.Repeat("a?", 22) + strings.Repeat("a", 22)
	pat, err := Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	b := &limit{left: 1_000_000}
	_, err = NewMatcher(pat, []byte(strings.Repeat("a", 22)), b).Find(0, 1)
	if !ErrBudget(err) {
		t.Errorf("backtracking bomb: %v, want the budget error", err)
	}
	// `.*` and `.-` over 10 MB: no recursion per character.
	long := strings.Repeat("x", 10_000_000)
	for _, p := range []string{".*", "(.*)y?", ".-$", "x+$"} {
		pat, err := Compile(p)
		if err != nil {
			t.Fatal(err)
		}
		u := &unlimited{}
		ms, err := NewMatcher(pat, []byte(long), u).Find(0, 1)
		if err != nil || len(ms) != 1 {
			t.Errorf("%q over 10 MB: %d matches, %v", p, len(ms), err)
		}
		if u.steps < 10_000_000 {
			t.Errorf("%q over 10 MB took %d steps, want at least one per byte", p, u.steps)
		}
	}
	if _, err := Compile(strings.Repeat("(", 33) + strings.Repeat(")", 33)); err == nil || err.Error() != "too many captures" {
		t.Errorf("33 captures: %v", err)
	}
	if _, err := Compile(strings.Repeat("(", 10_000_000)); err == nil {
		t.Errorf("10M open captures compiled")
	}
	pat, _ = Compile(strings.Repeat("a?", 300))
	if _, err := NewMatcher(pat, []byte(strings.Repeat("a", 300)), &unlimited{}).Find(0, 1); err == nil || err.Error() != "pattern too complex" {
		t.Errorf("300 optional items: %v", err)
	}
}
