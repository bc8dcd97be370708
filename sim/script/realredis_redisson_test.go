package script

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"sort"
	"strings"
	"testing"

	"locksim/sim/resp"
)

// redissonScripts reads the Lua scripts of Redisson's fair and
// read-write locks from model/scripts_redisson.go (unexported constants of
// package model, which imports this package's importers: the source is
// read instead, so the test runs the exact text the designs send).
func redissonScripts(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../model/scripts_redisson.go", nil, 0)
	if err != nil {
		t.Fatalf("read the Redisson scripts: %v", err)
	}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("model", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatalf("evaluate the Redisson scripts: %v", err)
	}
	out := map[string]string{}
	for _, name := range pkg.Scope().Names() {
		if c, ok := pkg.Scope().Lookup(name).(*types.Const); ok && c.Val().Kind() == constant.String {
			out[name] = constant.StringVal(c.Val())
		}
	}
	return out
}

// TestRedissonScriptsAgainstRealRedis runs Redisson's fair-lock and
// read-write-lock scripts, as the designs call them, on a real
// redis-server and on the fast path (what the simulator runs), and
// compares every reply and then every key (type, value, TTL). Real time
// passes on the real server while the fast path's clock stands still:
// replies and values marked as times (PTTLs, queue deadlines) agree
// within timeSlackMS. Hash fields are compared sorted (HGETALL order
// differs: docs/limits.md, known differences).
func TestRedissonScriptsAgainstRealRedis(t *testing.T) {
	const timeSlackMS = 2000
	s := redissonScripts(t)
	for _, name := range []string{"scriptFairAcquire", "scriptFairRelease", "scriptFairAbandon", "scriptReadAcquire",
		"scriptReadRelease", "scriptReadRenew", "scriptWriteAcquire", "scriptWriteRelease"} {
		if s[name] == "" {
			t.Fatalf("model/scripts_redisson.go has no %s", name)
		}
	}
	const now = "1700000000000"
	fair := func(script string, args ...string) []string { return append([]string{"EVAL", s[script]}, args...) }
	fairAcq := func(owner string) []string {
		return fair("scriptFairAcquire", "3", "lock", "redisson_lock_queue:{lock}", "redisson_lock_timeout:{lock}", "30000", owner, "5000", now)
	}
	fairRel := func(owner string) []string {
		return fair("scriptFairRelease", "4", "lock", "redisson_lock_queue:{lock}", "redisson_lock_timeout:{lock}", "redisson_lock__channel:{lock}", "0", "30000", owner, now)
	}
	hold := func(owner string) string { return "{rw}:" + owner + ":rwlock_timeout" }
	readAcq := func(owner string) []string {
		return fair("scriptReadAcquire", "2", "rw", hold(owner), "30000", owner, owner+":write")
	}
	readRel := func(owner string) []string {
		return fair("scriptReadRelease", "4", "rw", "redisson_rwlock:{rw}", hold(owner), "{rw}", "0", owner)
	}
	writeAcq := func(owner string) []string { return fair("scriptWriteAcquire", "1", "rw", "30000", owner+":write") }
	writeRel := func(owner string) []string {
		return fair("scriptWriteRelease", "2", "rw", "redisson_rwlock:{rw}", "0", "30000", owner+":write")
	}
	type step struct {
		args []string
		time bool // an integer reply that is a time: compared within timeSlackMS
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"fair lock", []step{
			{args: fairAcq("A")},
			{args: fairAcq("A")}, // reentrant
			{args: fairAcq("B"), time: true},
			{args: fairAcq("C"), time: true},
			{args: fairAcq("B"), time: true}, // queued: the lock's PTTL
			{args: fairRel("B")},             // not ours
			{args: fairRel("A")},             // held once more
			{args: fairRel("A")},             // released, B told
			{args: fairAcq("C"), time: true}, // free, but B heads the queue
			{args: fairAcq("B")},
			{args: fair("scriptFairAbandon", "2", "redisson_lock_queue:{lock}", "redisson_lock_timeout:{lock}", "C", "5000")},
			{args: fairAcq("D"), time: true},
			{args: fairRel("B")},
		}},
		{"read-write lock", []step{
			{args: readAcq("A")},
			{args: readAcq("B")},
			{args: readAcq("A")}, // a second hold
			{args: writeAcq("C"), time: true},
			{args: fair("scriptReadRenew", "2", "rw", "{rw}", "45000", "A")},
			{args: fair("scriptReadRenew", "2", "rw", "{rw}", "45000", "Z")},
			{args: readRel("A")},
			{args: readRel("A")},
			{args: readRel("Z")},
			{args: readRel("B")},
			{args: writeAcq("C")},
			{args: writeAcq("C")}, // reentrant: the lease added to what is left
			{args: readAcq("A"), time: true},
			{args: readAcq("C")}, // the writer may also read
			{args: writeRel("A")},
			{args: writeRel("C")},
			{args: writeRel("C")}, // left in read mode: C still reads
			{args: readRel("C")},
			{args: writeAcq("D")},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			real := startRedis(t)
			_, fe := newNode(t, Options{})
			fast := fe.NewConn()
			for i, st := range tc.steps {
				r, f := real.Do(t, st.args...), fast.Do(st.args...)
				if !sameReply(r, f, st.time, timeSlackMS) {
					t.Errorf("step %d %s %q: real Redis %s, fast path %s", i, tc.name, st.args[2:], r, f)
				}
			}
			rk, fk := dumpKeys(t, real.Do(t, "KEYS", "*"), func(a ...string) resp.Reply { return real.Do(t, a...) }),
				dumpKeys(t, fast.Do("KEYS", "*"), fast.Do)
			if len(rk) != len(fk) {
				t.Fatalf("keys differ:\n  real Redis %q\n  fast path  %q", rk, fk)
			}
			for i := range rk {
				if !sameKey(rk[i], fk[i], timeSlackMS) {
					t.Errorf("key differs:\n  real Redis %s\n  fast path  %s", rk[i], fk[i])
				}
			}
		})
	}
}

