package serve

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"locksim/scenarios"
	"locksim/sim"
)

func faults(t *testing.T, lines ...string) []sim.Fault {
	t.Helper()
	var fs []sim.Fault
	for _, l := range lines {
		f, err := scenarios.ParseFault(l)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

// rconn is a minimal RESP client for the tests.
type rconn struct {
	c net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, addr string) *rconn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rconn{c, bufio.NewReader(c)}
}

// do sends a command and returns the reply in one line ("+OK", "$v",
// "*[subscribe ch :1]"), or the read error's text.
func (r *rconn) do(args ...string) string {
	var b []byte
	b = append(b, '*')
	b = append(b, []byte(itoa(len(args)))...)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = append(b, []byte(itoa(len(a)))...)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	r.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.c.Write(b); err != nil {
		return "write error: " + err.Error()
	}
	return r.read()
}

func (r *rconn) read() string {
	l, err := r.r.ReadString('\n')
	if err != nil {
		return "read error: " + err.Error()
	}
	l = strings.TrimRight(l, "\r\n")
	switch l[0] {
	case '$':
		if l == "$-1" {
			return "nil"
		}
		v, _ := r.r.ReadString('\n')
		return "$" + strings.TrimRight(v, "\r\n")
	case '*':
		n := atoi(l[1:])
		var parts []string
		for range n {
			parts = append(parts, strings.TrimPrefix(r.read(), "$"))
		}
		return "*[" + strings.Join(parts, " ") + "]"
	}
	return l
}

func itoa(n int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(n)) }
func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func start(t *testing.T, opt Options) *Endpoint {
	t.Helper()
	e, err := Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Commands reach the simulated node and its replies come back in order;
// pub/sub is answered at the endpoint in Redis's reply shapes.
func TestEndpointServesCommandsAndPubSub(t *testing.T) {
	e := start(t, Options{Clients: []string{"A"}})
	c := dial(t, e.Addrs("A")[0])
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"SET", "k", "v", "NX", "PX", "5000"}, "+OK"},
		{[]string{"SET", "k", "w", "NX", "PX", "5000"}, "nil"},
		{[]string{"GET", "k"}, "$v"},
		{[]string{"EVAL", "return redis.call('get', KEYS[1])", "1", "k"}, "$v"},
	} {
		if got := c.do(step.args...); got != step.want {
			t.Errorf("%v: got %q, want %q", step.args, got, step.want)
		}
	}
	s := dial(t, e.Addrs("A")[0])
	if got := s.do("SUBSCRIBE", "ch"); got != "*[subscribe ch :1]" {
		t.Errorf("SUBSCRIBE: got %q", got)
	}
	if got := s.do("PING"); got != "*[pong ]" {
		t.Errorf("PING while subscribed: got %q", got)
	}
	if got := s.do("GET", "k"); !strings.HasPrefix(got, "-ERR Can't execute 'get'") {
		t.Errorf("GET while subscribed: got %q", got)
	}
	if got := s.do("UNSUBSCRIBE"); got != "*[unsubscribe ch :0]" {
		t.Errorf("UNSUBSCRIBE: got %q", got)
	}
	e.Exit("A", "done")
	h, _, err := e.Close()
	if err != nil {
		t.Fatal(err)
	}
	var execs int
	for _, ev := range h {
		if ev.Kind == sim.KindExec && ev.Actor == "r1" {
			execs++
		}
	}
	if execs != 4 {
		t.Errorf("the node ran %d commands, want 4 (pub/sub stays at the endpoint):\n%v", execs, h)
	}
}

// A partition for good resets the client's connections (as a peer's RST).
func TestEndpointPartitionResets(t *testing.T) {
	e := start(t, Options{Clients: []string{"A"}, Faults: faults(t, "partition A | r1 at 1s")})
	c := dial(t, e.Addrs("A")[0])
	if got := c.do("PING"); got != "+PONG" {
		t.Fatalf("PING: %q", got)
	}
	got := "+PONG"
	for i := 0; i < 200 && got == "+PONG"; i++ { // polled: the partition comes at 1s
		time.Sleep(20 * time.Millisecond)
		got = c.do("PING")
	}
	if !strings.Contains(got, "error") {
		t.Errorf("PING across a partition for good: got %q, want the connection reset", got)
	}
	e.Exit("A", "done")
	e.Close()
}

// A blackhole partition swallows the request: no reply, the connection
// stays up until the client's own deadline.
func TestEndpointBlackholeSwallows(t *testing.T) {
	e := start(t, Options{Clients: []string{"A"}, Faults: faults(t, "partition A | r1 mode=blackhole at 200ms")})
	c := dial(t, e.Addrs("A")[0])
	time.Sleep(300 * time.Millisecond)
	c.c.SetDeadline(time.Now().Add(700 * time.Millisecond))
	c.c.Write([]byte("*1\r\n$4\r\nPING\r\n"))
	_, err := c.r.ReadString('\n')
	if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Errorf("PING into a blackhole: got %v, want the client's own read timeout", err)
	}
	e.Exit("A", "done")
	e.Close()
}

