package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/sim"
	"locksim/sim/resp"
)

// replay --against-redis: the commands a saved case's nodes executed,
// replayed against real redis-server processes on loopback, one per
// node, at the true times the simulation ran them (real time, best
// effort), each reply compared with the simulation's. What can be
// replayed, and what stops the comparison, is in docs/limits.md.
//
// Wall-clock use here is the point: it drives real servers, outside any
// simulation.

// realCompare is how one reply is compared: exactly, or with the
// tolerance the real clock needs.
const (
	pttlSlack = 100 // ms: a PTTL read after real time passed
	ttlSlack  = 1   // s: TTL rounds
)

// scriptErrCore strips the script-error wrappers that differ between
// Redis 7 and the simulation (docs/limits.md: error texts are miniredis's).
var (
	realScriptErr = regexp.MustCompile(`^\(error\) (?:ERR )?(?:user_script:\d+: )?(.*?)(?: script: [0-9a-f]{40}, on @user_script:\d+\.)?$`)
	simScriptErr  = regexp.MustCompile(`^\(error\) ERR Error compiling script \(new function\): :\d+: (.*?)(?: script: [0-9a-f]{40}, &c\.?)? stack traceback: .*$`)
)

// replyAgrees compares the simulation's rendered reply with the real one
// for command args; how says what it took ("" exactly).
func replyAgrees(args []string, simReply, realReply string) (ok bool, how string) {
	if simReply == realReply {
		return true, ""
	}
	cmd := strings.ToUpper(args[0])
	if slack := map[string]int64{"PTTL": pttlSlack, "TTL": ttlSlack}[cmd]; slack > 0 {
		a, errA := strconv.ParseInt(strings.TrimPrefix(simReply, "(integer) "), 10, 64)
		b, errB := strconv.ParseInt(strings.TrimPrefix(realReply, "(integer) "), 10, 64)
		if errA == nil && errB == nil && a > 0 && b > 0 && max(a-b, b-a) <= slack {
			return true, "a TTL within the real clock's slack"
		}
	}
	if m := simScriptErr.FindStringSubmatch(simReply); m != nil && strings.HasPrefix(cmd, "EVAL") {
		if r := realScriptErr.FindStringSubmatch(realReply); r != nil && r[1] == m[1] {
			return true, "a script error, up to the documented wrapper"
		}
	}
	return false, ""
}

// replayStep is one thing to do against the real servers.
type replayStep struct {
	e     sim.Event
	flush bool // the node restarted empty: FLUSHALL and SCRIPT FLUSH
	evict bool // the node evicted e.Key: DEL it
}

// planReplay turns a history into steps, stopping at the first event the
// real servers cannot follow; stop says which and why ("" when none).
func planReplay(h sim.History) (steps []replayStep, nodes []string, stop string) {
	isNode := map[string]bool{}
	for _, e := range h {
		if e.Kind == sim.KindExec || e.Kind == sim.KindNodeCrash || e.Kind == sim.KindKey {
			isNode[e.Actor] = true
		}
	}
	for _, e := range h {
		why := ""
		switch e.Kind {
		case sim.KindExec:
			for _, a := range append(slices.Clone(e.Args), e.Reply) {
				if len(a) > sim.MaxRecordedBytes && strings.HasSuffix(a, " bytes)") {
					why = "the case recorded only the first " + strconv.Itoa(sim.MaxRecordedBytes) + " bytes of an argument or reply"
				}
			}
			if why == "" {
				steps = append(steps, replayStep{e: e})
			}
		case sim.KindNodeUp:
			if e.N > 0 {
				why = "the node restarted with " + strconv.FormatInt(e.N, 10) + " keys its persistence kept, which a real server without persistence cannot"
			} else {
				steps = append(steps, replayStep{e: e, flush: true})
			}
		case sim.KindEvict:
			steps = append(steps, replayStep{e: e, evict: true})
		case sim.KindMemoryPressure:
			why = "a memory-pressure burst acts under a maxmemory (" + e.Note + ") the real server does not have: its OOM replies would differ"
		case sim.KindReplApply, sim.KindPromote, sim.KindDemote:
			why = "replication is not replayed (each node is a standalone real server)"
		case sim.KindClockJump, sim.KindClockDrift:
			if isNode[e.Actor] {
				why = "a real server's clock cannot be stepped or made to drift"
			}
		}
		if why != "" {
			return steps, nodesOf(steps), fmt.Sprintf("%s at %s (%s): %s", e.Kind, sim.FormatTime(e.At), e.Actor, why)
		}
	}
	return steps, nodesOf(steps), ""
}

