//go:build !race

package sim

// raceOn: the race detector is on (sync.Pool then drops a random quarter
// of what it is given, so a test cannot arrange a reuse through it).
const raceOn = false
