package script

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/sim/resp"
)

// TestCJSONAsMiniredis: for valid JSON, cjson.decode gives miniredis's
// values (checked through a re-encoding read back by encoding/json, since
// miniredis builds objects in Go map order). cjson.encode's text is
// lua-cjson's, not miniredis's ({} and [], escapes, number format: see
// TestAgainstRealRedis), so the texts are compared as JSON values, with
// an empty object and an empty array the same.
func TestCJSONAsMiniredis(t *testing.T) {
	p := newPair(t)
	r := rand.New(rand.NewPCG(3, 4))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch n := r.IntN(9); {
		case n == 0 && depth < 4:
			a := []any{}
			for range r.IntN(4) {
				a = append(a, gen(depth+1))
			}
			return a
		case n == 1 && depth < 4:
			o := map[string]any{}
			for range r.IntN(4) {
				o[fmt.Sprint("k", r.IntN(5))] = gen(depth + 1)
			}
			return o
		case n == 2:
			return r.IntN(2) == 0
		case n == 3:
			return nil
		case n == 4:
			return []string{"", "x", "a\"b", "\\", "é", "\u2028", "<&>", "\x01"}[r.IntN(8)]
		default:
			return []float64{0, 1, -1, 0.5, 1e21, 1e-7, 123456789, -2.25}[r.IntN(8)]
		}
	}
	for range 300 {
		b, err := json.Marshal(gen(0))
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		// Sorted re-encoding makes the comparison independent of key order.
		script := "return cjson.encode(cjson.decode(ARGV[1]))"
		slow, fast := p.slow.Do("EVAL", script, "0", doc), p.fast.Do("EVAL", script, "0", doc)
		if diff := cmp.Diff(jsonValue(t, slow), jsonValue(t, fast)); diff != "" {
			t.Fatalf("%s: (-miniredis +fast):\n%s", doc, diff)
		}
		flat := "local v = cjson.decode(ARGV[1]) if type(v) ~= 'table' then return {type(v), tostring(v)} end return {#v, type(v[1])}"
		if diff := cmp.Diff(p.slow.Do("EVAL", flat, "0", doc), p.fast.Do("EVAL", flat, "0", doc)); diff != "" {
			t.Fatalf("%s: (-miniredis +fast):\n%s", doc, diff)
		}
	}
}

// TestCJSONLimits: nesting beyond Redis's 1000 is Redis's error, never a
// Go stack overflow; invalid JSON raises lua-cjson's error.
func TestCJSONLimits(t *testing.T) {
	_, e := newNode(t, Options{})
	c := e.NewConn()
	for _, tc := range []struct{ script, want string }{
		{"local t = {} local c = t for i = 1, 1e5 do c[1] = {} c = c[1] end return cjson.encode(t)", "Cannot serialise, excessive nesting (1001)"},
		{"local t = {} local c = t for i = 1, 1e6 do c[1] = {} c = c[1] end return cjson.encode(t)", "memory budget"}, // building it
		{"local t = {} local c = t for i = 1, 999 do c[1] = {} c = c[1] end return #cjson.encode(t)", ""},
		{"return cjson.decode(('['):rep(1e6))", "Found too many nested data structures (1001) at character 1001"},
		{"return #cjson.decode(('['):rep(1000) .. (']'):rep(1000))", ""},
		{"return cjson.decode('{')", "Expected object key string but found T_END at character 2"},
		{"return cjson.decode('[1,2')", "Expected comma or array end but found T_END at character 5"},
		{"return cjson.decode('x')", "Expected value but found invalid token at character 1"},
		{"return cjson.decode('\"abc')", "Expected value but found unexpected end of string at character 5"},
		{"return cjson.decode('{\"a\" 1}')", "Expected colon but found T_NUMBER at character 6"},
		{"return cjson.decode('-')", "Expected value but found invalid number at character 1"},
		{"return cjson.decode('')", "Expected value but found T_END at character 1"},
		{"return cjson.decode('[1,2] x')", "Expected the end but found invalid token at character 7"},
		{`return cjson.decode('"\\q"')`, "Expected value but found invalid escape code at character 2"},
		{"local t = {} local s = ('x'):rep(1e6) for i = 1, 100 do t[i] = s end return cjson.encode(t)", "memory budget"},
	} {
		r := c.Do("EVAL", tc.script, "0")
		if tc.want == "" {
			if r.Kind != resp.Int {
				t.Errorf("%.60s: %s, want an integer", tc.script, r)
			}
			continue
		}
		if r.Kind != resp.Error || !strings.Contains(r.Str, tc.want) {
			t.Errorf("%.60s: %.200s, want an error with %q", tc.script, r, tc.want)
		}
	}
}

// jsonValue is a cjson.encode reply read back, empty objects as empty
// arrays.
func jsonValue(t *testing.T, r resp.Reply) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(r.Str), &v); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	var norm func(any) any
	norm = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				return []any{}
			}
			for k, e := range x {
				x[k] = norm(e)
			}
		case []any:
			for i, e := range x {
				x[i] = norm(e)
			}
		}
		return v
	}
	return norm(v)
}
