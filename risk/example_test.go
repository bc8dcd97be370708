package risk_test

import (
	"fmt"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/risk"
)

// A CI property over your settings: the upper bound of mutual exclusion's
// risk per acquisition must stay under a target in your environment.
func Example() {
	res, err := risk.Run(risk.Config{
		Spec:       model.Spec{Design: "watchdog"},
		Profile:    risk.Default(),
		Runs:       40,
		Seed:       1,
		Method:     risk.Plain,
		Invariants: []invariant.ID{invariant.MutualExclusion},
	})
	if err != nil {
		panic(err)
	}
	e := res.Estimates[0]
	fmt.Println(e.ID, "broken in", e.Hits, "runs; upper bound under 0.2:", e.CI95High < 0.2)
	// Output: mutual-exclusion broken in 0 runs; upper bound under 0.2: true
}
