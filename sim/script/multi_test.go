package script

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMultiDifferential checks the Conn's own MULTI/EXEC (needed to queue
// scripts) against miniredis's: two connections per node, the same steps
// on both nodes, identical replies.
func TestMultiDifferential(t *testing.T) {
	get := "return redis.call('GET', KEYS[1])"
	type step struct {
		conn int // 0 or 1
		args []string
	}
	s0 := func(args ...string) step { return step{0, args} }
	s1 := func(args ...string) step { return step{1, args} }
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"scripts run in queue order", []step{
			s0("MULTI"), s0("SET", "k", "1"), s0("EVAL", get, "1", "k"), s0("DEL", "k"),
			s0("EVAL", get, "1", "k"), s0("EVAL", "return redis.call('INCR', KEYS[1])", "1", "k"),
			s0("EXEC"), s0("GET", "k"),
		}},
		{"only scripts", []step{s0("MULTI"), s0("EVAL", "return 1", "0"), s0("EVAL", "return {2}", "0"), s0("EXEC")}},
		{"empty", []step{s0("MULTI"), s0("EXEC")}},
		{"lock scripts", []step{
			s0("MULTI"), s0("EVAL", scriptFencedAcquire, "2", "lock", "fence", "tok", "30000"),
			s0("GET", "lock"), s0("EVAL", scriptRelease, "1", "lock", "tok"), s0("EXEC"),
		}},
		{"queue-time arity error aborts", []step{
			s0("MULTI"), s0("EVAL", "return 1"), s0("SET", "k", "v"), s0("EXEC"), s0("GET", "k"),
		}},
		{"plain arity error aborts", []step{
			s0("MULTI"), s0("EVAL", "return 1", "0"), s0("GET"), s0("EXEC"),
		}},
		{"script subcommand error aborts", []step{
			s0("MULTI"), s0("SCRIPT", "LOAD"), s0("EXEC"),
		}},
		{"unknown command does not abort", []step{
			s0("MULTI"), s0("NOSUCH"), s0("EVAL", "return 1", "0"), s0("EXEC"),
		}},
		{"exec-time errors are elements", []step{
			s0("MULTI"), s0("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"),
			s0("EVAL", "error('x')", "0"), s0("EVAL", "return 1", "x"), s0("SET", "a", "b"),
			s0("INCR", "a"), s0("EXEC"),
		}},
		{"script load then evalsha", []step{
			s0("MULTI"), s0("SCRIPT", "LOAD", "return 'hi'"), s0("EVALSHA", sha1Hex("return 'hi'"), "0"),
			s0("SCRIPT", "EXISTS", sha1Hex("return 'hi'")), s0("EXEC"),
		}},
		{"select inside multi moves scripts", []step{
			s0("MULTI"), s0("SELECT", "3"), s0("EVAL", "return redis.call('SET', 'x', 'y')", "0"), s0("EXEC"),
			s0("GET", "x"), s0("SELECT", "0"), s0("GET", "x"),
			s0("EVAL", "return redis.call('GET', 'x')", "0"),
		}},
		{"watch aborts", []step{
			s0("SET", "k", "1"), s0("WATCH", "k"), s1("SET", "k", "2"),
			s0("MULTI"), s0("EVAL", "return redis.call('SET', KEYS[1], 'mine')", "1", "k"), s0("EXEC"),
			s0("GET", "k"),
		}},
		{"watch aborts on a script write", []step{
			s0("SET", "k", "1"), s0("WATCH", "k"), s1("EVAL", "return redis.call('INCR', KEYS[1])", "1", "k"),
			s0("MULTI"), s0("SET", "k", "x"), s0("EXEC"), s0("GET", "k"),
		}},
		{"watch passes", []step{
			s0("SET", "k", "1"), s0("WATCH", "k"),
			s0("MULTI"), s0("EVAL", "return redis.call('SET', KEYS[1], 'mine')", "1", "k"), s0("EXEC"),
			s1("SET", "k", "2"), s0("MULTI"), s0("GET", "k"), s0("EXEC"),
		}},
		{"unwatch inside multi", []step{
			s0("WATCH", "k"), s0("MULTI"), s0("UNWATCH"), s1("SET", "k", "2"),
			s0("EVAL", "return 1", "0"), s0("EXEC"),
		}},
		{"discard", []step{
			s0("WATCH", "k"), s0("MULTI"), s0("EVAL", "return redis.call('SET', 'k', 'v')", "0"), s0("DISCARD"),
			s0("GET", "k"), s1("SET", "k", "2"), s0("MULTI"), s0("SET", "z", "1"), s0("EXEC"),
		}},
		{"nesting and misuse", []step{
			s0("EXEC"), s0("DISCARD"), s0("MULTI", "x"), s0("MULTI"), s0("MULTI"), s0("WATCH", "k"),
			s0("EXEC", "x"), s0("EXEC"),
		}},
		{"discard with argument", []step{s0("MULTI"), s0("DISCARD", "x"), s0("EXEC")}},
		{"commands miniredis runs at once", []step{
			s0("MULTI"), s0("WAIT", "0", "0"), s0("EVAL", "return 1", "0"), s0("EXEC"),
		}},
		{"blocking pop is fine inside multi", []step{
			s0("RPUSH", "l", "a"), s0("MULTI"), s0("BLPOP", "l", "0"), s0("BLPOP", "l", "1"),
			s0("EVAL", "return redis.call('LLEN', 'l')", "0"), s0("EXEC"),
		}},
		{"two connections interleave", []step{
			s0("MULTI"), s1("MULTI"), s0("SET", "a", "0"), s1("SET", "a", "1"),
			s0("EVAL", "return redis.call('GET', 'a')", "0"), s1("GET", "a"), s1("EXEC"), s0("EXEC"),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, fe := newNode(t, Options{})
			_, se := newNode(t, Options{Slow: true})
			fast := []*Conn{fe.NewConn(), fe.NewConn()}
			slow := []*Conn{se.NewConn(), se.NewConn()}
			for _, st := range tc.steps {
				f := fast[st.conn].Do(st.args...)
				s := slow[st.conn].Do(st.args...)
				if diff := cmp.Diff(s, f); diff != "" {
					t.Errorf("conn %d %q: fast and miniredis differ (-miniredis +fast):\n%s", st.conn, st.args, diff)
				}
			}
		})
	}
}
