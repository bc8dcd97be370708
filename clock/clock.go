package clock

import (
	"math"
	"sort"
	"time"

	"github.com/pkg/errors"
)

// Epoch is the wall-clock instant at true time zero for a clock with no
// offset. It is fixed so that every run prints the same wall times.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// MaxRatePPM bounds drift to +-50%: beyond that a "clock" is not a clock and
// the inverse functions below lose precision.
const MaxRatePPM = 500_000

// Jump is a step change of a wall clock at a true instant.
type Jump struct {
	// At is the true time of the jump.
	At time.Duration
	// By is the step: positive jumps forward, negative backward.
	By time.Duration
}

// Config describes one clock. The zero Config is a perfect clock.
type Config struct {
	// Offset is added to the wall clock at every instant.
	Offset time.Duration
	// RatePPM is the drift in parts per million: +10_000 runs 1% fast,
	// -10_000 runs 1% slow. It affects both Mono and Wall. Range +-500_000.
	RatePPM int64
	// Jumps are wall-clock steps; Mono ignores them. Any order; New sorts.
	Jumps []Jump
}

// Clock is one party's clock. It is immutable after New except through
// AddJump, which the simulation calls only for jumps at or after the current
// true time.
type Clock struct {
	offset   time.Duration
	monoBase time.Duration // keeps Mono continuous across SetRatePPM
	ratePPM  int64
	jumps    []Jump // sorted by At, stable
}

// New validates cfg and returns its clock.
func New(cfg Config) (*Clock, error) {
	if cfg.RatePPM < -MaxRatePPM || cfg.RatePPM > MaxRatePPM {
		return nil, errors.Errorf("rate_ppm %d out of range [-%d, %d]", cfg.RatePPM, MaxRatePPM, MaxRatePPM)
	}
	for i, j := range cfg.Jumps {
		if j.At < 0 {
			return nil, errors.Errorf("jumps[%d].at %v is negative", i, j.At)
		}
	}
	c := &Clock{offset: cfg.Offset, ratePPM: cfg.RatePPM, jumps: append([]Jump(nil), cfg.Jumps...)}
	sort.SliceStable(c.jumps, func(a, b int) bool { return c.jumps[a].At < c.jumps[b].At })
	return c, nil
}

// Perfect returns a clock with no offset, drift or jumps.
func Perfect() *Clock { return &Clock{} }

// RatePPM returns the clock's drift in parts per million.
func (c *Clock) RatePPM() int64 { return c.ratePPM }

// SetRatePPM changes the drift from true time `at` on, keeping Mono and
// Wall continuous at `at`. Readings before `at` are not preserved: call it
// only at the current true time, as the simulation does.
func (c *Clock) SetRatePPM(at time.Duration, ppm int64) error {
	if ppm < -MaxRatePPM || ppm > MaxRatePPM {
		return errors.Errorf("rate_ppm %d out of range [-%d, %d]", ppm, MaxRatePPM, MaxRatePPM)
	}
	delta := drift(at, c.ratePPM) - drift(at, ppm)
	c.offset += delta
	c.monoBase += delta
	c.ratePPM = ppm
	return nil
}

// AddJump schedules a wall-clock step. Jumps are kept sorted by At.
func (c *Clock) AddJump(j Jump) {
	i := sort.Search(len(c.jumps), func(i int) bool { return c.jumps[i].At > j.At })
	c.jumps = append(c.jumps, Jump{})
	copy(c.jumps[i+1:], c.jumps[i:])
	c.jumps[i] = j
}

// drift returns t*ppm/1e6 without overflowing for runs up to ~2.9e5 hours.
func drift(t time.Duration, ppm int64) time.Duration {
	if ppm == 0 {
		return 0
	}
	q, r := int64(t)/1_000_000, int64(t)%1_000_000
	return time.Duration(q*ppm + r*ppm/1_000_000)
}

// Mono returns the monotonic reading at true time t: drifted elapsed time,
// no offset, no jumps.
func (c *Clock) Mono(t time.Duration) time.Duration {
	return t + drift(t, c.ratePPM) + c.monoBase
}

// Local returns the wall-clock reading at true time t as a duration since
// Epoch: offset + drifted time + the jumps at or before t.
func (c *Clock) Local(t time.Duration) time.Duration {
	l := c.offset + t + drift(t, c.ratePPM)
	for _, j := range c.jumps {
		if j.At > t {
			break
		}
		l += j.By
	}
	return l
}

// Wall returns the wall-clock reading at true time t.
func (c *Clock) Wall(t time.Duration) time.Time { return Epoch.Add(c.Local(t)) }

// TrueAfterMono returns the earliest true time >= now at which the
// monotonic clock has advanced by d since now. d <= 0 returns now.
func (c *Clock) TrueAfterMono(now, d time.Duration) time.Duration {
	if d <= 0 {
		return now
	}
	target := c.Mono(now) + d
	return c.trueForMono(now, target)
}

// trueForMono inverts Mono: the least t >= from with Mono(t) >= target.
func (c *Clock) trueForMono(from, target time.Duration) time.Duration {
	// Mono is strictly increasing and linear: solve, then fix rounding.
	est := time.Duration(math.Floor(float64(target-c.monoBase) / (1 + float64(c.ratePPM)/1e6)))
	if est < from {
		est = from
	}
	for est > from && c.Mono(est-1) >= target {
		est--
	}
	for c.Mono(est) < target {
		est++
	}
	return est
}

// TrueForLocal returns the earliest true time >= from at which the wall
// clock reads at least target (a duration since Epoch), and false if it
// never does within limit. Jumps make Local non-monotonic; the answer is
// the first crossing.
func (c *Clock) TrueForLocal(from, target, limit time.Duration) (time.Duration, bool) {
	if c.Local(from) >= target {
		return from, true
	}
	// Walk the linear pieces between jumps after `from`.
	start := from
	for i := 0; ; i++ {
		end := limit
		next := -1
		for k, j := range c.jumps {
			if j.At > start {
				next = k
				if j.At < end {
					end = j.At
				}
				break
			}
		}
		// On [start, end) Local is linear with slope (1+rate).
		base := c.Local(start)
		if base >= target {
			return start, true
		}
		need := target - base
		t := start + c.trueForMono(0, c.Mono(0)+need) - 0
		if t < end {
			// Correct rounding against the exact function.
			for t > start && c.Local(t-1) >= target {
				t--
			}
			for c.Local(t) < target && t < end {
				t++
			}
			if c.Local(t) >= target {
				return t, true
			}
		}
		if next < 0 || end >= limit {
			return 0, false
		}
		start = end
		if i > len(c.jumps)+1 {
			return 0, false
		}
	}
}
