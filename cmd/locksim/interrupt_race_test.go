//go:build !js && !wasip1 && !windows

package main

import (
	"syscall"
	"testing"
	"time"
)

// A campaign a signal stopped stays graceful after its stop: main's
// handler (exitOnSignal), which receives the same signal and may run only
// after stop on a loaded machine, leaves the process to the campaign's
// partial summary instead of exiting half way through it (found by
// TestSignalsStopCampaignsWithAPartialSummary under load: "hangup:
// stopped" after the summary's first line). A campaign that ends without
// a signal gives the signal back to main's handler.
func TestInterruptedCampaignKeepsTheSignal(t *testing.T) {
	base := graceful.Load()
	defer graceful.Store(base)

	ctx, stop := interruptContext()
	stop()
	if got := graceful.Load(); got != base {
		t.Fatalf("a campaign that ended without a signal: graceful %d, want %d (main's handler owns signals again)", got, base)
	}

	ctx, stop = interruptContext()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute): // a hang detector, not a timing assert
		t.Fatal("SIGHUP did not reach the campaign's context")
	}
	stop()
	if got := graceful.Load(); got <= base {
		t.Errorf("a campaign a signal stopped: graceful %d after stop, want more than %d: main's handler would exit during its partial summary", got, base)
	}
}
