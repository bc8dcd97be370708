package risk

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"
)

// Dist is a distribution of durations given by quantiles: points (P, V)
// with P rising from 0 (the smallest value) to 1 (the largest). Between two
// points the value is log-uniform (uniform when the lower one is 0), so a
// segment's probability is the difference of its P's and its shape does not
// depend on how likely it is: a sampler that reweights segments changes a
// draw's density by the segment's weight ratio alone.
type Dist struct {
	Points []Quantile
}

// Quantile is one point of a Dist: P of the values are at most V.
type Quantile struct {
	P float64
	V time.Duration
}

// MaxDuration bounds every duration a profile gives (a day): a run's virtual
// horizon is far shorter, and a longer value is a typing error.
const MaxDuration = 24 * time.Hour

// MaxPoints bounds the quantiles or histogram buckets of one distribution.
const MaxPoints = 1000

// segments is the number of segments (len(Points)-1).
func (d Dist) segments() int { return len(d.Points) - 1 }

// mass is segment i's probability.
func (d Dist) mass(i int) float64 { return d.Points[i+1].P - d.Points[i].P }

// draw returns a value of segment i, u uniform in [0, 1).
func (d Dist) inSegment(i int, u float64) time.Duration {
	lo, hi := d.Points[i].V, d.Points[i+1].V
	if lo == hi {
		return lo
	}
	if lo <= 0 {
		return time.Duration(u * float64(hi))
	}
	return time.Duration(float64(lo) * math.Pow(float64(hi)/float64(lo), u))
}

// Mean is the distribution's mean.
func (d Dist) Mean() time.Duration {
	var m float64
	for i := range d.segments() {
		lo, hi := float64(d.Points[i].V), float64(d.Points[i+1].V)
		var mean float64
		switch {
		case lo == hi:
			mean = lo
		case lo <= 0:
			mean = hi / 2
		default: // log-uniform on [lo, hi]
			mean = (hi - lo) / math.Log(hi/lo)
		}
		m += d.mass(i) * mean
	}
	return time.Duration(m)
}

// Quantile returns the value at probability p (0 <= p <= 1).
func (d Dist) Quantile(p float64) time.Duration {
	for i := range d.segments() {
		if p <= d.Points[i+1].P {
			m := d.mass(i)
			if m == 0 {
				return d.Points[i+1].V
			}
			return d.inSegment(i, (p-d.Points[i].P)/m)
		}
	}
	return d.Points[len(d.Points)-1].V
}

// Survival returns P(value > v).
func (d Dist) Survival(v time.Duration) float64 {
	var s float64
	for i := range d.segments() {
		lo, hi := d.Points[i].V, d.Points[i+1].V
		m := d.mass(i)
		switch {
		case v < lo:
			s += m
		case v >= hi || lo == hi:
		case lo <= 0:
			s += m * float64(hi-v) / float64(hi)
		default:
			s += m * math.Log(float64(hi)/float64(v)) / math.Log(float64(hi)/float64(lo))
		}
	}
	return s
}

// pick draws a segment under the weights w (summing to 1).
func pick(r *rand.Rand, w []float64) int {
	u := r.Float64()
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	// Rounding left u just above the last weight: the last segment with
	// weight.
	for i := len(w) - 1; i >= 0; i-- {
		if w[i] > 0 {
			return i
		}
	}
	return len(w) - 1
}

// Fixed is a Dist that is always v.
func Fixed(v time.Duration) Dist { return Dist{Points: []Quantile{{0, v}, {1, v}}} }

// distJSON is a Dist as a profile writes it: exactly one of the forms.
type distJSON struct {
	// Quantiles maps a probability ("0", "0.5", "0.99", "1") to the value
	// at it; "0" and "1" are required (the smallest and largest value).
	Quantiles map[string]Duration `json:"quantiles,omitempty"`
	// Histogram is counts of values at most each bound, the bounds rising;
	// Min is the smallest value (default 0).
	Histogram []Bucket  `json:"histogram,omitempty"`
	Min       *Duration `json:"min,omitempty"`
	// Fixed is a single value.
	Fixed *Duration `json:"fixed,omitempty"`
}

// Bucket is one histogram bucket: Count values in (previous Le, Le].
type Bucket struct {
	Le    Duration `json:"le"`
	Count float64  `json:"count"`
}

