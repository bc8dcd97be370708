package engine

import (
	"strings"
	"testing"

	"locksim/model"
)

// A real client's case cannot replay without its lock library: Replay
// says to use realclient.Run, not Case.Replay or the command line.
func TestReplayRealClientCaseNamesRealclientRun(t *testing.T) {
	c := Case{Spec: model.Spec{Design: RealClientPrefix + "redsync"}.WithDefaults(), Seed: 1}
	_, err := c.Replay(nil)
	if err == nil || !strings.Contains(err.Error(), "realclient.Run(t, c, yourSetup)") || strings.Contains(err.Error(), "Case.Replay") {
		t.Fatalf("Replay of a real client's case: %v, want a hint naming realclient.Run", err)
	}
}