// With a replica, a crashed primary is failed over: a new connection to
// the group reaches the promoted replica.
func TestEndpointFailover(t *testing.T) {
	t0 := time.Now()
	e := start(t, Options{Clients: []string{"A"}, Topology: Topology{Replicas: 1, DownAfter: 300 * time.Millisecond},
		Faults: faults(t, "node-crash r1 at 1s")})
	c := dial(t, e.Addrs("A")[0])
	if got := c.do("SET", "k", "1"); got != "+OK" {
		t.Fatalf("SET before the crash: %q", got)
	}
	var got string
	for time.Since(t0) < 1100*time.Millisecond {
		time.Sleep(50 * time.Millisecond) // past the crash at 1s
	}
	for range 100 {
		time.Sleep(100 * time.Millisecond)
		n := dial(t, e.Addrs("A")[0])
		if got = n.do("SET", "k", "2"); got == "+OK" {
			break
		}
	}
	if got != "+OK" {
		t.Fatalf("no primary after the failover: %q", got)
	}
	e.Exit("A", "done")
	h, _, _ := e.Close()
	promoted := false
	for _, ev := range h {
		promoted = promoted || ev.Actor == "r2" && ev.Kind == sim.KindExec && strings.Join(ev.Args, " ") == "SET k 2"
	}
	if !promoted {
		t.Errorf("the SET after the failover did not run on r2:\n%v", h)
	}
}

// Inputs the endpoint cannot carry out are refused with the reason.
func TestOptionsRefused(t *testing.T) {
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{}, "no client"},
		{Options{Clients: []string{"A", "A"}}, "named twice"},
		{Options{Clients: []string{"a b"}}, "client name"},
		{Options{Clients: []string{"A"}, Topology: Topology{Masters: 12}}, "masters 12"},
		{Options{Clients: []string{"A"}, Faults: faults(t, "pause B for 1s at 1s")}, "pause needs a client"},
		{Options{Clients: []string{"A"}, Faults: faults(t, "crash A at 1s")}, "client crash"},
		{Options{Clients: []string{"A"}, Faults: faults(t, "clock-jump A by=+1s at 1s")}, "machine's clock"},
		{Options{Clients: []string{"A"}, Faults: faults(t, "pause A for 1s after A call")}, "serve's triggers"},
		{Options{Clients: []string{"A"}, Faults: faults(t, "pause A for 1s after r1 granted")}, "no client"},
	} {
		err := Validate(c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error with %q", c.opt, err, c.want)
		}
	}
}

// Redlock's masters: a client gets one address per group, each reaching
// its own primary.
func TestEndpointMasters(t *testing.T) {
	e := start(t, Options{Clients: []string{"A", "B"}, Topology: Topology{Masters: 3}})
	if len(e.Addrs("A")) != 3 || len(e.Addrs("B")) != 3 || strings.Join(e.Groups(), ",") != "m1,m2,m3" {
		t.Fatalf("addresses %v %v, groups %v", e.Addrs("A"), e.Addrs("B"), e.Groups())
	}
	for i, addr := range e.Addrs("A") {
		if got := dial(t, addr).do("SET", "k", itoa(i)); got != "+OK" {
			t.Fatalf("SET on group %d: %q", i+1, got)
		}
	}
	for i, addr := range e.Addrs("B") {
		if got := dial(t, addr).do("GET", "k"); got != "$"+itoa(i) {
			t.Errorf("B's GET on group %d: %q, want A's write there", i+1, got)
		}
	}
	e.Exit("A", "done")
	e.Exit("B", "done")
	h, _, _ := e.Close()
	nodes := map[string]bool{}
	for _, ev := range h {
		if ev.Kind == sim.KindExec {
			nodes[ev.Actor] = true
		}
	}
	if len(nodes) != 3 {
		t.Errorf("commands ran on %v, want three nodes", nodes)
	}
}

// A pause stops the given process (SIGSTOP) and resumes it (SIGCONT).
func TestEndpointPauseStopsTheProcess(t *testing.T) {
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	e := start(t, Options{Clients: []string{"A"}, Faults: faults(t, "pause A for 1s at 100ms")})
	e.SetPid("A", cmd.Process.Pid, false)
	state := func() string {
		b, err := os.ReadFile("/proc/" + itoa(cmd.Process.Pid) + "/stat")
		if err != nil {
			t.Skip("no /proc:", err)
		}
		f := strings.Fields(string(b))
		return f[2]
	}
	// Polled, not timed: the machine's load may delay either signal.
	until := func(want bool) bool {
		for range 1000 {
			if (state() == "T") == want {
				return true
			}
			time.Sleep(5 * time.Millisecond)
		}
		return false
	}
	if !until(true) {
		t.Fatal("the process was never stopped")
	}
	if !until(false) {
		t.Fatal("the process was never resumed")
	}
	e.Exit("A", "done")
	h, notes, _ := e.Close()
	var kinds []string
	for _, ev := range h {
		if ev.Actor == "A" {
			kinds = append(kinds, string(ev.Kind))
		}
	}
	if got := strings.Join(kinds, " "); got != "pause resume task-end" {
		t.Errorf("A's events in the history: %q, want the pause and the resume before its end", got)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "SIGSTOP") || !strings.Contains(notes[1], "SIGCONT") {
		t.Errorf("the endpoint's notes: %q", notes)
	}
}

// A client that pipelines past maxInFlight commands without their replies
// (here swallowed by a blackhole) is cut off with an error: bounded memory.
func TestEndpointBoundsCommandsInFlight(t *testing.T) {
	e := start(t, Options{Clients: []string{"A"}, Faults: faults(t, "partition A | r1 mode=blackhole at 0s")})
	c := dial(t, e.Addrs("A")[0])
	c.c.SetDeadline(time.Now().Add(10 * time.Second))
	go c.c.Write([]byte(strings.Repeat("*1\r\n$4\r\nPING\r\n", maxInFlight+1)))
	got := c.read()
	if !strings.Contains(got, "commands in flight") {
		t.Errorf("got %q, want the in-flight bound's error", got)
	}
	e.Exit("A", "done")
	e.Close()
}
