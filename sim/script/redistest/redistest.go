// Package redistest starts a real redis-server for differential tests and
// talks RESP2 to it. Tests that use it skip when redis-server is not on
// PATH, and fail instead when the environment variable
// LOCKSIM_REQUIRE_REDIS is 1 (RequireEnv), as .ci/run sets it: CI installs
// the Debian package redis-server, and the tests are written against
// 7.0.15.
package redistest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"locksim/sim/resp"
)

// Client is a tiny RESP2 and RESP3 client.
type Client struct {
	conn net.Conn
	buf  []byte
}

// Do sends one command and returns its reply; any I/O error fails t.
func (rc *Client) Do(t testing.TB, args ...string) resp.Reply {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	// wall-clock ok: a real redis-server over TCP for the differential test, outside the simulation
	if err := rc.conn.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.conn.Write(b.Bytes()); err != nil {
		t.Fatalf("redis-server write: %v", err)
	}
	chunk := make([]byte, 4096)
	for {
		if len(rc.buf) > 0 {
			if r, n, err := resp.Parse(rc.buf); err == nil {
				rc.buf = rc.buf[n:]
				return r
			}
		}
		n, err := rc.conn.Read(chunk)
		if err != nil {
			t.Fatalf("redis-server read: %v (have %q)", err, rc.buf)
		}
		rc.buf = append(rc.buf, chunk[:n]...)
	}
}

// Read returns the next reply or push the server sent, without sending
// anything (a RESP3 push comes on its own); any I/O error fails t.
func (rc *Client) Read(t testing.TB) resp.Reply {
	t.Helper()
	// wall-clock ok: a real redis-server over TCP for the differential test, outside the simulation
	if err := rc.conn.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if len(rc.buf) > 0 {
			if r, n, err := resp.Parse(rc.buf); err == nil {
				rc.buf = rc.buf[n:]
				return r
			}
		}
		n, err := rc.conn.Read(chunk)
		if err != nil {
			t.Fatalf("redis-server read: %v (have %q)", err, rc.buf)
		}
		rc.buf = append(rc.buf, chunk[:n]...)
	}
}

// Server is a running redis-server.
type Server struct {
	Port   string
	Client *Client
}

// Start starts redis-server on a free loopback port with no persistence
// and the extra arguments, or skips t when it is not installed. The server
// is killed when the test ends; killWithParent (set by the caller's
// platform, may be nil) kills it if the test binary dies first.
func Start(t testing.TB, killWithParent func(*exec.Cmd), extra ...string) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		Missing(t)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--dir", t.TempDir(), "--loglevel", "warning"}, extra...)
	cmd := exec.Command(bin, args...)
	if killWithParent != nil {
		killWithParent(cmd)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for range 100 { // up to ~5 s
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second)
		if err == nil {
			t.Cleanup(func() { _ = conn.Close() })
			return &Server{Port: port, Client: &Client{conn: conn}}
		}
		time.Sleep(50 * time.Millisecond) // wall-clock ok: waiting for the real redis-server to listen
	}
	t.Fatalf("redis-server did not accept connections on port %s", port)
	return nil
}

// Dial opens another connection to s.
func (s *Server) Dial(t testing.TB) *Client {
	t.Helper()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+s.Port, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return &Client{conn: conn}
}

// RequireEnv is the environment variable that makes a missing
// redis-server (or one of another release than the tests are written
// against) fail a differential test instead of skipping it: CI sets it
// to 1, so a green CI proves the fidelity claims.
const RequireEnv = "LOCKSIM_REQUIRE_REDIS"

// Required reports whether RequireEnv is set to 1.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Available reports whether redis-server is on PATH.
func Available() bool {
	_, err := exec.LookPath("redis-server")
	return err == nil
}

// Missing skips t because redis-server is not installed, or fails it when
// the differential is required (RequireEnv).
func Missing(t testing.TB) {
	t.Helper()
	if Required() {
		t.Fatalf("redis-server is not on PATH and %s=1: the differential against real Redis must run (install the Debian package redis-server)", RequireEnv)
	}
	t.Skip("redis-server not on PATH (Debian package redis-server); " + RequireEnv + "=1 makes this a failure")
}

// NoteMissing is Missing for a test that has more to check without the
// server: it fails under RequireEnv, and otherwise logs and goes on.
func NoteMissing(t testing.TB) {
	t.Helper()
	if Required() {
		Missing(t)
	}
	t.Log("redis-server not on PATH: the simulation alone is checked (" + RequireEnv + "=1 makes this a failure)")
}

// Mismatch reports that the installed server runs release got where the
// tests compare with want: an error when the differential is required,
// else a log line.
func Mismatch(t testing.TB, got, want string) {
	t.Helper()
	if Required() {
		t.Errorf("redis-server here is %s; the differential is written against %s (%s=1)", got, want, RequireEnv)
		return
	}
	t.Logf("redis-server here is %s; the cases of %s were not compared with a real server", got, want)
}

var (
	versionLine = regexp.MustCompile(`(?m)^(redis)_version:(\d+)\.(\d+)\.`)
	valkeyLine  = regexp.MustCompile(`(?m)^(valkey)_version:(\d+)\.(\d+)\.`)
)

// Release returns the release a running server reports in INFO server, as
// package sim names releases: "redis-7.0", "valkey-9.0".
func Release(t testing.TB, c *Client) string {
	t.Helper()
	r := c.Do(t, "INFO", "server")
	m := valkeyLine.FindStringSubmatch(r.Str) // Valkey also reports a redis_version
	if m == nil {
		m = versionLine.FindStringSubmatch(r.Str)
	}
	if m == nil {
		t.Fatalf("INFO server names no version: %s", r)
	}
	return m[1] + "-" + m[2] + "." + m[3]
}
