package risk

import (
	"math"
	"strings"
	"testing"

	"locksim/model"
)

// Advise refuses a target that is not a probability strictly between 0
// and 1 before it runs anything: NaN compares false against every upper
// bound, so every setting would have "met" it and the first one been
// recommended (new-user trial).
func TestAdviseRefusesTargetsThatAreNotProbabilities(t *testing.T) {
	for _, target := range []float64{math.NaN(), 0, -0.1, 1, math.Inf(1), math.Inf(-1)} {
		_, err := Advise(AdviseConfig{Spec: model.Spec{Design: "set-px-lua"}, Profile: Default(), Target: target, RunsEach: MinRuns, Budget: 1})
		if err == nil || !strings.Contains(err.Error(), "give a probability above 0 and below 1") {
			t.Errorf("target %v: err %v, want a refusal of the target", target, err)
		}
	}
}
