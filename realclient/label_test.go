package realclient

import (
	"context"
	"os"
	"runtime/pprof"
	"testing"
)

// TestGoroutineLabel: the label attribution reads (goroutineLabel) is read
// back from the calling goroutine, by the runtime's label pointer (whose
// layout is checked on this Go) and by the stack header fallback alike,
// and a goroutine the labelled one starts inherits it.
func TestGoroutineLabel(t *testing.T) {
	t.Setenv("GODEBUG", os.Getenv("GODEBUG")+",tracebacklabels=1")
	if !labelsLayoutOK() {
		t.Fatal("runtime/pprof's label layout is not the one profLabels mirrors: attribution falls back to stack headers (slow); update profLabels")
	}
	got := make(chan [2]string)
	go func() {
		pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels(clientLabel, "A.2", goroutineLabel, "42")))
		go func() { got <- [2]string{currentLabel(goroutineLabel), stackLabel(goroutineLabel)} }()
	}()
	if g := <-got; g != [2]string{"42", "42"} {
		t.Fatalf("inherited label read as %q (pointer) and %q (stack), want 42", g[0], g[1])
	}
	if l := currentLabel(goroutineLabel); l != "" {
		t.Fatalf("an unlabelled goroutine read %q", l)
	}
}
