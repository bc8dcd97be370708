package script

import (
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"

	"locksim/sim/resp"
)

// allocatedBytes is the process's cumulative heap allocation: what a run
// allocated is an upper bound of how much it grew the peak heap.
func allocatedBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// maxBombBytes bounds what any one bomb may allocate (the budgets are
// 64 MiB and 10M instructions; the rest is the engine's own overhead).
const maxBombBytes = 256 << 20

// scriptBombs are scripts that once exhausted memory or time; each must
// stop with the error that names its limit. Numbers in names are from
// before the limits existed.
var scriptBombs = []struct {
	name, script string
	want         string // substring of the error reply
}{
	{"concat doubling (6 GB in 10 s)", `local s = "x" while true do s = s .. s end`, "memory budget"},
	{"concat of three", `local s = "x" while true do s = s .. s .. s end`, "memory budget"},
	{"sparse array index (1 GB)", `local t = {} t[60000000] = 1`, "memory budget"},
	{"sparse array by rawset", `rawset({}, 60000000, 1)`, "memory budget"},
	{"tables in a table", `local t = {} while true do t[#t+1] = {} end`, "memory budget"},
	{"hash keys", `local t = {} local i = 0 while true do i = i + 1 t[-i] = true end`, "memory budget"},
	{"closures", `local t = {} while true do t[#t+1] = function() return t end end`, "memory budget"},
	{"coroutines (100 KB each)", `local t = {} while true do t[#t+1] = coroutine.create(function() end) end`, "memory budget"},
	{"string.rep of 2^31", `return string.rep("x", 2^31)`, "memory budget"},
	{"string.rep of a string", `local s = ("x"):rep(1e6) return s:rep(1e6)`, "memory budget"},
	{"string.rep in a loop", `local t = {} while true do t[#t+1] = ("x"):rep(1e6) end`, "memory budget"},
	{"upper in a loop", `local s, t = ("x"):rep(1e6), {} while true do t[#t+1] = s:upper() end`, "memory budget"},
	{"format widths", `local t = {} while true do t[#t+1] = string.format("%99d%99.99f", 1, 1e308) end`, "memory budget"},
	{"table.concat of a big string", `local s = ("x"):rep(1e6) local t = {} for i = 1, 2000 do t[i] = s end return table.concat(t)`, "memory budget"},
	{"status replies kept", `local t = {} while true do t[#t+1] = redis.status_reply("x") end`, "memory budget"},
	{"tostring ids kept", `local t = {} while true do t[#t+1] = tostring({}) end`, "memory budget"},
	{"insert at the front", `local t = {} for i = 1, 1e6 do table.insert(t, 1, i) end`, "instruction budget"},
	{"unpack in a loop", `local t = {} for i = 1, 5000 do t[i] = i end while true do unpack(t) end`, "budget"},
	{"select in a loop", `local function f(...) while true do select(1, ...) end end f(unpack((function() local t = {} for i = 1, 2000 do t[i] = i end return t end)()))`, "budget"},
	{"error with a big message", `local s = ("x"):rep(1e7) while true do pcall(error, s) end`, "memory budget"},
	{"backtracking pattern, n=20 (30 s)", `return string.find(("a"):rep(20), ("a?"):rep(20) .. ("a"):rep(20))`, "instruction budget"},
	{"backtracking pattern, n=22 (120 s)", `return string.match(("a"):rep(22), ("a?"):rep(22) .. ("a"):rep(22))`, "instruction budget"},
	{"backtracking gsub", `return string.gsub(("a"):rep(25), ("a?"):rep(25) .. ("a"):rep(25), "x")`, "instruction budget"},
	{"gmatch of every byte", `local n = 0 for c in ("x"):rep(1e6):gmatch(".") do n = n + 1 end return n`, "memory budget"},
	{"captures nested 10^6 deep", `return string.find("x", ("("):rep(1e6))`, "too many captures"},
	{"a pattern of 10^6 optional items", `return string.find(("a"):rep(1e5), ("a?"):rep(1e5))`, "pattern too complex"},
	{"2-million-element table literal (90 s)", "return {" + strings.Repeat("1,", 2_000_000) + "}", "max-script-source-bytes"},
	{"10,000 distinct constants (0.4 s to compile)", "return {" + numbers(10_000) + "}", "max-script-constants"},
	{"16,000 terms (2.5 s to compile)", "local x = 1 return " + strings.Repeat("x+", 16_000) + "x", "max-script-tree-depth"},
	{"loadstring of a built literal", `local f, err = loadstring("return {" .. ("1,"):rep(2e6) .. "}") return err`, "max-script-source-bytes"},
	{"loadstring of deep nesting", `local f, err = loadstring("return " .. ("-x"):rep(5000)) return err`, "max-script-tree-depth"},
	{"load of an endless reader", `local f, err = load(function() return "--xxxxxxxxxx\n" end) return err`, "max-script-source-bytes"},
	{"cjson.encode nested 10^5 deep (Go stack overflow)", `local t = {} local c = t for i = 1, 1e5 do c[1] = {} c = c[1] end return cjson.encode(t)`, "excessive nesting"},
	{"cjson.decode nested 10^6 deep", `return cjson.decode(("["):rep(1e6))`, "too many nested data structures"},
	{"cjson.encode of a repeated big string", `local t, s = {}, ("x"):rep(1e6) for i = 1, 100 do t[i] = s end return cjson.encode(t)`, "memory budget"},
	{"#t over trailing nils", `local t = {} t[1500000] = 1 t[1500000] = nil while true do local n = #t end`, "instruction budget"},
	{"next over deleted keys", `local t = {} for i = 1, 150000 do t["k" .. i] = 1 end for i = 1, 150000 do t["k" .. i] = nil end while true do next(t) end`, "instruction budget"},
	{"pairs over deleted keys", `local t = {} for i = 1, 150000 do t[-i] = 1 end for i = 1, 150000 do t[-i] = nil end while true do for k in pairs(t) do end end`, "instruction budget"},
	{"comparing long strings", `local a, b = ("x"):rep(2e7), ("x"):rep(2e7) while true do local c = a == b end`, "instruction budget"},
	{"hashing a long key", `local t, s = {}, ("x"):rep(3e7) while true do local v = t[s] end`, "instruction budget"},
	{"table literal in a loop", `local t = {} while true do t[#t+1] = {` + strings.Repeat("1,", 500) + `} end`, "memory budget"},
}

