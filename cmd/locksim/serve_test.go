package main

import (
	"strings"
	"testing"
)

// Bad input to locksim serve: a clear error, exit 2, nothing launched.
func TestServeBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "give the client programs"},
		{[]string{"serve", "--client", "A"}, "want NAME=COMMAND"},
		{[]string{"serve", "--client", "A=true", "--runs", "0"}, "--runs 0"},
		{[]string{"serve", "--client", "A=true", "--fault", "pause A at 1s"}, "--fault"},
		{[]string{"serve", "--client", "A=true", "--fault", "pause B for 1s at 1s"}, "pause needs a client"},
		{[]string{"serve", "--client", "A=true", "--fault", "pause A for 1s after A call"}, "serve's triggers"},
		{[]string{"serve", "--client", "A=true", "--fault", "clock-jump A by=+1s at 1s"}, "machine's clock"},
		{[]string{"serve", "--client", "A=true", "--fault", "pause A for 1s at 90s"}, "--timeout"},
		{[]string{"serve", "--client", "A=true", "--client", "A=false"}, "named twice"},
		{[]string{"serve", "--client", "A=true", "--masters", "0"}, "--masters 0"},
		{[]string{"serve", "--client", "A=true", "--port", "70000"}, "--port 70000"},
		{[]string{"serve", "--client", "A=true", "--duration", "1s"}, "one or the other"},
		{[]string{"serve", "--duration", "1s", "--fault", "pause A for 1s at 0s"}, "--pid A=PID"},
		{[]string{"serve", "--duration", "1s", "--pid", "A=x"}, "NAME=PID"},
		{[]string{"serve", "--duration", "-1s"}, "--duration -1s"},
		{[]string{"serve", "--client", "A=true", "extra"}, "unexpected argument"},
	} {
		code, out, errs := runCLI(append(c.args, "--out", t.TempDir())...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, "panic") {
			t.Errorf("%q: exit %d, stderr %q (stdout %q); want exit 2 and %q", c.args, code, errs, out, c.want)
		}
	}
}

// A client that fails gives a run without a verdict: exit 2, with the
// reason; so does a lone client's grant (nobody to exclude: it read
// "held"); two clients whose grants do not overlap hold.
func TestServeRunVerdicts(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI("serve", "--out", dir, "--client", "A=exit 3")
	if code != 2 || !strings.Contains(out, "no verdict: client A (exit status 3) failed") || !strings.Contains(out, "NOT deterministic") {
		t.Errorf("failing client: exit %d\n%s\n%s", code, out, errs)
	}
	grant := `printf '{"time":1,"host":"h","client":"A","key":"k","kind":"granted"}\n{"time":2,"host":"h","client":"A","key":"k","kind":"released"}\n' > "$LOCKSIM_LOG"`
	code, out, errs = runCLI("serve", "--out", dir, "--runs", "2", "--client", "A="+grant)
	if code != 2 || !strings.Contains(out, "no verdict: nothing judged: no invariant could be judged") {
		t.Errorf("a lone client: exit %d\n%s\n%s", code, out, errs)
	}
	later := `printf '{"time":3,"host":"h","client":"B","key":"k","kind":"granted"}\n{"time":4,"host":"h","client":"B","key":"k","kind":"released"}\n' > "$LOCKSIM_LOG"`
	code, out, errs = runCLI("serve", "--out", dir, "--runs", "2", "--client", "A="+grant, "--client", "B="+later)
	if code != 0 || !strings.Contains(out, "broke in 0 of 2 runs") {
		t.Errorf("clients that held: exit %d\n%s\n%s", code, out, errs)
	}
	// A client still running at the timeout is killed: no verdict.
	code, out, errs = runCLI("serve", "--out", dir, "--timeout", "500ms", "--client", "A=sleep 30")
	if code != 2 || !strings.Contains(out, "still running at the --timeout 500ms and were killed") {
		t.Errorf("a client past the timeout: exit %d\n%s\n%s", code, out, errs)
	}
	// Two clients whose logs overlap: broken, exit 1.
	b := `printf '{"time":1,"host":"h","client":"B","key":"k","kind":"granted"}\n{"time":3,"host":"h","client":"B","key":"k","kind":"released"}\n' > "$LOCKSIM_LOG"`
	code, out, errs = runCLI("serve", "--out", dir, "--client", "A="+grant, "--client", "B="+b)
	if code != 1 || !strings.Contains(out, "broke in 1 of 1 runs (mutual-exclusion in 1)") {
		t.Errorf("overlapping clients: exit %d\n%s\n%s", code, out, errs)
	}
}
