package sim

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"locksim/network"
	"locksim/sim/resp"
	"locksim/sim/script/redistest"
)

// The data-file differential: testdata/redis/RELEASE.txt holds cases of
// commands and the replies the release gives, run against the simulated
// node modelling that release and, for the release a redis-server here
// runs (Debian's 7.0.15), against that server too. The newer releases'
// files hold their documented replies, each with its citation.
//
// Format, one item a line ('#' starts a comment line):
//
//	case NAME             a fresh node (FLUSHALL on the real server)
//	> WORD "quoted word"  a command (Go-quoted words may hold spaces)
//	< REPLY               the reply of both, as resp.Reply.String renders it
//	<ttl N                an integer in (0, N] from both (real time passes)
//	<prefix TEXT          a reply both render starting with TEXT (HELLO's
//	                      map, whose client id differs)
//	<sim REPLY            a listed difference: what the simulation replies,
//	<real REPLY           and what the real server replies (docs/limits.md)
//
// An expected reply's trailing space counts (Redis's unknown-command
// error ends with one).

type dataCase struct {
	name string
	line int
	ops  []dataOp
}

type dataOp struct {
	line      int
	args      []string
	want      string // both, or the simulation's for a listed difference
	real      string // a listed difference: the real server's
	ttl       int64  // <ttl N
	prefix    bool   // <prefix: want is the rendering's start
	different bool
}

// splitWords splits a command line into words: bare words, or Go-quoted
// strings.
func splitWords(s string) ([]string, error) {
	var out []string
	for s = strings.TrimLeft(s, " "); s != ""; s = strings.TrimLeft(s, " ") {
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, err
			}
			w, _ := strconv.Unquote(q)
			out = append(out, w)
			s = s[len(q):]
			continue
		}
		end := strings.IndexByte(s, ' ')
		if end < 0 {
			end = len(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out, nil
}

// readDataCases reads a data file; server is its "server" line.
func readDataCases(t *testing.T, path string) (server string, cases []dataCase) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		var last *dataOp
		if len(cases) > 0 && len(cases[len(cases)-1].ops) > 0 {
			c := &cases[len(cases)-1]
			last = &c.ops[len(c.ops)-1]
		}
		bad := func(why string) { t.Fatalf("%s:%d: %s: %q", path, ln, why, line) }
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "server "):
			server = strings.TrimPrefix(line, "server ")
		case strings.HasPrefix(line, "case "):
			cases = append(cases, dataCase{name: strings.TrimPrefix(line, "case "), line: ln})
		case strings.HasPrefix(line, "> "):
			if len(cases) == 0 {
				bad("a command before the first case")
			}
			args, err := splitWords(line[2:])
			if err != nil || len(args) == 0 {
				bad("unreadable command")
			}
			c := &cases[len(cases)-1]
			c.ops = append(c.ops, dataOp{line: ln, args: args})
		case last == nil:
			bad("a reply before its command")
		case strings.HasPrefix(line, "< "):
			last.want = line[2:]
		case strings.HasPrefix(line, "<ttl "):
			n, err := strconv.ParseInt(line[5:], 10, 64)
			if err != nil {
				bad("unreadable ttl")
			}
			last.ttl = n
		case strings.HasPrefix(line, "<prefix "):
			last.want, last.prefix = line[8:], true
		case strings.HasPrefix(line, "<sim "):
			last.want, last.different = line[5:], true
		case strings.HasPrefix(line, "<real "):
			last.real, last.different = line[6:], true
		default:
			bad("unknown line")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		for _, op := range c.ops {
			if op.want == "" && op.ttl == 0 || op.different && (op.want == "" || op.real == "") {
				t.Fatalf("%s:%d: command without its reply (a listed difference needs <sim and <real)", path, op.line)
			}
		}
	}
	return server, cases
}

// simReplies runs a case's commands on one simulated node modelling
// server, one client, 1ms links.
func simReplies(t *testing.T, server string, ops []dataOp) []resp.Reply {
	t.Helper()
	out := make([]resp.Reply, len(ops))
	cfg := Config{
		RESP3:   true,
		Server:  server,
		Nodes:   []NodeConfig{{Name: "r1"}},
		Groups:  []GroupConfig{{Name: "m1", Primary: "r1"}},
		Network: network.Config{Default: network.Latency{Min: ms, Max: ms}},
		Clients: []ClientConfig{{Name: "A", Main: func(c *Ctx) error {
			for i, op := range ops {
				r, err := c.Call("m1", 5*time.Second, op.args...)
				if err != nil {
					r = resp.ErrorReply("locksim call error: " + err.Error())
				}
				out[i] = r
			}
			return nil
		}}},
	}
	if _, err := Run(cfg, 1); err != nil {
		t.Fatalf("sim run: %v", err)
	}
	return out
}