func nodesOf(steps []replayStep) []string {
	var out []string
	for _, s := range steps {
		if !slices.Contains(out, s.e.Actor) {
			out = append(out, s.e.Actor)
		}
	}
	slices.Sort(out)
	return out
}

// realServer is a redis-server started for the replay.
type realServer struct {
	cmd   *exec.Cmd
	port  string
	dir   string
	conns map[string]*realConn // by client
}

type realConn struct {
	c   net.Conn
	buf []byte
}

// do sends one command and reads its reply.
func (rc *realConn) do(args []string) (resp.Reply, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if err := rc.c.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return resp.Reply{}, err
	}
	if _, err := rc.c.Write(b.Bytes()); err != nil {
		return resp.Reply{}, err
	}
	chunk := make([]byte, 16<<10)
	for {
		if len(rc.buf) > 0 {
			if r, n, err := resp.Parse(rc.buf); err == nil {
				rc.buf = rc.buf[n:]
				return r, nil
			}
		}
		n, err := rc.c.Read(chunk)
		if err != nil {
			return resp.Reply{}, err
		}
		if len(rc.buf)+n > 64<<20 {
			return resp.Reply{}, errors.New("a reply over 64 MiB")
		}
		rc.buf = append(rc.buf, chunk[:n]...)
	}
}

// startRealServer starts redis-server bin on a free loopback port with no
// persistence.
func startRealServer(bin string) (*realServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	if err := l.Close(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "locksim-redis-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--dir", dir, "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, errors.Wrap(err, "start redis-server")
	}
	s := &realServer{cmd: cmd, port: port, dir: dir, conns: map[string]*realConn{}}
	for range 100 {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
			s.conns[""] = &realConn{c: c}
			return s, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.stop()
	return nil, errors.Errorf("redis-server did not accept connections on port %s", port)
}

// conn returns the server's connection for client (one per client, as
// the simulation keeps one per client).
func (s *realServer) conn(client string) (*realConn, error) {
	if c := s.conns[client]; c != nil {
		return c, nil
	}
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+s.port, time.Second)
	if err != nil {
		return nil, err
	}
	s.conns[client] = &realConn{c: c}
	return s.conns[client], nil
}

