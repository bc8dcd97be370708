package sim

import (
	"strings"
	"testing"
)

// A huge argument or reply is recorded cut, with its length; short ones
// are recorded as they are, without a copy.
func TestRecordedArgsBounded(t *testing.T) {
	big := strings.Repeat("x", 10*MaxRecordedBytes)
	got := boundArgs([]string{"SET", "k", big})
	if len(got[2]) > MaxRecordedBytes+40 || !strings.HasSuffix(got[2], "...(40960 bytes)") || got[1] != "k" {
		t.Errorf("bounded to %d bytes: %.40q...%q", len(got[2]), got[2], got[2][len(got[2])-20:])
	}
	short := []string{"GET", "k"}
	if b := boundArgs(short); &b[0] != &short[0] {
		t.Error("short arguments were copied")
	}
	if boundText(big) == big || boundText("OK") != "OK" {
		t.Error("boundText")
	}
}
