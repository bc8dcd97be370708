package engine

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
	"locksim/sim"
)

// Unit is what an axis's values measure.
type Unit string

// The axis units.
const (
	UnitDuration Unit = "duration" // nanoseconds, written 250ms, 1.5s
	UnitPPM      Unit = "ppm"      // a clock rate, parts per million
	UnitFactor   Unit = "factor"   // a fraction, written 0.01
)

// Axis is one parameter of a sweep and the values it takes, in
// increasing order.
type Axis struct {
	Name   string
	Unit   Unit
	Values []float64
	// Log says the values are spaced evenly on a log scale (for reference
	// lines between them).
	Log bool
}

// MaxAxisSteps bounds the values of one sweep axis.
const MaxAxisSteps = 50

// ParseAxis reads an axis's values: a list ("250ms,500ms,1s") or a range
// "FROM:TO:STEPS[:log]" ("100ms:5s:20:log"; linear without :log). A
// duration or a factor must be above 0: a zero would run the design's
// default under the zero's label (a cell "ttl=0s" that ran a 1s TTL).
func ParseAxis(name string, unit Unit, s string) (Axis, error) {
	a, err := parseAxis(name, unit, s)
	if err == nil && unit != UnitPPM && a.Values[0] <= 0 {
		err = errors.Errorf("axis %s %q: every %s must be above 0 (0 would run the default in its place)", name, s, unit)
	}
	return a, err
}

func parseAxis(name string, unit Unit, s string) (Axis, error) {
	a := Axis{Name: name, Unit: unit}
	bad := func(why string) (Axis, error) {
		return Axis{}, errors.Errorf("axis %s %s: %s (want a list like 250ms,1s or a range FROM:TO:STEPS[:log])", name, bounded.Q(s), why)
	}
	if strings.Contains(s, ":") {
		p := strings.Split(s, ":")
		if len(p) < 3 || len(p) > 4 || len(p) == 4 && p[3] != "log" && p[3] != "linear" {
			return bad("a range has three or four parts")
		}
		from, err1 := parseValue(unit, p[0])
		to, err2 := parseValue(unit, p[1])
		n, err3 := strconv.Atoi(p[2])
		switch {
		case err1 != nil || err2 != nil:
			return bad("not a " + string(unit))
		case err3 != nil || n < 2 || n > MaxAxisSteps:
			return bad("steps must be 2 to " + strconv.Itoa(MaxAxisSteps))
		case to <= from:
			return bad("TO must be above FROM")
		}
		a.Log = len(p) == 4 && p[3] == "log"
		if a.Log && from <= 0 {
			return bad("a log range starts above 0")
		}
		for i := range n {
			f := float64(i) / float64(n-1)
			v := from + f*(to-from)
			if a.Log {
				v = from * math.Pow(to/from, f)
			}
			if v = round(unit, v); len(a.Values) == 0 || v > a.Values[len(a.Values)-1] {
				a.Values = append(a.Values, v) // rounding may merge close values
			}
		}
		return a, nil
	}
	for _, w := range strings.Split(s, ",") {
		v, err := parseValue(unit, strings.TrimSpace(w))
		if err != nil {
			return bad("not a " + string(unit))
		}
		if len(a.Values) > 0 && v <= a.Values[len(a.Values)-1] {
			return bad("values must increase")
		}
		a.Values = append(a.Values, v)
	}
	if len(a.Values) == 0 || len(a.Values) > MaxAxisSteps {
		return bad("1 to " + strconv.Itoa(MaxAxisSteps) + " values")
	}
	return a, nil
}

func parseValue(unit Unit, s string) (float64, error) {
	if unit == UnitDuration {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 || d > 24*time.Hour {
			return 0, errors.New("bad duration")
		}
		return float64(d), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < -1e6 || v > 1e6 {
		return 0, errors.New("bad number")
	}
	return v, nil
}

// round keeps generated values readable: two significant digits
// (durations at least 1us), so labels read 1.1s rather than 1.076s.
func round(unit Unit, v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 1-math.Floor(math.Log10(math.Abs(v))))
	r := math.Round(v*p) / p
	if unit == UnitDuration {
		r = math.Max(float64(time.Microsecond), math.Round(r/float64(time.Microsecond))*float64(time.Microsecond))
	}
	return r
}

// Label renders value i for people.
func (a Axis) Label(i int) string {
	v := a.Values[i]
	switch a.Unit {
	case UnitDuration:
		return sim.FormatDuration(time.Duration(v))
	case UnitPPM:
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Dur returns value i as a duration.
func (a Axis) Dur(i int) time.Duration { return time.Duration(a.Values[i]) }

// pos returns where v falls on the axis as a fractional index (linear or
// log between neighbours), and false beyond its ends.
func (a Axis) pos(v float64) (float64, bool) {
	vs := a.Values
	if len(vs) == 0 || v < vs[0] || v > vs[len(vs)-1] {
		return 0, false
	}
	for i := 1; i < len(vs); i++ {
		if v <= vs[i] {
			lo, hi, x := vs[i-1], vs[i], v
			if a.Log && lo > 0 {
				lo, hi, x = math.Log(lo), math.Log(hi), math.Log(v)
			}
			if hi == lo {
				return float64(i), true
			}
			return float64(i-1) + (x-lo)/(hi-lo), true
		}
	}
	return float64(len(vs) - 1), true
}

func pow(a, b float64) float64 { return math.Pow(a, b) }
