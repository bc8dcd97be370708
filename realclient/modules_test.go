package realclient

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"locksim"
	"locksim/model"
	"locksim/report"
)

func TestFrameModule(t *testing.T) {
	for _, tc := range []struct{ function, file, want string }{
		{"github.com/go-redsync/redsync/v4.(*Mutex).LockContext", "/root/go/pkg/mod/github.com/go-redsync/redsync/v4@v4.12.1/mutex.go", "github.com/go-redsync/redsync/v4 v4.12.1"},
		{"github.com/go-redsync/redsync/v4/redis/goredis/v9.(*pool).Get", "github.com/go-redsync/redsync/v4@v4.12.1/redis/goredis/v9/goredis.go", "github.com/go-redsync/redsync/v4 v4.12.1"}, // -trimpath
		{"github.com/BurntSushi/toml.Decode", "/m/github.com/!burnt!sushi/toml@v1.2.0/decode.go", "github.com/BurntSushi/toml v1.2.0"},
		{"github.com/redis/go-redis/v9.(*Client).Process", "/src/go-redis-fork/redis.go", "github.com/redis/go-redis/v9" + replacedSuffix},
		{"runtime.goexit", "/usr/local/go/src/runtime/asm_amd64.s", ""},
		{"locksim/realclient.gateHook.ProcessHook.func1", "/work/realclient/interleave.go", ""},
		{"net/http.(*Client).Do", "/usr/local/go/src/net/http/client.go", ""},
	} {
		if got := frameModule(tc.function, tc.file); got != tc.want {
			t.Errorf("frameModule(%q, %q) = %q, want %q", tc.function, tc.file, got, tc.want)
		}
	}
}

// A run names the go-redis it linked, read from the clients' stacks, in
// its result, its case file and its failure report.
func TestRunNamesLinkedModules(t *testing.T) {
	r := runSpec(t, "twin", model.Spec{Workload: model.Workload{Cycles: 1}}, newTwin(twinBugs{plainDel: true}))
	i := slices.IndexFunc(r.Modules, func(m string) bool { return strings.HasPrefix(m, "github.com/redis/go-redis/v9 v9.") })
	if i < 0 {
		t.Fatalf("modules %q: no go-redis v9 with its version", r.Modules)
	}
	if c := locksim.NewCase(r); !slices.Equal(c.Modules, r.Modules) {
		t.Errorf("case modules %q, want %q", c.Modules, r.Modules)
	}
	if text := failureReport(r, "x.json", "TestX"); !strings.Contains(text, "linked: "+r.Modules[i]) {
		t.Errorf("failure report does not name %s:\n%s", r.Modules[i], text)
	}
	for format, render := range map[string]func(*bytes.Buffer) error{
		"text": func(b *bytes.Buffer) error { return report.Text(b, r, report.TextOptions{}) },
		"json": func(b *bytes.Buffer) error { return report.JSON(b, r, report.Meta{}) },
		"html": func(b *bytes.Buffer) error { return report.HTML(b, r, report.Meta{}) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), r.Modules[i]) {
			t.Errorf("the %s report does not name %s", format, r.Modules[i])
		}
	}
	t.Logf("linked: %q", r.Modules)
}
