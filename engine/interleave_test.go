package engine

import (
	"math"
	"testing"
)

func TestPCTBound(t *testing.T) {
	for _, c := range []struct {
		d, k, h int
		want    float64
	}{{1, 4, 200, 1.0 / 4}, {2, 4, 200, 1.0 / 800}, {3, 4, 200, 1.0 / 160000}, {3, 0, 200, 0}} {
		if got := PCTBound(c.d, c.k, c.h); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("PCTBound(%d, %d, %d) = %g, want %g", c.d, c.k, c.h, got, c.want)
		}
	}
}
