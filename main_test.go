package locksim

import (
	"flag"
	"os"
	"testing"
)

// TestMain pins rapid's seed when none is given (-rapid.seed or
// RAPID_SEED), so `make test` and `make long` check the same cases on every
// run and a CI failure is reproducible; pass -rapid.seed=N (or RAPID_SEED)
// to explore other cases.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("rapid.seed"); f != nil && f.Value.String() == "0" && os.Getenv("RAPID_SEED") == "" {
		f.Value.Set("20261130")
	}
	os.Exit(m.Run())
}