// UnmarshalJSON reads a distribution in any of its forms.
func (d *Dist) UnmarshalJSON(b []byte) error {
	var j distJSON
	if err := strictUnmarshal(b, &j); err != nil {
		return err
	}
	forms := 0
	for _, set := range []bool{j.Quantiles != nil, j.Histogram != nil, j.Fixed != nil} {
		if set {
			forms++
		}
	}
	if forms != 1 {
		return errors.New("give exactly one of quantiles, histogram or fixed")
	}
	switch {
	case j.Fixed != nil:
		*d = Fixed(time.Duration(*j.Fixed))
	case j.Quantiles != nil:
		if len(j.Quantiles) > MaxPoints {
			return errors.Errorf("%d quantiles, more than the limit %d", len(j.Quantiles), MaxPoints)
		}
		var pts []Quantile
		for k, v := range j.Quantiles {
			p, err := strconv.ParseFloat(k, 64)
			if err != nil || p < 0 || p > 1 || math.IsNaN(p) {
				return errors.Errorf("quantile %q is not a probability from 0 to 1", k)
			}
			pts = append(pts, Quantile{p, time.Duration(v)})
		}
		slices.SortFunc(pts, func(a, b Quantile) int {
			switch {
			case a.P < b.P:
				return -1
			case a.P > b.P:
				return 1
			}
			return 0
		})
		*d = Dist{Points: pts}
	default:
		min := time.Duration(0)
		if j.Min != nil {
			min = time.Duration(*j.Min)
		}
		h, err := FromHistogram(min, j.Histogram)
		if err != nil {
			return err
		}
		*d = h
	}
	return d.Validate()
}

// MarshalJSON writes the quantile form.
func (d Dist) MarshalJSON() ([]byte, error) {
	if len(d.Points) == 2 && d.Points[0].V == d.Points[1].V {
		v := Duration(d.Points[0].V)
		return json.Marshal(distJSON{Fixed: &v})
	}
	// Written by hand so the keys come in P order (a map would sort them
	// as strings).
	var b strings.Builder
	b.WriteString(`{"quantiles":{`)
	for i, q := range d.Points {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(strconv.FormatFloat(q.P, 'g', -1, 64)))
		b.WriteByte(':')
		b.WriteString(strconv.Quote(time.Duration(q.V).String()))
	}
	b.WriteString(`}}`)
	return []byte(b.String()), nil
}

// Validate checks the points: P from 0 to 1, rising; V not negative, not
// falling, at most MaxDuration.
func (d Dist) Validate() error {
	n := len(d.Points)
	if n < 2 {
		return errors.New("needs at least the quantiles 0 and 1 (smallest and largest value)")
	}
	if d.Points[0].P != 0 || d.Points[n-1].P != 1 {
		return errors.New("quantiles must include 0 (the smallest value) and 1 (the largest)")
	}
	for i, q := range d.Points {
		if q.V < 0 || q.V > MaxDuration {
			return errors.Errorf("value %v at quantile %g is outside 0 to %v", q.V, q.P, MaxDuration)
		}
		if i > 0 {
			if q.P <= d.Points[i-1].P {
				return errors.Errorf("quantile %g is given twice", q.P)
			}
			if q.V < d.Points[i-1].V {
				return errors.Errorf("value at quantile %g (%v) is below the value at %g (%v): quantiles cannot fall", q.P, q.V, d.Points[i-1].P, d.Points[i-1].V)
			}
		}
	}
	return nil
}

// FromHistogram turns bucket counts into a Dist: the fraction of values up
// to each bound is that bound's quantile; min is the smallest value.
func FromHistogram(min time.Duration, bs []Bucket) (Dist, error) {
	if len(bs) == 0 {
		return Dist{}, errors.New("the histogram has no buckets")
	}
	if len(bs) > MaxPoints {
		return Dist{}, errors.Errorf("%d buckets, more than the limit %d", len(bs), MaxPoints)
	}
	var total float64
	for i, b := range bs {
		if b.Count < 0 || math.IsNaN(b.Count) || math.IsInf(b.Count, 0) {
			return Dist{}, errors.Errorf("bucket %d (le %v) has count %v: counts are 0 or more", i+1, time.Duration(b.Le), b.Count)
		}
		if time.Duration(b.Le) < min || (i > 0 && b.Le <= bs[i-1].Le) {
			return Dist{}, errors.Errorf("bucket %d (le %v): bounds must rise from min %v", i+1, time.Duration(b.Le), min)
		}
		total += b.Count
	}
	if total == 0 {
		return Dist{}, errors.New("the histogram counts nothing")
	}
	pts := []Quantile{{0, min}}
	var cum float64
	for _, b := range bs {
		cum += b.Count
		if b.Count == 0 {
			continue // no mass: the next bucket's segment starts lower
		}
		pts = append(pts, Quantile{cum / total, time.Duration(b.Le)})
	}
	pts[len(pts)-1].P = 1 // exactly, whatever rounding did
	// A first bucket whose bound equals min has mass at min: keep it as a
	// point mass segment.
	return Dist{Points: pts}, nil
}

// Duration is a time.Duration written as a string ("5ms", "1.5s").
type Duration time.Duration

// UnmarshalJSON reads a duration string, 0 to MaxDuration.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("a duration is a string such as \"5ms\" or \"1.5s\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.Errorf("%q is not a duration (such as \"5ms\" or \"1.5s\")", s)
	}
	if v < 0 || v > MaxDuration {
		return errors.Errorf("%v is outside 0 to %v", v, MaxDuration)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }
