package locksim_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"locksim"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// FuzzFencedKeepsTheData is docs/search.md's example: the fenced design
// whose resource also checks the token of each read (strict-reads) loses
// no update, whatever pauses and delays the fuzzer draws (with write-only
// fencing its lost updates are real: a stale holder that writes before
// the next holder's first write is accepted). Plain `go test` runs its
// seed corpus; `go test -fuzz=FuzzFencedKeepsTheData` explores.
func FuzzFencedKeepsTheData(f *testing.F) {
	locksim.Fuzz(f, "fenced", locksim.WithFencing(model.FenceStrictReads), locksim.WithFaults(sim.FaultPause, sim.FaultDelay),
		locksim.WithInvariants(invariant.LostUpdate))
}

// FuzzUserDesign fuzzes the design LOCKSIM_FUZZ_DESIGN names (run by
// TestFuzzCatchesABrokenDesign).
func FuzzUserDesign(f *testing.F) {
	d := os.Getenv("LOCKSIM_FUZZ_DESIGN")
	if d == "" {
		f.Skip("run by TestFuzzCatchesABrokenDesign")
	}
	ids, err := invariant.Parse(os.Getenv("LOCKSIM_FUZZ_INVARIANTS"))
	if err != nil {
		f.Fatal(err)
	}
	locksim.Fuzz(f, d, locksim.WithCaseDir(os.Getenv("LOCKSIM_FUZZ_CASES")), locksim.WithFaults(sim.FaultPause),
		locksim.WithInvariants(ids...))
}

// A broken design fails under plain `go test` already, on Fuzz's seed
// corpus, with a shrunk schedule, the explanation and a saved case; a
// correct one passes; an invariant the design cannot break is refused
// as Check refuses it (passing would be a "held" that judged nothing).
func TestFuzzCatchesABrokenDesign(t *testing.T) {
	for _, tc := range []struct {
		design, invariant string
		fails             bool
		says              string
	}{
		{"set-px-lua", "mutual-exclusion", true, "fault schedule:"},
		{"fenced", "token-unique", false, ""},
		{"fenced", "fencing", true, "invariant fencing cannot apply to design fenced"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^FuzzUserDesign$", "-test.count=1")
		cmd.Env = append(os.Environ(), "LOCKSIM_FUZZ_DESIGN="+tc.design, "LOCKSIM_FUZZ_INVARIANTS="+tc.invariant, "LOCKSIM_FUZZ_CASES="+t.TempDir())
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		text := string(out)
		if (err != nil) != tc.fails {
			t.Errorf("%s: failed = %v, want %v:\n%s", tc.design, err != nil, tc.fails, text)
			continue
		}
		if tc.fails && !strings.Contains(text, tc.says) {
			t.Errorf("%s/%s: the failure does not say %q:\n%s", tc.design, tc.invariant, tc.says, text)
		}
		if tc.says == "fault schedule:" && !strings.Contains(text, "locksim: design "+tc.design+" broke") {
			t.Errorf("%s: the failure lacks its message:\n%s", tc.design, text)
		}
	}
}
