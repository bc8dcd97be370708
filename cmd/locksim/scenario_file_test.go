package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A scenario file of your own is judged only on what it can show
// (new-user trial): one client has nobody to exclude, so the run is
// refused as --clients 1 is (it read "mutual-exclusion held"); a scenario
// none of whose faults took effect (a trigger that never happens: #99)
// judged the design without them and exited 0, so a story or a CI step
// whose trigger drifted passed for ever: it is no verdict (exit 2),
// naming the faults. A break without the faults still exits 1.
func TestScenarioFileNeedsEvidence(t *testing.T) {
	dir := t.TempDir()
	write := fileWriter(t, dir)
	one := write("one.txt", "name one\ntitle t\nclients A\nfault pause A for 1.5s after A write\n")
	never := write("never.txt", "name never\ntitle t\nclients A B\nfault pause A for 1.5s after A write #99\n")
	fired := write("fired.txt", "name fired\ntitle t\nclients A B\nfault pause A for 1.5s after A write\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", one}, exitUsage, "one client has nobody to exclude"},
		{[]string{"run", one, "--clients", "2"}, exitViolation, "BROKEN"},
		{[]string{"check", "--design", "set-px-lua", "--scenario", one, "--runs", "5", "--progress=false", "--save", filepath.Join(dir, "c.json")}, exitUsage, "one client has nobody to exclude"},
		{[]string{"check", "--design", "set-px-lua", "--scenario", one, "--clients", "2", "--runs", "5", "--progress=false", "--save", filepath.Join(dir, "c.json")}, exitViolation, "design set-px-lua: 5 runs"},
		{[]string{"run", never}, exitUsage, "no verdict: none of the scenario's faults took effect"},
		{[]string{"run", never, "--format", "json"}, exitUsage, "pause A for 1.5s after A write #99"},
		{[]string{"run", fired}, exitViolation, "BROKEN"},
		// The report itself says no verdict, in every format, not held.
		{[]string{"run", never}, exitUsage, "mutual-exclusion  no verdict (none of the run's faults took effect)"},
		{[]string{"run", never, "--format", "json"}, exitUsage, `"no_fault_fired": "none of the run's faults took effect"`},
		{[]string{"run", never, "--format", "markdown"}, exitUsage, "**No verdict**: none of the run's faults took effect"},
		{[]string{"run", never, "--format", "html"}, exitUsage, "No verdict (none of the run&#39;s faults took effect)"},
		// A what-if flag that keeps the trigger from happening is named.
		{[]string{"run", "consensus-pause", "--work", "2s"}, exitUsage, "with --work 2s the run never reached them"},
	} {
		code, out, errs := runCLI(c.args...)
		if c.code == exitUsage && strings.Contains(out, "No violations found") {
			t.Errorf("%v: exit %d, but the report says No violations found", c.args, code)
		}
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d (want %d), want %q in\n%.600s\n%s", c.args, code, c.code, c.want, out, errs)
		}
	}
}

// fileWriter returns a function writing a file named name with text in
// dir and returning its path; a write that fails fails the test.
func fileWriter(t testing.TB, dir string) func(name, text string) string {
	return func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}
