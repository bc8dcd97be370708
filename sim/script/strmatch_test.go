package script

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/sim/resp"
)

// TestPatternFunctionsAsMiniredis runs generated string.find, match,
// gmatch and gsub calls on the fast path (luapattern) and through
// miniredis's own EVAL (gopher-lua's pm): replies must be identical.
func TestPatternFunctionsAsMiniredis(t *testing.T) {
	p := newPair(t)
	r := rand.New(rand.NewPCG(7, 7))
	atoms := []string{"a", "b", ".", "%a", "%d", "%s", "%w", "[ab]", "[^a]", "[a-c]", "%%", "x", "(", ")", "()", "%b()", "%1", "^", "$", "%-"}
	quant := []string{"", "", "", "*", "+", "-", "?"}
	subj := []string{"", "a", "ab", "aab", "ba", "abc", "a1 b2", "(a(b)c)", "xx", "aaaa", "abab", "a-b"}
	repls := []string{`"<%0>"`, `"%1"`, `"%%"`, `"x%"`, `"%2%1"`, `"%q"`, `{a = "A", b = false, ["1"] = 1}`, `function(x) return x == "a" and "Z" or nil end`, `function(...) return select('#', ...) end`}
	quote := func(s string) string { return fmt.Sprintf("%q", s) }
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for range r.IntN(5) {
			b.WriteString(atoms[r.IntN(len(atoms))])
			b.WriteString(quant[r.IntN(len(quant))])
		}
		pat := quote(b.String())
		s := quote(subj[r.IntN(len(subj))] + subj[r.IntN(len(subj))])
		var script string
		switch r.IntN(4) {
		case 0:
			script = fmt.Sprintf("return {string.find(%s, %s, %d)}", s, pat, r.IntN(5)-2)
		case 1:
			script = fmt.Sprintf("return {string.match(%s, %s, %d)}", s, pat, r.IntN(5)-2)
		case 2:
			script = fmt.Sprintf("local t = {} for a, b in string.gmatch(%s, %s) do t[#t+1] = tostring(a) .. '/' .. tostring(b) end return t", s, pat)
		default:
			script = fmt.Sprintf("return {string.gsub(%s, %s, %s, %d)}", s, pat, repls[r.IntN(len(repls))], r.IntN(4)-1)
		}
		slow := p.slow.Do("EVAL", script, "0")
		if slow.Kind == resp.Error && strings.Contains(slow.Str, "runtime error") {
			continue // gopher-lua's pm panics (slice bounds); the fast path gives an error
		}
		fast := p.fast.Do("EVAL", script, "0")
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("%s (-miniredis +fast):\n%s", script, diff)
		}
	}
}