// sameReply compares two replies; with time set, integers (also inside
// arrays) may differ by slack.
func sameReply(a, b resp.Reply, time bool, slack int64) bool {
	if a.Kind != b.Kind || len(a.Elems) != len(b.Elems) {
		return false
	}
	if a.Kind == resp.Int && time {
		d := a.Int - b.Int
		return -slack <= d && d <= slack
	}
	for i := range a.Elems {
		if !sameReply(a.Elems[i], b.Elems[i], time, slack) {
			return false
		}
	}
	return a.Kind == resp.Array || a.String() == b.String()
}

// keyDump is one key: name, type, value text, TTL (-1 none) and zset
// scores (times, compared within slack).
type keyDump struct {
	name, kind, value string
	pttl              int64
	scores            []float64
}

func (k keyDump) String() string {
	return fmt.Sprintf("%s %s %s pttl=%d scores=%v", k.name, k.kind, k.value, k.pttl, k.scores)
}

func dumpKeys(t *testing.T, keys resp.Reply, do func(...string) resp.Reply) []keyDump {
	t.Helper()
	var names []string
	for _, e := range keys.Elems {
		names = append(names, e.Str)
	}
	sort.Strings(names)
	var out []keyDump
	for _, n := range names {
		k := keyDump{name: n, kind: do("TYPE", n).Str, pttl: do("PTTL", n).Int}
		switch k.kind {
		case "string":
			k.value = do("GET", n).String()
		case "hash":
			var pairs []string
			r := do("HGETALL", n)
			for i := 0; i+1 < len(r.Elems); i += 2 {
				pairs = append(pairs, r.Elems[i].Str+"="+r.Elems[i+1].Str)
			}
			sort.Strings(pairs)
			k.value = strings.Join(pairs, ",")
		case "list":
			k.value = do("LRANGE", n, "0", "-1").String()
		case "zset":
			r := do("ZRANGE", n, "0", "-1", "WITHSCORES")
			var members []string
			for i := 0; i+1 < len(r.Elems); i += 2 {
				members = append(members, r.Elems[i].Str)
				var f float64
				fmt.Sscan(r.Elems[i+1].Str, &f)
				k.scores = append(k.scores, f)
			}
			k.value = strings.Join(members, ",")
		default:
			k.value = "?"
		}
		out = append(out, k)
	}
	return out
}

func sameKey(a, b keyDump, slack int64) bool {
	if a.name != b.name || a.kind != b.kind || a.value != b.value || len(a.scores) != len(b.scores) {
		return false
	}
	if (a.pttl < 0 || b.pttl < 0) && a.pttl != b.pttl {
		return false
	}
	if d := a.pttl - b.pttl; d < -slack || d > slack {
		return false
	}
	for i := range a.scores {
		if d := a.scores[i] - b.scores[i]; d < -float64(slack) || d > float64(slack) {
			return false
		}
	}
	return true
}
