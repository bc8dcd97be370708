package main

import (
	"strings"
	"testing"
)

// --redis names the release the nodes model: set-ifeq runs on redis-8.4
// (its default) and valkey-9.0, and is refused on redis-7.0 with the
// reason; an unknown release is refused; the report names the release.
func TestRedisReleaseFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string // in stdout, or stderr for a refusal
	}{
		{[]string{"run", "no-faults", "--design", "set-ifeq"}, exitSafe, "server redis-8.4"},
		{[]string{"run", "no-faults", "--design", "set-ifeq", "--redis", "valkey-9.0"}, exitSafe, "server valkey-9.0"},
		{[]string{"run", "gc-pause", "--design", "set-ifeq", "--redis", "redis-8.4"}, exitViolation, "mutual-exclusion"},
		{[]string{"run", "no-faults", "--design", "set-ifeq", "--redis", "redis-7.0"}, exitUsage,
			"--redis: set-ifeq sends SET IFEQ, which redis-7.0 does not have: it needs SET IFEQ (redis-8.4 or valkey-9.0)"},
		{[]string{"run", "no-faults", "--redis", "redis-6.2"}, exitUsage, `unknown server release "redis-6.2"`},
		{[]string{"run", "no-faults", "--design", "set-px-lua", "--redis", "valkey-9.0"}, exitSafe, "server valkey-9.0"},
		{[]string{"check", "--design", "set-ifeq", "--runs", "20", "--redis", "redis-7.0"}, exitUsage, "which redis-7.0 does not have"},
		{[]string{"check", "--design", "set-ifeq", "--runs", "20", "--redis", "valkey-9.0", "--faults", "none"}, exitSafe, "20 runs"},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%q: exit %d, want %d with %q:\n%s%s", tc.args, code, tc.code, tc.want, out, errs)
		}
	}
}

// locksim list names every modelled release and says what it adds.
func TestListNamesReleases(t *testing.T) {
	code, out, _ := runCLI("list")
	for _, want := range []string{"SERVER RELEASES (--redis)", "redis-7.0   the default", "redis-8.4   adds SET IFEQ", "valkey-9.0  adds SET IFEQ, DELIFEQ", "set-ifeq"} {
		if code != exitSafe || !strings.Contains(out, want) {
			t.Errorf("list: exit %d, no %q", code, want)
		}
	}
}
