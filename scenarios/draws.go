package scenarios

import (
	"math/rand/v2"
	"time"

	"pgregory.net/rapid"
)

// Draws is where a generated run's choices come from: rapid, which
// shrinks them toward the low end of each range (RapidDraws), or a seeded
// generator, for check's independent, parallel, shardable runs
// (RandDraws). One Generator draws both ways, so the two cannot drift.
type Draws interface {
	// Int64Range returns a value in [lo, hi]; label names the choice in
	// rapid's logs.
	Int64Range(lo, hi int64, label string) int64
}

// RapidDraws draws from a rapid test case.
func RapidDraws(t *rapid.T) Draws { return rapidDraws{t} }

type rapidDraws struct{ t *rapid.T }

func (d rapidDraws) Int64Range(lo, hi int64, label string) int64 {
	return rapid.Int64Range(lo, hi).Draw(d.t, label)
}

// RandDraws draws from a seeded generator, biased as rapid is toward the
// edges of each range: a quarter of the draws take an end (the low end
// twice as often), a quarter a value near the low end, the rest are
// uniform. Bugs live at boundaries (a pause just over the TTL) and in small
// cases (one fault, two clients).
func RandDraws(r *rand.Rand) Draws { return randDraws{r} }

type randDraws struct{ r *rand.Rand }

func (d randDraws) Int64Range(lo, hi int64, _ string) int64 {
	if hi <= lo {
		return lo
	}
	span := uint64(hi - lo)
	switch d.r.IntN(8) {
	case 0, 1:
		return lo
	case 2:
		return hi
	case 3, 4:
		// Near the low end: within the first 1/16 of the range.
		return lo + int64(d.r.Uint64N(span/16+1))
	}
	return lo + int64(d.r.Uint64N(span+1))
}

// The draw helpers below keep every generated value in whole units, so a
// schedule prints and parses back exactly.

func intIn(d Draws, lo, hi int, label string) int {
	return int(d.Int64Range(int64(lo), int64(hi), label))
}

func flip(d Draws, label string) bool { return d.Int64Range(0, 1, label) == 1 }

// oneIn returns true with probability about 1/n (uniform draws; the
// biased generator takes the low end, 0, more often).
func oneIn(d Draws, n int, label string) bool { return d.Int64Range(0, int64(n-1), label) == 0 }

func pick[T any](d Draws, xs []T, label string) T {
	return xs[intIn(d, 0, len(xs)-1, label)]
}

// msIn draws a duration in [lo, hi] in whole milliseconds (at least 1ms).
func msIn(d Draws, lo, hi time.Duration, label string) time.Duration {
	l, h := max(int64(lo/time.Millisecond), 1), max(int64(hi/time.Millisecond), 1)
	if h < l {
		h = l
	}
	return time.Duration(d.Int64Range(l, h, label)) * time.Millisecond
}

// frac draws a duration between lo and hi times base (a fraction of the
// TTL, the call timeout, down-after), in whole milliseconds.
func frac(d Draws, base time.Duration, lo, hi float64, label string) time.Duration {
	return msIn(d, time.Duration(float64(base)*lo), time.Duration(float64(base)*hi), label)
}

// ByteDraws draws from fuzzer input: each choice reads as many bytes as
// its range needs (big-endian, taken modulo the range), and once the input
// is used up every choice takes its low end, so a short input is a small
// run and every input is a valid one. Go's fuzzer (go test -fuzz) mutates
// the bytes guided by the coverage they reach, in the design's code and in
// locksim's (the checkers' branches, the node states).
func ByteDraws(data []byte) Draws { return &byteDraws{data: data} }

type byteDraws struct{ data []byte }

func (d *byteDraws) Int64Range(lo, hi int64, _ string) int64 {
	if hi <= lo || len(d.data) == 0 {
		return lo
	}
	span := uint64(hi - lo)
	var v uint64
	for need := span; need > 0 && len(d.data) > 0; need >>= 8 {
		v = v<<8 | uint64(d.data[0])
		d.data = d.data[1:]
	}
	if span == ^uint64(0) {
		return lo + int64(v)
	}
	return lo + int64(v%(span+1))
}
