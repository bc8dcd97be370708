// Package engine runs campaigns of many runs: the pipeline behind `locksim
// check`, `matrix` and `sweep` and behind locksim.Check, so the command
// line and the Go API share one engine and the CLI keeps only flags, files
// and exit codes.
//
// engine returns results (CheckResult, ExhaustiveResult, MatrixResult,
// SweepResult); package report renders them for people (SummaryText,
// SummaryMarkdown, SummaryHTML, ExhaustiveText, DangerMap, MatrixText,
// SweepText, ...). engine imports no renderer (TestEngineImportsNoRenderer).
// What stays here is the results' data forms: the JSON documents
// (JSONWriter, ExhaustiveJSON; merge reads locksim.check/v1 back), case
// files, and the sentences a result states of itself (Guarantee, Limits,
// NoVerdict), which the JSON carries.
//
//   - Check: a design under many random runs (CheckConfig). Run i uses seed
//     Seed+i; scenarios.Gen draws its configuration and faults from that
//     seed, so any run can be re-derived alone (CheckConfig.RunSpec). Runs go
//     over Workers goroutines (fanout.go: the caller's goroutine is one, and
//     each takes its next run from a shared counter, with no handoff per run)
//     and are tallied in run order, so the result does not depend on the
//     worker count; Shard/Shards select the runs with
//     index % Shards == Shard; For stops starting runs when a wall-clock
//     budget is spent (the result is deterministic given the runs reached). A
//     run that stops with an error stops the check. The first failing run is
//     shrunk (Shrink) and re-run with its history (CheckResult.Minimal);
//     NewCase makes it a case file. CheckConfig.Run is the run seam (as
//     ExhaustiveConfig.Run is exhaustive mode's): nil runs model.Verdict's
//     pooled fast path, a function runs something else, a real Go client
//     (realclient), under the same shards, budget, progress, cancellation,
//     coverage and verdict. CheckResult.Verdict and ExhaustiveResult.Verdict
//     are what a campaign decided (package verdict), with its exit code.
//   - Inputs (inputs.go): a check whose runs' specs and seeds come from
//     outside (rapid's draws, the fuzzer's bytes: locksim.Fuzz, realclient's
//     Check and Fuzz), each run going Check's way (the seam or the pooled
//     path), judged and tallied into the same CheckResult, with Progress
//     and Context; Inputs.Shrink shrinks a broken input as Check shrinks
//     its first failure.
//   - Merge: the shards of a check put back together from their JSON
//     (OpenShard reads one document's campaign and streams its runs;
//     Merge checks the documents are every shard of one campaign, each
//     once; Merged.Finish tallies the runs in run order and shrinks the
//     first failure again). The result is the unsharded check's, so its
//     summaries (report.SummaryText, SummaryMarkdown, JSONWriter) are the
//     same bytes. A Go design is only named in the JSON: set
//     Merged.Config.Base.Custom to merge its campaign.
//   - Matrix: designs x scenarios (MatrixResult, CellOf); Sweep: a
//     two-parameter map (SweepResult). A design is a model.Spec naming a catalogue design,
//     a Lua design or a Go design; InScenario puts it into a scenario. A
//     run that stops with an error is counted in its cell (Errors, Error;
//     ErrorCells), never dropped; a Context stops either between cells
//     (Interrupted), as it stops Check and Exhaustive between runs.
//   - Case, LoadCase, Replay: a run saved to a file and run again byte for
//     byte (the history hash must match).
//
// Invariant: nothing here reads the wall clock or global randomness except
// through CheckConfig.Now, for the time budget only; no run sees it.
//
// # JSON schema locksim.check/v1
//
// What `locksim check --format json` writes (JSONWriter), one object,
// streamed: the campaign first, each run as it is tallied, the summary
// last. Durations are integers in nanoseconds. A reader must ignore fields
// it does not know.
//
//	{
//	  "schema": "locksim.check/v1",
//	  "locksim": {"version": "0.4.0", "fingerprint": "0123456789abcdef",  // ThisBuild: who wrote it; merge
//	              "commit": "...", "modified": true},                     // compares the Fingerprint only
//	  "config_hash": "sha256:...",   // ConfigHash(campaign): the same in every shard of one check
//	  "campaign": {                  // Campaign: enough to re-derive every run
//	    "base": { ... },             // model.Spec: the design and fixed configuration
//	    "gen": { ... },              // scenarios.Gen: what runs draw
//	    "runs": 2000, "for_ns": 0, "seed": 1, "shard": 0, "shards": 1,
//	    "invariants": ["lost-update"],   // when only some count
//	    "shrink_runs": 200               // when not the default
//	  },
//	  "runs": [                      // RunOutcome, in run order
//	    {"index": 0, "seed": 1, "broken": ["mutual-exclusion"],
//	     "uncounted": ["liveness"], "undecided": ["liveness"], "failovers": 1, "error": "...",
//	     "faults": ["pause A for 1.5s after A write #1"],
//	     "config": "clients A,B; ttl 1s; work 50ms; ..."}
//	  ],
//	  "summary": {
//	    "design": "set-px-lua", "runs": 2000, "planned": 2000,
//	    "broken_runs": 12,
//	    "invariants": {"mutual-exclusion": 12},   // counted, runs per invariant
//	    "uncounted": {"liveness": 3},
//	    "undecided": {"liveness": 59},  // runs judged without a verdict
//	    "verdicts": [                   // CheckResult.VerdictOf, every invariant in report order
//	      {"invariant": "mutual-exclusion", "verdict": "broken", "counted": true, "broken_runs": 12},
//	      {"invariant": "liveness", "verdict": "held", "counted": true, "broken_runs": 0, "undecided_runs": 59},
//	      {"invariant": "fencing", "verdict": "not-checked", "counted": true, "broken_runs": 0,
//	       "why": "the resource is not fenced"}
//	    ],
//	    "no_verdict": "...",            // why the check judged nothing (then exit 2)
//	    "failover_runs": 40,
//	    "first_failure": { ...RunOutcome... },
//	    "minimal_schedule": ["pause A for 1.5s after A write #1"],
//	    "minimal_seed": 13,
//	    "case": "locksim-failure.json",
//	    "error": { ...RunOutcome of the run that stopped the check... }
//	  }
//	}
//
// Example:
//
//	res, err := engine.Check(engine.CheckConfig{Campaign: engine.Campaign{
//		Base: model.Spec{Design: model.Fenced, Fencing: model.FenceStrictReads},
//		Gen:  scenarios.Gen{Kinds: []sim.FaultKind{sim.FaultPause}, Swarm: true},
//		Runs: 5000, Seed: 1,
//	}})
//	if err == nil && res.Failed() {
//		report.SummaryText(os.Stdout, res, "") // report renders what engine returns
//	}
package engine
