package realclient

import (
	"flag"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// rapidTB is what Check hands rapid: the test itself under -v or
// -rapid.v, else quietTB over it. rapid replays the failing case with its
// every draw logged through Logf ("[rapid] draw seed: 0x..."); the failure
// report already says what was drawn (the configuration, the schedule and
// the seed), so those lines only bury it. (rapid reads the test's deadline
// only from a *testing.T; under quietTB shrinking is bounded by
// -rapid.shrinktime alone, 30s by default.)
func rapidTB(t *testing.T) rapid.TB {
	if testing.Verbose() || flagOn("rapid.v") {
		return t
	}
	return quietTB{t}
}

// quietTB drops rapid's draw lines from a test's log and passes the rest.
type quietTB struct{ rapid.TB }

// Logf logs, unless the line is one of rapid's draws.
func (q quietTB) Logf(format string, args ...any) {
	if strings.HasPrefix(format, "[rapid] draw ") {
		return
	}
	q.TB.Helper()
	q.TB.Logf(format, args...)
}

// flagOn reports whether the boolean flag name is registered and set.
func flagOn(name string) bool {
	f := flag.Lookup(name)
	return f != nil && f.Value.String() == "true"
}
