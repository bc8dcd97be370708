package locklog

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
	"time"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/example.jsonl")

// memLock is a fenced lock in memory with expiry on a fake clock.
type memLock struct {
	now    *time.Time
	holder string
	until  time.Time
	token  int64
	ttl    time.Duration
	value  string
}

func (m *memLock) Acquire(_ context.Context, key string) (Grant, error) {
	if m.holder != "" && m.now.Before(m.until) {
		return Grant{}, errors.New("held by another")
	}
	m.token++
	m.holder, m.until = m.value, m.now.Add(m.ttl)
	return Grant{Token: m.token, Value: m.value, Validity: m.ttl}, nil
}

func (m *memLock) Renew(_ context.Context, key string, g Grant) (time.Duration, error) {
	if m.holder != g.Value || !m.now.Before(m.until) {
		return 0, ErrLost
	}
	m.until = m.now.Add(m.ttl)
	return m.ttl, nil
}

func (m *memLock) Release(_ context.Context, key string, g Grant) error {
	if m.holder == g.Value {
		m.holder = ""
	}
	return nil
}

// Two clients on two hosts share one fenced lock; the log of both, in
// order, is testdata/example.jsonl (which logcheck's tests judge: every
// line parses, nothing broke, fencing judged).
func TestWrapLogsEveryCall(t *testing.T) {
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	tick := func(d time.Duration) { now = now.Add(d) }
	clock := func() time.Time { return now }
	var out bytes.Buffer
	a, b := New(&out, "web-1", "web-1/worker"), New(&out, "web-2", "web-2/worker")
	a.Now, b.Now = clock, clock
	store := &memLock{now: &now, ttl: 500 * time.Millisecond}
	highest := int64(0)
	resource := func(token int64) func() (bool, error) {
		return func() (bool, error) {
			tick(time.Millisecond)
			if token < highest {
				return false, nil
			}
			highest = token
			return true, nil
		}
	}
	ctx := context.Background()
	la, lb := a.Wrap(store), b.Wrap(store)

	store.value = "a1"
	ga, err := la.Acquire(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	tick(10 * time.Millisecond)
	store.value = "b1"
	if _, err := lb.Acquire(ctx, "orders"); err == nil {
		t.Fatal("b acquired a held lock")
	}
	tick(100 * time.Millisecond)
	if _, err := a.Write("orders", ga, resource(ga.Token)); err != nil {
		t.Fatal(err)
	}
	if _, err := la.Renew(ctx, "orders", ga); err != nil {
		t.Fatal(err)
	}
	tick(time.Second) // a's lease runs out
	store.value = "b2"
	gb, err := lb.Acquire(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := la.Renew(ctx, "orders", ga); !errors.Is(err, ErrLost) {
		t.Fatalf("renew after expiry: %v", err)
	}
	if _, err := b.Write("orders", gb, resource(gb.Token)); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.Write("orders", ga, resource(ga.Token)); ok || err != nil {
		t.Fatalf("a's late write: accepted %v, %v", ok, err)
	}
	if _, err := a.Write("orders", ga, func() (bool, error) { return false, errors.New("timeout") }); err == nil {
		t.Fatal("a failed write reported no error")
	}
	tick(5 * time.Millisecond)
	if err := lb.Release(ctx, "orders", gb); err != nil {
		t.Fatal(err)
	}
	if a.Err() != nil || b.Err() != nil {
		t.Fatal(a.Err(), b.Err())
	}
	kinds := []string{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		k := l[strings.Index(l, `"kind":"`)+8:]
		kinds = append(kinds, k[:strings.IndexByte(k, '"')])
	}
	want := "acquire-attempt granted acquire-attempt refused write renewed acquire-attempt granted lost write write-rejected released"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("kinds\n got %s\nwant %s", got, want)
	}
	if *rewrite {
		os.WriteFile("testdata/example.jsonl", out.Bytes(), 0o644)
	}
	golden, err := os.ReadFile("testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(golden) {
		t.Errorf("the log differs from testdata/example.jsonl (-rewrite):\n%s", out.String())
	}
}

// A writer that fails stops the log and Err says why.
func TestWriteErrorStopsTheLog(t *testing.T) {
	l := New(failing{}, "h", "c")
	l.Lost("k", Grant{})
	l.Lost("k", Grant{})
	if l.Err() == nil || !strings.Contains(l.Err().Error(), "disk full") {
		t.Fatalf("Err() = %v", l.Err())
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A lock call whose context has a deadline logs how long it may wait on
// its acquire-attempt, which check-log judges acquire-deadline by; one
// without a deadline logs none.
func TestAcquireLogsTheContextDeadline(t *testing.T) {
	var out bytes.Buffer
	l := New(&out, "web-1", "web-1/worker")
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	l.Now = func() time.Time { return now }
	lk := l.Wrap(&memLock{now: &now, ttl: time.Second})
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(1500*time.Millisecond))
	defer cancel()
	if _, err := lk.Acquire(ctx, "orders"); err != nil {
		t.Fatal(err)
	}
	if _, err := lk.Acquire(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.Contains(lines[0], `"kind":"acquire-attempt","deadline":"1.5s"`) {
		t.Errorf("with a deadline: %s", lines[0])
	}
	if strings.Contains(lines[2], "deadline") {
		t.Errorf("without one: %s", lines[2])
	}
}
