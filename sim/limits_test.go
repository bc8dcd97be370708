package sim

import (
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"locksim/network"
	"locksim/sim/resp"
)

// step is one command of a scripted client and what its reply must be: an
// exact rendering (want) or, for errors, a substring (wantErr).
type step struct {
	target  string // a group ("m1") or a node ("r2"); "" is "m1"
	args    []string
	want    string
	wantErr string
	sleep   time.Duration // before the command
}

// runSteps runs the steps as one client against cfg's nodes and checks
// every reply.
func runSteps(t *testing.T, cfg Config, steps []step) {
	t.Helper()
	var got []resp.Reply
	var errs []error
	cfg.Clients = []ClientConfig{{Name: "A", Main: func(c *Ctx) error {
		for _, s := range steps {
			if s.sleep > 0 {
				c.Sleep(s.sleep)
			}
			target := s.target
			if target == "" {
				target = "m1"
			}
			r, err := c.Call(target, time.Second, s.args...)
			got = append(got, r)
			errs = append(errs, err)
		}
		return nil
	}}}
	if cfg.Network.Default.Max == 0 {
		cfg.Network = network.Config{Default: network.Latency{Min: ms, Max: ms}}
	}
	if _, err := Run(cfg, 1); err != nil {
		t.Fatalf("run: %v", err)
	}
	for i, s := range steps {
		if i >= len(got) {
			t.Fatalf("step %d %s: no reply", i, quoteArgs(short(s.args)))
		}
		r, where := got[i], quoteArgs(short(s.args))
		switch {
		case errs[i] != nil:
			t.Errorf("step %d %s: %v", i, where, errs[i])
		case s.wantErr != "":
			if r.Kind != resp.Error || !strings.Contains(r.Str, s.wantErr) {
				t.Errorf("step %d %s: got %.200s, want an error with %q", i, where, r, s.wantErr)
			}
		case r.String() != s.want:
			t.Errorf("step %d %s: got %.200s, want %s", i, where, r, s.want)
		}
	}
}

// short abbreviates long arguments for messages.
func short(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 40 {
			a = a[:20] + "...(" + strconv.Itoa(len(a)) + " bytes)"
		}
		out[i] = a
	}
	return out
}

func cmdArgs(args ...string) []string { return args }

func TestNodeValueLimit(t *testing.T) {
	big := strings.Repeat("x", MaxValueBytes+1)
	max := big[:MaxValueBytes]
	tooLarge := errValueTooLarge(MaxValueBytes + 1)
	runSteps(t, oneNode(), []step{
		{args: cmdArgs("SET", "k", big), wantErr: tooLarge},
		{args: cmdArgs("GET", "k"), want: "(nil)"},
		{args: cmdArgs("SET", "k", max), want: "OK"},
		{args: cmdArgs("APPEND", "k", "x"), wantErr: tooLarge},
		{args: cmdArgs("STRLEN", "k"), want: "(integer) " + strconv.Itoa(MaxValueBytes)},
		{args: cmdArgs("SETRANGE", "k2", "536870000", "x"), wantErr: errValueTooLarge(536870001)},
		{args: cmdArgs("SETRANGE", "k2", strconv.Itoa(MaxValueBytes-1), "x"), want: "(integer) " + strconv.Itoa(MaxValueBytes)},
		{args: cmdArgs("SETBIT", "k3", "4294967295", "1"), wantErr: "max-value-bytes"},
		{args: cmdArgs("SETEX", "k4", "10", big), wantErr: tooLarge},
		{args: cmdArgs("MSET", "a", "1", "b", big), wantErr: tooLarge},
		{args: cmdArgs("HSET", "h", "f", big), wantErr: tooLarge},
		{args: cmdArgs("HSET", "h", big, "v"), wantErr: tooLarge},
		{args: cmdArgs("RPUSH", "l", "a", big), wantErr: tooLarge},
		{args: cmdArgs("SADD", "s", big), wantErr: tooLarge},
		{args: cmdArgs("ZADD", "z", "1", big), wantErr: tooLarge},
		{args: cmdArgs("EXISTS", "a", "h", "l", "s", "z", "k4"), want: "(integer) 0"},
		{args: cmdArgs("EVAL", "return redis.call('SET', KEYS[1], string.rep('x', tonumber(ARGV[1])))", "1", "k5", strconv.Itoa(MaxValueBytes+1)), wantErr: tooLarge},
		{args: cmdArgs("EVAL", "return redis.pcall('APPEND', KEYS[1], 'y')", "1", "k"), wantErr: tooLarge},
		{args: cmdArgs("MULTI"), want: "OK"},
		{args: cmdArgs("SET", "k6", big), wantErr: tooLarge},
		{args: cmdArgs("SET", "k7", "v"), want: "QUEUED"},
		{args: cmdArgs("EXEC"), wantErr: "EXECABORT"},
		{args: cmdArgs("EXISTS", "k7"), want: "(integer) 0"},
	})
}

