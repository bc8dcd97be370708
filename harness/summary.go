package harness

import (
	"fmt"
	"strings"

	"locksim/engine"
	"locksim/report"
)

// Seeds says which seeds a check's runs had: "seeds a..b" from the base
// seed and the runs made, or a shard's share of the planned runs.
func Seeds(seed uint64, runs, shard, shards, planned int) string {
	if shards > 1 {
		return fmt.Sprintf("shard %d of %d: the seeds %d+i, i %% %d == %d, of %d..%d", shard, shards, seed, shards, shard, seed, seed+uint64(max(planned, 1)-1))
	}
	return fmt.Sprintf("seeds %d..%d", seed, seed+uint64(max(runs, 1)-1))
}

// HeldText is the log of a check that held, the same lines for a model
// check and a real client's: the headline (what is checked, how many
// runs, which: ran), then report.SummaryText's lines (the runs, each
// invariant's verdict, what the drawn faults did, the coverage's
// warnings), then notes (a real client's: the library modules linked, a
// library's unseedable randomness), one a line.
func (h *Harness) HeldText(res *engine.CheckResult, ran string, notes ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s held in %d runs (%s)\n", h.Who, res.Runs, ran)
	if err := report.SummaryText(&b, res, ""); err != nil {
		b.WriteString("(no summary: " + err.Error() + ")\n")
	}
	for _, n := range notes {
		if n != "" {
			b.WriteString(n + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
