package node

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	"locksim/realclient"
	"locksim/sim"
)

// oneClient is a fault-free run of one client, one cycle.
func oneClient(name string) locksim.Case {
	s := model.Spec{
		Design:   realclient.DesignPrefix + name,
		Topology: model.Topology{Masters: 1},
		Clients:  []string{"A"},
		Workload: model.Workload{Cycles: 1, Work: 10 * time.Millisecond},
	}.WithDefaults()
	return locksim.Case{Spec: s, Seed: 7}
}

// runErr runs module and returns the run's error text.
func runErr(t *testing.T, module string, opts ...Option) string {
	t.Helper()
	r, err := realclient.Run(t, oneClient("limits"), Setup(module, opts...))
	if err != nil {
		return err.Error()
	}
	if r.Err == nil {
		t.Fatalf("%s: the run ended without an error", module)
	}
	return r.Err.Error()
}

// A process that never stops running callbacks, one that writes without
// bound, a native add-on and a worker thread each stop the run with an
// error that says what happened.
func TestLimitsAndRefusals(t *testing.T) {
	requireNode(t)
	small := WithLimits(Limits{Callbacks: 5000, Bytes: 1 << 20, Steps: 100000})
	for _, tc := range []struct {
		module string
		opts   []Option
		want   []string
	}{
		{"js/test/spin.cjs", []Option{small}, []string{"more than 5000 timer and immediate callbacks", "a spin"}},
		{"js/test/flood.cjs", []Option{small}, []string{"wrote more than 1048576 bytes"}},
		{"js/test/ticker.cjs", []Option{WithLimits(Limits{Callbacks: 1 << 30, Bytes: 1 << 30, Steps: 200})}, []string{"more than 200 steps", "node.Limits.Steps"}},
		{"js/test/addon.cjs", nil, []string{"native add-ons are refused", "/nonexistent/lock.node"}},
		{"js/test/worker.cjs", nil, []string{"worker threads are refused"}},
		{"js/test/realsocket.cjs", nil, []string{"a real resource outside the simulation", "ProcessWrap"}},
	} {
		start := time.Now()
		text := runErr(t, tc.module, tc.opts...)
		t.Logf("%s: %s", tc.module, time.Since(start))
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the error does not say %q:\n%s", tc.module, w, text)
			}
		}
	}
}

// A missing or old Node.js gets a message that says what to install.
func TestNodeVersionMessage(t *testing.T) {
	for v, want := range map[string]string{
		"v16.20.2": "Node.js v16.20.2 is too old: locksim's bridge needs Node.js 18 or later",
		"hello":    "not a Node.js version: install Node.js 18 or later",
		"v18.19.0": "",
		"v20.20.2": "",
	} {
		err := checkVersionText(v)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", v, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", v, err, want)
		}
	}
	err := checkBinary("/nonexistent/node")
	if err == nil || !strings.Contains(err.Error(), "install Node.js 18 or later") || !strings.Contains(err.Error(), "LOCKSIM_NODE") {
		t.Errorf("a missing node: %v", err)
	}
}

// Every input the bridge replaces, read through CommonJS and ESM imports,
// comes from the simulation: the clock starts at the bubble's epoch, DNS
// is refused, and the lock value the module builds from all of them is
// the same in fresh processes (TestDeterminismAcrossProcesses runs it).
func TestInputsComeFromTheSimulation(t *testing.T) {
	requireNode(t)
	r, err := realclient.Run(t, oneClient("inputs"), Setup("js/test/inputs.cjs"), realclient.WithLockKeys("lock"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	var value string
	for _, e := range r.History {
		if e.Kind == sim.KindKey && e.Key == "inputs" {
			value = e.Value
		}
	}
	f := strings.Split(value, "|")
	if len(f) != 18 {
		t.Fatalf("the value %q has %d fields, want 18", value, len(f))
	}
	if !strings.HasPrefix(f[0], "9466848") || !strings.HasPrefix(f[1], "2000-01-01T00:00:00.0") || f[3] != "946684800000" || f[16] != "9466848000"+fmt.Sprintf("%02s", f[15]) {
		t.Errorf("the clock is not the simulation's (Date.now, ISO, timeOrigin, ESM Date.now = timeOrigin + ESM performance.now): %q", f)
	}
	if f[17] != "ENOTFOUND" {
		t.Errorf("an ESM dns lookup gave %q, want ENOTFOUND", f[17])
	}
	t.Logf("%q", f)
}
