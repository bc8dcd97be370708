package script

import (
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// epoch is the fixed node time of every test.
var epoch = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// newNode returns a fresh miniredis with a fixed clock, wrapped in an Engine.
func newNode(t testing.TB, opts Options) (*miniredis.Miniredis, *Engine) {
	t.Helper()
	m := miniredis.NewMiniRedis()
	m.Seed(1)
	m.SetTime(epoch)
	m.ClockTTL(true)
	e, err := NewEngine(m, opts)
	if err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	t.Cleanup(m.Close)
	return m, e
}
