// Package verdict is what a campaign decided, as one type: held, broken,
// no verdict, stuck, stopped or interrupted, with the reason in the words
// every report uses, room for an estimate (a rate with its interval) and
// for the certain/possible verdicts of production logs, and the exit code
// the CLI returns for it.
//
// It is decided in one place, Decide, from the facts a result states of
// itself (engine.CheckResult.Verdict, engine.ExhaustiveResult.Verdict,
// logcheck.Result.Verdict); callers switch on Kind and renderers (package
// report) write Line. The package imports nothing of locksim's, so every
// layer can name a verdict.
//
// Invariant: Decide is the only function that ranks the facts; a caller
// that finds itself testing FirstError before Failed() wants a Verdict.
//
//	switch v := res.Verdict(); v.Kind {
//	case verdict.Held:
//		// the evidence: log it
//	case verdict.Broken:
//		// save and show the minimal case
//	default:
//		return v.ExitCode(), errors.New(v.String()) // "no verdict: ...", "run 3 (seed 4) stopped: ..."
//	}
//
// Files: doc.go (this), verdict.go (Kind, Certainty, Estimate, Facts,
// Decide, Verdict and its exit codes).
package verdict
