package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"locksim/scenarios"
)

// Every locksim command a scenario's story quotes runs, and exits as the
// story says when it says: the story is what a learner reads after `locksim
// run` (new-user trial: consensus-fast-leader tells the raft lease
// breaking while its own design, Redlock, holds; the story now says which
// command shows which). A command that says no exit must not be refused.
func TestStoryCommandsRun(t *testing.T) {
	quoted := regexp.MustCompile("`(locksim [^`]+)`([^`]*)")
	exit := regexp.MustCompile(`^[^.;:]*?(?:\(exit (\d)\)|exits (\d))`)
	n := 0
	for _, s := range scenarios.All() {
		text := strings.Join(strings.Fields(s.Text), " ")
		for _, m := range quoted.FindAllStringSubmatch(text, -1) {
			args := strings.Fields(m[1])[1:]
			want := -1
			if e := exit.FindStringSubmatch(m[2]); e != nil {
				want, _ = strconv.Atoi(e[1] + e[2])
			}
			code, _, errs := runCLI(args...)
			n++
			switch {
			case want >= 0 && code != want:
				t.Errorf("%s's story: `%s` exits %d, the story says %d\n%s", s.Name, m[1], code, want, errs)
			case want < 0 && code != exitSafe && code != exitViolation:
				t.Errorf("%s's story: `%s` exits %d\n%s", s.Name, m[1], code, errs)
			}
		}
	}
	if n < 4 {
		t.Errorf("the stories quote %d commands; the test reads none of them", n)
	}
}