func (s *realServer) stop() {
	for _, c := range s.conns {
		_ = c.c.Close()
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	_ = os.RemoveAll(s.dir)
}

// replayAgainstRedis replays h's node commands against real servers and
// writes the comparison to w. It returns exitSafe when every reply
// agrees, exitViolation at the first difference (which it prints), and an
// error when no comparison could be made.
func replayAgainstRedis(h sim.History, release sim.Version, w io.Writer) (int, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return exitUsage, errors.New("--against-redis needs redis-server on PATH (the Debian package redis-server)")
	}
	steps, nodes, stop := planReplay(h)
	if len(nodes) == 0 {
		if stop != "" {
			return exitUsage, errors.Errorf("nothing to replay before %s", stop)
		}
		return exitUsage, errors.New("the case's nodes executed no command: nothing to replay")
	}
	servers := map[string]*realServer{}
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	version := ""
	for _, n := range nodes {
		s, err := startRealServer(bin)
		if err != nil {
			return exitUsage, errors.Wrapf(err, "node %s", n)
		}
		servers[n] = s
		if version == "" {
			if r, err := s.conns[""].do([]string{"INFO", "server"}); err == nil {
				if m := regexp.MustCompile(`(?m)^redis_version:(\S+)`).FindStringSubmatch(r.Str); m != nil {
					version = m[1]
				}
			}
		}
	}
	if got, err := sim.ParseVersion(realRelease(version)); err != nil || got != release {
		return exitUsage, errors.Errorf("the case's nodes model %s and redis-server here is %s: their replies would differ by design", release, version)
	}
	// Every connection is open before the clock starts, so that no
	// command waits for a dial.
	for _, st := range steps {
		if st.e.Kind == sim.KindExec {
			if _, err := servers[st.e.Actor].conn(st.e.Peer); err != nil {
				return exitUsage, errors.Wrapf(err, "node %s", st.e.Actor)
			}
		}
	}
	out := bufio.NewWriter(w)
	defer out.Flush()
	fmt.Fprintf(out, "replaying %d commands the simulation ran on %s against redis-server %s on loopback, paced in real time (%s)\n",
		countExec(steps), strings.Join(nodes, ", "), version, sim.FormatDuration(steps[len(steps)-1].e.At))
	out.Flush()
	start := time.Now()
	commands, loose := 0, map[string]int{}
	for _, st := range steps {
		if d := time.Until(start.Add(st.e.At)); d > 0 {
			time.Sleep(d) // pace: the simulation's true time
		}
		s := servers[st.e.Actor]
		switch {
		case st.flush:
			for _, args := range [][]string{{"FLUSHALL"}, {"SCRIPT", "FLUSH"}} {
				if _, err := s.conns[""].do(args); err != nil {
					return exitUsage, errors.Wrapf(err, "node %s restart", st.e.Actor)
				}
			}
			continue
		case st.evict:
			if _, err := s.conns[""].do([]string{"DEL", st.e.Key}); err != nil {
				return exitUsage, errors.Wrapf(err, "node %s eviction", st.e.Actor)
			}
			continue
		}
		c, err := s.conn(st.e.Peer)
		if err != nil {
			return exitUsage, errors.Wrapf(err, "node %s", st.e.Actor)
		}
		r, err := c.do(st.e.Args)
		if err != nil {
			return exitUsage, errors.Wrapf(err, "node %s: %s", st.e.Actor, quoteArgs(st.e.Args))
		}
		commands++
		real := r.String()
		ok, how := replyAgrees(st.e.Args, st.e.Reply, real)
		if !ok {
			fmt.Fprintf(out, "first difference, command %d at %s: %s ran %s\n  simulation: %s\n  real Redis: %s\n",
				commands, sim.FormatTime(st.e.At), st.e.Actor, quoteArgs(st.e.Args), st.e.Reply, real)
			if k, d, ok := nearExpiry(h, st.e); ok {
				fmt.Fprintf(out, "  the simulation expired key %q %s from this command: the real clock keeps time to about a millisecond, so this may be timing, not a difference of behaviour (run it again)\n", k, sim.FormatDuration(d))
			}
			return exitViolation, nil
		}
		if how != "" {
			loose[how]++
		}
	}
	fmt.Fprintf(out, "%d commands: every reply agrees", commands)
	if len(loose) > 0 {
		var parts []string
		for _, how := range sortedKeys(loose) {
			parts = append(parts, strconv.Itoa(loose[how])+" as "+how)
		}
		fmt.Fprintf(out, " (%s)", strings.Join(parts, ", "))
	}
	fmt.Fprintln(out)
	if stop != "" {
		fmt.Fprintf(out, "stopped before %s; the rest is not compared\n", stop)
	}
	return exitSafe, nil
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// quoteArgs renders a command for a message, each argument quoted and cut
// to 80 bytes.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if len(a) > 80 {
			a = a[:80] + "..."
		}
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}

func countExec(steps []replayStep) int {
	n := 0
	for _, s := range steps {
		if !s.flush && !s.evict {
			n++
		}
	}
	return n
}

// expirySlack is how close to a key's expiry a command's difference may
// be the real clock's doing.
const expirySlack = 10 * time.Millisecond

// nearExpiry finds a key that expired on e's node within expirySlack of e
// in the simulation.
func nearExpiry(h sim.History, e sim.Event) (key string, d time.Duration, ok bool) {
	for _, x := range h {
		if x.Kind == sim.KindExpire && x.Actor == e.Actor {
			if d := max(x.At-e.At, e.At-x.At); d <= expirySlack {
				return x.Key, d, true
			}
		}
	}
	return "", 0, false
}

// realRelease names a redis-server version as package sim names releases:
// "7.0.15" is "redis-7.0".
func realRelease(version string) string {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return version
	}
	return "redis-" + parts[0] + "." + parts[1]
}
