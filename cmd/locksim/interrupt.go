package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"locksim/internal/atomicfile"
)

// interruptSignals stop a campaign (check, check --exhaustive, matrix,
// sweep, risk, advise) cleanly: the runs under way finish, a partial
// summary marked PARTIAL is printed, an output file keeps its previous
// contents, no case is saved, and the exit code is exitInterrupted. They
// are SIGINT, SIGTERM and SIGHUP (hangupSignal; js/wasm, the lab's build,
// has no SIGHUP).
var interruptSignals = append([]os.Signal{os.Interrupt, syscall.SIGTERM}, hangupSignal...)

// graceful counts the campaigns under way that stop cleanly on a signal:
// while one is, exitOnSignal leaves the signal to it.
var graceful atomic.Int32

// interruptContext is done at the first of interruptSignals; stop
// unregisters it. A campaign that a signal stopped stays graceful after
// stop: it goes on to print its partial summary and return
// exitInterrupted, and main's handler, which gets the same signal and may
// run only after stop (a loaded machine), must not exit half way through
// that summary (it did: "hangup: stopped" after the summary's first line).
func interruptContext() (ctx context.Context, stop func()) {
	graceful.Add(1)
	ctx, cancel := signal.NotifyContext(context.Background(), interruptSignals...)
	return ctx, func() {
		interrupted := ctx.Err() != nil
		cancel()
		if !interrupted {
			graceful.Add(-1)
		}
	}
}

// exitOnSignal is main's handler for the commands that do not stop
// cleanly (run, replay, merge, ...): at a signal it removes the temporary
// files this process was writing (atomicfile.Cleanup; an output keeps its
// previous contents) and exits with exitInterrupted.
func exitOnSignal(stderr io.Writer) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, interruptSignals...)
	go func() {
		for sig := range ch {
			if graceful.Load() > 0 {
				continue // the campaign stops itself
			}
			atomicfile.Cleanup()
			fmt.Fprintf(stderr, "locksim: %v: stopped; no output was written (an output file is as it was before)\n", sig)
			os.Exit(exitInterrupted)
		}
	}()
}

// partialTo is where an interrupted campaign prints its partial summary,
// as text: stdout, unless stdout carries the output in a machine format
// (json, markdown, html, svg), which the text would corrupt: then stderr.
func partialTo(out, format string, stdout, stderr io.Writer) io.Writer {
	if out != "" && out != "-" || format == "text" {
		return stdout
	}
	return stderr
}