func TestNodeKeyspaceBudget(t *testing.T) {
	half := strings.Repeat("v", MaxValueBytes/2)
	n := MaxKeyspaceBytes / (MaxValueBytes / 2) // values that fit, about
	var steps []step
	for i := 0; i < n-1; i++ {
		steps = append(steps, step{args: cmdArgs("SET", "k"+strconv.Itoa(i), half), want: "OK"})
	}
	steps = append(steps,
		step{args: cmdArgs("SET", "more", half), wantErr: "max-keyspace-bytes"},
		step{args: cmdArgs("SET", "k0", half), want: "OK"}, // an overwrite frees what it replaces
		step{args: cmdArgs("RPUSH", "list", half, half), wantErr: "max-keyspace-bytes"},
		step{args: cmdArgs("DEL", "k0", "k1", "k2"), want: "(integer) 3"},
		step{args: cmdArgs("SET", "more", half), want: "OK"}, // a DEL frees at once
		step{args: cmdArgs("SET", "exp", half, "PX", "10"), want: "OK"},
		step{args: cmdArgs("SET", "exp2", half, "PX", "10"), want: "OK"},
		step{args: cmdArgs("SET", "after", half), wantErr: "max-keyspace-bytes"},
		step{args: cmdArgs("SET", "after", half), want: "OK", sleep: 20 * ms}, // expired keys, measured
		// A script that creates and deletes a value in a loop frees as it goes.
		step{args: cmdArgs("EVAL", "for i = 1, 100 do redis.call('SET', 'tmp', ARGV[1]) redis.call('DEL', 'tmp') end return 1", "0", half), want: "(integer) 1"},
		step{args: cmdArgs("EVAL", "for i = 1, 100 do redis.call('RPUSH', 'q', ARGV[1]) end return 1", "0", half), wantErr: "max-keyspace-bytes"},
		step{args: cmdArgs("FLUSHALL"), want: "OK", sleep: ms},
		step{args: cmdArgs("SET", "k", half), want: "OK", sleep: ms},
	)
	runSteps(t, oneNode(), steps)
}

// allocated is the process's cumulative heap allocation in bytes.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestNodeBombsBounded sends the commands to a node: a SET of a
// 500 MB value (4.3 GB before the limits) and a SETRANGE at a 512 MB
// offset (5.1 GB). Each must be refused with an error naming the limit,
// and the run must allocate little beyond the test's own 500 MB argument.
func TestNodeBombsBounded(t *testing.T) {
	big := strings.Repeat("x", 500<<20)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"SET of a 500 MB value", cmdArgs("SET", "k", big)},
		{"SETRANGE at a 512 MB offset", cmdArgs("SETRANGE", "k", "536870912", "x")},
		{"APPEND of 500 MB", cmdArgs("APPEND", "k", big)},
		{"SETBIT at 2^32-1", cmdArgs("SETBIT", "k", "4294967295", "1")},
		{"Lua SET of string.rep", cmdArgs("EVAL", "return redis.call('SET', 'k', string.rep('x', 2^29))", "0")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := allocated()
			runSteps(t, oneNode(), []step{{args: tc.args, wantErr: "(limits: max-"}, {args: cmdArgs("DBSIZE"), want: "(integer) 0"}})
			grew := allocated() - before
			t.Logf("allocated %d MB", grew>>20)
			if grew > 64<<20 {
				t.Errorf("the run allocated %d MB, want at most 64", grew>>20)
			}
		})
	}
}
