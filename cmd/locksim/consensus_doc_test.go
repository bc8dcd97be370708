package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestConsensusDocCommands runs every `locksim ...` line of the sh blocks
// in docs/consensus.md and checks the exit code its `# (exit N)` note
// documents.
func TestConsensusDocCommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "consensus.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	n := 0
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		for _, l := range strings.Split(block[1], "\n") {
			if !strings.HasPrefix(l, "locksim ") {
				continue
			}
			m := exitNote.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("docs/consensus.md does not say how %q exits: add (exit N)", l)
				continue
			}
			want, _ := strconv.Atoi(m[1])
			cmdPart, _, _ := strings.Cut(l, " #")
			args := shellWords(cmdPart)[1:]
			if args[0] == "check" || args[0] == "sweep" {
				args = append(args, "--progress=false")
			}
			n++
			if code, out, errs := runCLI(args...); code != want {
				t.Errorf("%s: exit %d, docs/consensus.md says %d\n%.400s\n%.400s", strings.TrimSpace(cmdPart), code, want, out, errs)
			}
		}
	}
	if n < 8 {
		t.Fatalf("found only %d commands in docs/consensus.md", n)
	}
}
