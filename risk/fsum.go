package risk

import "math"

// Sum adds float64s exactly: it keeps the running total as a list of
// non-overlapping partials (Shewchuk's algorithm, as Python's math.fsum),
// so Value is the correctly rounded sum of everything added, whatever the
// order. That is what lets shards merge into the same bytes as one
// process: a plain float sum depends on the order of its terms.
type Sum struct {
	// Partials are non-overlapping and increasing in magnitude; their
	// exact sum is the exact sum of every value added.
	Partials []float64 `json:"partials,omitempty"`
}

// Add adds x (finite) to the sum.
func (s *Sum) Add(x float64) {
	i := 0
	for _, y := range s.Partials {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		lo := y - (hi - x)
		if lo != 0 {
			s.Partials[i] = lo
			i++
		}
		x = hi
	}
	s.Partials = append(s.Partials[:i], x)
}

// Merge adds every value another sum holds.
func (s *Sum) Merge(o Sum) {
	for _, p := range o.Partials {
		s.Add(p)
	}
}

// Value is the correctly rounded exact sum (round half to even).
func (s Sum) Value() float64 {
	p := s.Partials
	n := len(p)
	if n == 0 {
		return 0
	}
	hi := p[n-1]
	lo := 0.0
	j := n - 1
	for j > 0 {
		x, y := hi, p[j-1]
		j--
		hi = x + y
		lo = y - (hi - x)
		if lo != 0 {
			break
		}
	}
	// Round half to even across the rest of the partials: if the
	// remaining partials push lo past a half-way point, adjust hi.
	if j > 0 && ((lo < 0 && p[j-1] < 0) || (lo > 0 && p[j-1] > 0)) {
		y := lo * 2
		x := hi + y
		if y == x-hi {
			hi = x
		}
	}
	return hi
}
