package script

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"locksim/sim/resp"
	"locksim/sim/script/redistest"
)

// startRedis starts redis-server on a free loopback port, or skips the test
// when it is not installed. The server is killed when the test ends.
func startRedis(t *testing.T) *redistest.Client {
	t.Helper()
	rc := redistest.Start(t, killWithParent).Client
	if r := rc.Do(t, "FLUSHALL"); r.String() != "OK" {
		t.Fatalf("FLUSHALL: %s", r)
	}
	return rc
}

// How the real server's reply is compared with the fast path's.
type compareMode int

const (
	// exact: identical replies.
	exact compareMode = iota
	// pttl: both are integers in (0, limit] (real time passes on the real
	// server; the simulated clock stands still).
	pttl
	// scriptErr: both are errors whose messages agree once each server's
	// wrapper is removed (see errCore). Allowed because miniredis's own EVAL
	// wraps errors the same way as the fast path (checked: fast == slow),
	// unless miniredisLacks is set.
	scriptErr
	// miniredisDiffers: the fast path follows miniredis where miniredis and
	// Redis disagree (fast == slow is checked, real is only logged).
	miniredisDiffers
)

var (
	realErrRe = regexp.MustCompile(`^(?:ERR )?(?:user_script:\d+: )?(.*?)(?: script: [0-9a-f]{40}, on @user_script:\d+\.)?$`)
	fastErrRe = regexp.MustCompile(`^ERR Error compiling script \(new function\): :\d+: (.*?)(?: script: [0-9a-f]{40}, &c\.?)? stack traceback: .*$`)
)

// errCore strips the script-error wrappers:
//
//	Redis 7:   "ERR user_script:1: <msg> script: <sha>, on @user_script:1."
//	miniredis: "ERR Error compiling script (new function): :1: <msg>[ script: <sha>, &c] stack traceback: ..."
func errCore(r resp.Reply, re *regexp.Regexp) string {
	if m := re.FindStringSubmatch(r.Str); m != nil && r.Kind == resp.Error {
		return m[1]
	}
	return r.String()
}