// heavyScripts did not blow up but took minutes or recursed per byte;
// they must now complete.
var heavyScripts = []struct{ name, script string }{
	{"gsub of 10^5 matches (quadratic before)", `return #(("x"):rep(1e5):gsub("x", "yy"))`},
	{".* over 10^6 bytes (a recursion per byte before)", `return #(("x"):rep(1e6):match(".*"))`},
	{".- over 10^6 bytes", `return #(("x"):rep(1e6):match("(.-)$"))`},
}

// numbers is "1,2,...,n,".
func numbers(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(',')
	}
	return b.String()
}

func TestHeavyScriptsComplete(t *testing.T) {
	_, e := newNode(t, Options{})
	c := e.NewConn()
	for _, h := range heavyScripts {
		if r := c.Do("EVAL", h.script, "0"); r.Kind != resp.Int {
			t.Errorf("%s: %s", h.name, r)
		}
	}
}

func TestScriptBombs(t *testing.T) {
	_, e := newNode(t, Options{})
	c := e.NewConn()
	for _, b := range scriptBombs {
		t.Run(b.name, func(t *testing.T) {
			before := allocatedBytes()
			r := c.Do("EVAL", b.script, "0")
			grew := allocatedBytes() - before
			instr, mem := e.lua.budget.used()
			t.Logf("allocated %d MB; budget used: %d instructions, %d bytes; %.60s", grew>>20, instr, mem, r.Str)
			if !strings.Contains(r.Str, b.want) || (r.Kind != resp.Error && !strings.Contains(b.script, "return err")) {
				t.Errorf("got %s, want an error with %q", r, b.want)
			}
			if grew > maxBombBytes {
				t.Errorf("allocated %d MB, want at most %d MB", grew>>20, maxBombBytes>>20)
			}
			// Time is bounded by counts, never measured: the run stopped
			// within both budgets.
			if instr > DefaultMaxInstructions || mem > DefaultMaxMemory {
				t.Errorf("used %d instructions and %d bytes, beyond the budgets %d and %d", instr, mem, DefaultMaxInstructions, DefaultMaxMemory)
			}
			if got := c.Do("EVAL", "return 'alive'", "0"); got.Str != "alive" {
				t.Fatalf("the engine after the bomb: %s", got)
			}
		})
	}
}

// TestBudgetDeterministic: a bomb stops at the same count, with the same
// reply, on a fresh engine, on another fresh one and on a pooled state
// another engine used before: the budget is a pure function of the script.
func TestBudgetDeterministic(t *testing.T) {
	type outcome struct {
		reply             string
		instructions, mem int64
	}
	run := func(e *Engine, src string) outcome {
		r := e.NewConn().Do("EVAL", src, "0")
		i, m := e.lua.budget.used()
		return outcome{r.String(), i, m}
	}
	some := map[string]bool{"concat of three": true, "hash keys": true, "closures": true,
		"string.rep in a loop": true, "backtracking pattern, n=20 (30 s)": true,
		"status replies kept": true, "cjson.encode of a repeated big string": true}
	for _, b := range scriptBombs {
		if !some[b.name] {
			continue
		}
		_, e1 := newNode(t, Options{})
		first := run(e1, b.script)
		e1.Release()
		_, e2 := newNode(t, Options{}) // may take e1's pooled state
		_, e3 := newNode(t, Options{})
		for _, e := range []*Engine{e2, e3} {
			if got := run(e, b.script); got != first {
				t.Errorf("%s: %+v, then %+v", b.name, first, got)
			}
		}
	}
}