func inTTL(r resp.Reply, limit int64) bool { return r.Kind == resp.Int && r.Int > 0 && r.Int <= limit }

// checkReply compares one reply with the data file's: who is "simulator"
// or "real Redis".
func checkReply(t *testing.T, where, who string, got resp.Reply, op dataOp, want string) {
	t.Helper()
	switch {
	case op.ttl > 0:
		if !inTTL(got, op.ttl) {
			t.Errorf("%s: %s gave %s, want an integer in (0, %d]", where, who, got, op.ttl)
		}
	case op.prefix:
		if !strings.HasPrefix(got.String(), want) {
			t.Errorf("%s: %s gave\n  %q\nwant a reply starting\n  %q", where, who, got.String(), want)
		}
	case got.String() != want:
		t.Errorf("%s: %s gave\n  %q\nwant\n  %q", where, who, got.String(), want)
	}
}

// TestRedisDataFiles runs every data file against the simulation, and the
// file of the release the installed redis-server runs against it too
// (required with LOCKSIM_REQUIRE_REDIS=1, as CI sets).
func TestRedisDataFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "redis", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no data files: %v", err)
	}
	var real *redistest.Server
	realRelease := ""
	if redistest.Available() {
		real = redistest.Start(t, nil)
		realRelease = redistest.Release(t, real.Client)
	} else {
		redistest.NoteMissing(t) // fails under LOCKSIM_REQUIRE_REDIS
	}
	for _, path := range files {
		server, cases := readDataCases(t, path)
		v, err := ParseVersion(server)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if want := v.String() + ".txt"; filepath.Base(path) != want {
			t.Fatalf("%s: server %s belongs in %s", path, server, want)
		}
		againstReal := real != nil && realRelease == v.String()
		for _, c := range cases {
			t.Run(v.String()+"/"+c.name, func(t *testing.T) {
				sim := simReplies(t, server, c.ops)
				var reals []resp.Reply
				if againstReal {
					real.Client.Do(t, "FLUSHALL")
					for _, op := range c.ops {
						reals = append(reals, real.Client.Do(t, op.args...))
					}
				}
				for i, op := range c.ops {
					where := fmt.Sprintf("%s:%d %q", filepath.Base(path), op.line, op.args)
					checkReply(t, where, "the simulator", sim[i], op, op.want)
					if reals == nil {
						continue
					}
					want := op.want
					if op.different {
						want = op.real
					}
					checkReply(t, where, "real "+realRelease, reals[i], op, want)
				}
			})
		}
	}
	if real != nil && realRelease != Redis70.String() {
		redistest.Mismatch(t, realRelease, Redis70.String())
	}
}

// TestFeatureTableCoversMiniredis: every command miniredis (and the node)
// implements that the real redis-server here lacks has a first release in
// the feature table, so that the default release refuses it as Redis 7.0
// does; and every command the table gives a release the default lacks.
func TestFeatureTableCoversMiniredis(t *testing.T) {
	if !redistest.Available() {
		redistest.Missing(t)
	}
	real := redistest.Start(t, nil)
	if rel := redistest.Release(t, real.Client); rel != Redis70.String() {
		redistest.Mismatch(t, rel, Redis70.String())
		return
	}
	has := map[string]bool{}
	for _, c := range real.Client.Do(t, "COMMAND", "LIST").Elems {
		has[strings.ToUpper(c.Str)] = true
	}
	if len(has) < 200 {
		t.Fatalf("COMMAND LIST gave %d commands", len(has))
	}
	for _, c := range append(slices.Clone(allMiniredisCommands), "DIGEST", "DELIFEQ") {
		if _, listed := features[c]; !has[c] && !listed {
			t.Errorf("%s: miniredis or the node has it, redis-server 7.0 does not, and the feature table gives it no release", c)
		}
	}
	for name := range features {
		if !strings.Contains(name, " ") && has[name] {
			t.Errorf("%s: the feature table gives it a release after 7.0, but redis-server 7.0 has it", name)
		}
		if Redis70.Has(name) {
			t.Errorf("%s: listed, yet redis-7.0 has it", name)
		}
	}
}
