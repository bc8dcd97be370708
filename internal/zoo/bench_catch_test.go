package zoo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
)

// Executions to the first catch, per zoo pair: how many runs each search
// makes before one breaks the mutant. "random" is `check`'s runs in order
// (engine.CheckConfig.RunSpec: run i's configuration and faults drawn
// from seed 1+i); "bytes" is locksim.Fuzz's input encoding (scenarios.ByteDraws
// over the input, the run seed its hash) fed random 64-byte inputs from a
// seeded source: what `go test -fuzz` executes before coverage guidance
// has anything to go on, so a lower bound on what the fuzzer adds, not a
// measure of it. Both run the same generator under the pair's options.

// catchCap bounds the runs each search makes per mutant.
const catchCap = 300

// catchBudget bounds the whole row group's wall time.
const catchBudget = 60 * time.Second

// catchSearch yields run i's spec and seed for one search.
type catchSearch func(i int) (model.Spec, uint64)

// zooSearches returns the random and byte-draw searches for a mutant's
// check options, and the invariants that count.
func zooSearches(t testing.TB, m mutant) (random, bytes catchSearch, counted []invariant.ID) {
	cc, err := locksim.CheckPlan(m.design, append(slices.Clone(m.opts), m.mutOpts...)...)
	if err != nil {
		t.Fatal(err)
	}
	counted = invariant.All
	if len(cc.Invariants) > 0 {
		counted = cc.Invariants // parsed by CheckPlan
	}
	random = cc.RunSpec
	bytes = func(i int) (model.Spec, uint64) {
		r := rand.New(rand.NewPCG(uint64(i), 0xb17e5))
		data := make([]byte, 64)
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		return cc.Gen.RunDraws(scenarios.ByteDraws(data), cc.Base), locksim.FuzzSeed(data)
	}
	return random, bytes, counted
}

// firstCatch runs search until a run breaks a counted invariant and
// returns how many runs that took (1 = the first), or 0 when none of the
// first catchCap did or the deadline came first.
func firstCatch(search catchSearch, counted []invariant.ID, deadline time.Time) int {
	for i := range catchCap {
		if time.Now().After(deadline) { // wall-clock ok: a benchmark report's bound
			return 0
		}
		s, seed := search(i)
		out, err := model.Verdict(s, seed)
		if err != nil || out.Err != nil {
			continue
		}
		for _, id := range invariant.Broken(out.Violations) {
			if slices.Contains(counted, id) {
				return i + 1
			}
		}
	}
	return 0
}

// benchFirstCatch prints the row group: per pair, the runs to the first
// catch under each search, bounded to catchBudget in all.
func benchFirstCatch(t *testing.T) {
	deadline := time.Now().Add(catchBudget) // wall-clock ok: a benchmark report's bound
	fmt.Printf("\nexecutions to the first catch, per pair (random: check's runs; bytes: locksim.Fuzz's encoding over seeded random inputs, no coverage guidance; at most %d each, %v in all):\n", catchCap, catchBudget)
	word := func(n int) string {
		if n == 0 {
			return fmt.Sprintf(">%d", catchCap)
		}
		return fmt.Sprint(n)
	}
	sum := [2]int{}
	caught := [2]int{}
	for _, m := range zoo() {
		if time.Now().After(deadline) {
			fmt.Printf("  (the rest skipped: the %v budget ran out)\n", catchBudget)
			break
		}
		random, bytes, counted := zooSearches(t, m)
		r, b := firstCatch(random, counted, deadline), firstCatch(bytes, counted, deadline)
		for i, n := range []int{r, b} {
			if n > 0 {
				caught[i]++
				sum[i] += n
			}
		}
		fmt.Printf("  %-62s random %5s   bytes %5s\n", m.name, word(r), word(b))
	}
	fmt.Printf("  caught within %d runs: random %d, bytes %d; runs to the first catch summed over those caught: random %d, bytes %d\n",
		catchCap, caught[0], caught[1], sum[0], sum[1])
}

// TestFirstCatchCounts: both searches catch a mutant the zoo catches at
// once, in a count a rerun reproduces, and neither catches its twin.
func TestFirstCatchCounts(t *testing.T) {
	m := zoo()[0]
	far := time.Now().Add(time.Hour)
	random, bytes, counted := zooSearches(t, m)
	r, b := firstCatch(random, counted, far), firstCatch(bytes, counted, far)
	if r == 0 || b == 0 {
		t.Fatalf("%s: runs to the first catch: random %d, bytes %d (0: none in %d)", m.name, r, b, catchCap)
	}
	if r2 := firstCatch(random, counted, far); r2 != r {
		t.Fatalf("random: %d runs, then %d: not deterministic", r, r2)
	}
	twin := m
	twin.design, twin.mutOpts = m.twin, m.twinOpts
	tr, tb, tc := zooSearches(t, twin)
	if n, k := firstCatch(tr, tc, far), firstCatch(tb, tc, far); n != 0 || k != 0 {
		t.Fatalf("the twin broke: random at run %d, bytes at run %d", n, k)
	}
	t.Logf("%s: random %d, bytes %d", m.name, r, b)
}
