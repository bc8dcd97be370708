package realclient_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A user's module that pins older versions than the library tests use
// (redsync v4.11.0, go-redis v9.22.0; realclient/libs pins v4.18.1 and
// v9.23.0) runs those versions, not newer ones: realclient's go.mod
// requires only go-redis v9.22.0, and the library tests' pins live in
// realclient/libs. The check's
// log names what ran, read from the clients' stacks. It needs the module
// proxy (GOPROXY from the environment) or a module cache that has them.
func TestFreshModuleRunsItsPinnedVersions(t *testing.T) {
	if os.Getenv("GOPROXY") == "off" {
		t.Skip("GOPROXY=off: this test downloads redsync v4.11.0 and go-redis v9.22.0 through the module proxy")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module oldpins\n\ngo 1.26\n\nrequire (\n" +
		"\tgithub.com/go-redsync/redsync/v4 v4.11.0\n\tgithub.com/redis/go-redis/v9 v9.22.0\n" +
		"\tlocksim v0.0.0\n\tlocksim/realclient v0.0.0\n)\n\n" +
		"replace locksim => " + root + "\n\nreplace locksim/realclient => " + filepath.Join(root, "realclient") + "\n"
	test := `package oldpins

import (
	"context"
	"testing"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"

	"locksim/model"
	"locksim/realclient"
	"locksim/sim"
)

type lock struct{ m *redsync.Mutex }

func (l lock) Lock(ctx context.Context) error   { return l.m.LockContext(ctx) }
func (l lock) Unlock(ctx context.Context) error { _, err := l.m.UnlockContext(ctx); return err }

func TestOldRedsync(t *testing.T) {
	realclient.Check(t, func(env realclient.Env) (realclient.Lock, error) {
		pools := []redis.Pool{goredis.NewPool(env.Clients[0])}
		return lock{redsync.New(pools...).NewMutex(env.Key, redsync.WithExpiry(env.TTL))}, nil
	}, realclient.WithName("redsync"), realclient.WithRuns(2), realclient.WithFaults(sim.FaultDelay),
		realclient.WithWorkload(model.Workload{Cycles: 1}))
}
`
	for name, text := range map[string]string{"go.mod": gomod, "old_test.go": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd := func(args ...string) (string, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := goCmd("mod", "tidy"); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	if out, err := goCmd("list", "-m", "github.com/go-redsync/redsync/v4", "github.com/redis/go-redis/v9"); err != nil ||
		!strings.Contains(out, "redsync/v4 v4.11.0") || !strings.Contains(out, "go-redis/v9 v9.22.0") {
		t.Fatalf("the module's build list raised its pins (%v):\n%s", err, out)
	}
	out, _ := goCmd("test", "-count=1", "-v", "-trimpath", ".")
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "linked: ") {
			t.Log(strings.TrimSpace(line))
		}
	}
	for _, want := range []string{"linked: ", "github.com/go-redsync/redsync/v4 v4.11.0", "github.com/redis/go-redis/v9 v9.22.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("the check's output does not name %q:\n%s", want, out)
		}
	}
}

// The go-redis floor: realclient requires go-redis v9.22.0, the oldest
// whose runs were measured reproducible (docs/realclient.md, Which
// versions run): before v9.20.0 its retry jitter comes from its own
// per-process generator (internal/rand: the same case gave a different
// history in every run of a process, with a node crash), and at v9.20.0
// the late-armed renewal check still differed between repetitions. A
// higher requirement raises users' pins; a lower one lets them run a
// go-redis whose histories the harness cannot reproduce.
func TestGoRedisFloor(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "github.com/redis/go-redis/v9" {
			if f[1] != "v9.22.0" {
				t.Errorf("realclient requires go-redis %s, want the floor v9.22.0 (docs/realclient.md, Which versions run)", f[1])
			}
			return
		}
	}
	t.Error("realclient's go.mod does not require go-redis v9")
}