// TestAgainstRealRedis runs the lock designs' command sequences on a real
// redis-server and on the fast path. Normalised, and why:
//   - PTTL replies (mode pttl): real time passes on the real server.
//   - Script error wrappers (mode scriptErr): Redis 7 and miniredis wrap
//     errors raised inside scripts differently; the fast path uses
//     miniredis's wrapper, so miniredis's own EVAL differs from Redis the
//     same way (checked).
//
// Differences listed (mode miniredisDiffers; the fast path keeps
// miniredis's behaviour, checked against miniredis's own EVAL):
//   - SET with a bad PX: Redis "ERR invalid expire time in 'set' command",
//     miniredis "ERR invalid expire time in set" (a plain command, not a
//     script: both paths dispatch it to miniredis);
//   - compile errors: Redis "user_script:1: unexpected symbol near '<eof>'",
//     miniredis "<string> at EOF:   syntax error";
//   - creating a global: Redis "Attempt to modify a readonly table",
//     miniredis "Script attempted to create global variable 'x'".
//
// Rules miniredis lacks and the fast path adds as Redis 7 has them (mode
// scriptErr with miniredisLacks): writing to a library table, WAIT and
// blocking commands inside scripts, and the absent getfenv.
func TestAgainstRealRedis(t *testing.T) {
	real := startRedis(t)
	_, fe := newNode(t, Options{})
	_, se := newNode(t, Options{Slow: true})
	fast, slow := fe.NewConn(), se.NewConn()

	shaRelease := sha1Hex(scriptRelease)
	for i, st := range []struct {
		args           []string
		mode           compareMode
		limit          int64 // pttl: upper bound in ms
		miniredisLacks bool  // scriptErr: miniredis's own EVAL does not refuse this
		skipSlow       bool  // miniredis's own EVAL would hang or panic
	}{
		{args: cmd("SET", "lock", "tok", "NX", "PX", "30000")},
		{args: cmd("SET", "lock", "tok2", "NX", "PX", "30000")},
		{args: cmd("GET", "lock")},
		{args: cmd("PTTL", "lock"), mode: pttl, limit: 30000},
		{args: cmd("PEXPIRE", "lock", "60000")},
		{args: cmd("PTTL", "lock"), mode: pttl, limit: 60000},
		{args: cmd("PTTL", "nolock")},
		{args: eval(scriptRelease, "1", "lock", "wrong")},
		{args: eval(scriptRenew, "1", "lock", "tok", "45000")},
		{args: cmd("PTTL", "lock"), mode: pttl, limit: 45000},
		{args: eval(scriptRenew, "1", "lock", "nope", "45000")},
		{args: eval(scriptRelease, "1", "lock", "tok")},
		{args: cmd("GET", "lock")},
		{args: cmd("DEL", "lock")},
		{args: eval(scriptFencedAcquire, "2", "lock", "fence", "tok", "30000")},
		{args: eval(scriptFencedAcquire, "2", "lock", "fence", "tok2", "30000")},
		{args: cmd("INCR", "fence")},
		{args: cmd("GET", "fence")},
		{args: eval(scriptReentrantAcquire, "1", "rlock", "30000", "o1")},
		{args: eval(scriptReentrantAcquire, "1", "rlock", "30000", "o1")},
		{args: cmd("HINCRBY", "rlock", "o1", "0")},
		{args: eval(scriptReentrantAcquire, "1", "rlock", "30000", "o2"), mode: pttl, limit: 30000},
		{args: eval(scriptReentrantRelease, "2", "rlock", "ch", "unlocked", "30000", "o2")},
		{args: eval(scriptReentrantRelease, "2", "rlock", "ch", "unlocked", "30000", "o1")},
		{args: cmd("PTTL", "rlock"), mode: pttl, limit: 30000},
		{args: eval(scriptReentrantRelease, "2", "rlock", "ch", "unlocked", "30000", "o1")},
		{args: cmd("EXISTS", "rlock")},
		{args: cmd("SCRIPT", "LOAD", scriptRelease)},
		{args: cmd("SCRIPT", "EXISTS", shaRelease, "0000000000000000000000000000000000000000")},
		{args: cmd("EVALSHA", shaRelease, "1", "lock", "tok")},
		{args: cmd("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0")},
		{args: cmd("SCRIPT", "FLUSH")},
		{args: cmd("EVALSHA", shaRelease, "1", "lock", "tok")},

		// Errors outside scripts and argument errors.
		{args: cmd("HSET", "h", "f", "v")},
		{args: cmd("GET", "h")},
		{args: cmd("SET", "s", "x")},
		{args: cmd("INCR", "s")},
		{args: cmd("HINCRBY", "s", "f", "1")},
		{args: cmd("SET", "k", "v", "PX", "-1"), mode: miniredisDiffers},
		{args: cmd("EVAL", "return 1")},
		{args: eval("return 1", "2", "a")},
		{args: eval("return 1", "-1")},
		{args: eval("return 1", "x")},

		// Replies from scripts.
		{args: eval("return {1, 2, 3.5, nil, 4}", "0")},
		{args: eval("return 3.99", "0")},
		{args: eval("return {ok='FINE'}", "0")},
		{args: eval("return {err='MY bad'}", "0")},
		{args: eval("return redis.error_reply('MY err')", "0")},
		{args: eval("return redis.status_reply('DONE')", "0")},
		{args: eval("return {true, false, 'x', {1, {2}}}", "0")},
		{args: eval("return redis.pcall('GET', KEYS[1])", "1", "h")},
		{args: eval("return redis.call('GET', KEYS[1]) == false", "1", "missing")},
		{args: eval("return redis.sha1hex('abc')", "0")},

		// Errors inside scripts.
		{args: eval("return redis.call('GET', KEYS[1])", "1", "h"), mode: scriptErr},
		{args: eval("error('boom')", "0"), mode: scriptErr},
		{args: eval("return redis.call('NOSUCH')", "0"), mode: scriptErr},
		{args: eval("return redis.call('MULTI')", "0"), mode: scriptErr},
		{args: eval("return redis.call('EVAL', 'return 1', '0')", "0"), mode: scriptErr},
		{args: eval("return y", "0"), mode: scriptErr},
		{args: eval("redis.call = nil", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return redis.call('WAIT', '0', '0')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return redis.call('BLPOP', 'l', '0')", "0"), mode: scriptErr, miniredisLacks: true, skipSlow: true},
		{args: eval("return redis.call('QUIT')", "0"), mode: scriptErr, miniredisLacks: true},
		// miniredis's EVAL panics on a returned function (with its lock held).
		{args: eval("return getfenv", "0"), mode: scriptErr, miniredisLacks: true, skipSlow: true},
		// cjson: lua-cjson's errors and depth limits (miniredis returns nil
		// and a Go message, and recurses without a bound).
		{args: eval("return cjson.decode('[1,2,\"x\"]')", "0")},
		{args: eval("return cjson.decode('{')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode('[1,2')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode('x')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode('\"abc')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode('{\"a\" 1}')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode('tru')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode('-')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode('')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode('[1] x')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode('[1,]')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode('{\"a\":1,}')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode('\"\\\\q\"')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode('\"\\\\ud800\"')", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return cjson.decode(('['):rep(1001))", "0"), mode: scriptErr, miniredisLacks: true},
		{args: eval("return #cjson.decode(('['):rep(1000) .. (']'):rep(1000))", "0")},
		{args: eval("local t = {} local c = t for i = 1, 1000 do c[1] = {} c = c[1] end return cjson.encode(t)", "0"), mode: scriptErr, miniredisLacks: true, skipSlow: true},
		{args: eval("local t = {} local c = t for i = 1, 999 do c[1] = {} c = c[1] end return #cjson.encode(t)", "0")},
		{args: eval("return 'x' ..", "0"), mode: miniredisDiffers},
		{args: eval("x = 1", "0"), mode: miniredisDiffers},
	} {
		r := real.Do(t, st.args...)
		f := fast.Do(st.args...)
		var s resp.Reply
		if !st.skipSlow {
			s = slow.Do(st.args...)
		}
		where := fmt.Sprintf("step %d %q", i, st.args)
		switch st.mode {
		case exact:
			if diff := cmp.Diff(r, f); diff != "" {
				t.Errorf("%s: real Redis and fast path differ (-redis +fast):\n%s", where, diff)
			}
		case pttl:
			for _, x := range []resp.Reply{r, f} {
				if x.Kind != resp.Int || x.Int <= 0 || x.Int > st.limit {
					t.Errorf("%s: want a TTL in (0, %d], got %s (real %s, fast %s)", where, st.limit, x, r, f)
				}
			}
		case scriptErr:
			if r.Kind != resp.Error || f.Kind != resp.Error {
				t.Errorf("%s: want errors, got real %s, fast %s", where, r, f)
			} else if rc, fc := errCore(r, realErrRe), errCore(f, fastErrRe); rc != fc {
				t.Errorf("%s: error messages differ:\n  real %q (%s)\n  fast %q (%s)", where, rc, r.Str, fc, f.Str)
			}
			if !st.miniredisLacks {
				if diff := cmp.Diff(s, f); diff != "" {
					t.Errorf("%s: miniredis's EVAL and fast path differ (-miniredis +fast):\n%s", where, diff)
				}
			}
		case miniredisDiffers:
			if diff := cmp.Diff(s, f); diff != "" {
				t.Errorf("%s: miniredis's EVAL and fast path differ (-miniredis +fast):\n%s", where, diff)
			}
			t.Logf("%s: known difference: Redis %s; miniredis and fast path %s", where, r, f)
		}
	}
}
