// Package harness is the one test harness behind locksim.Check,
// locksim.Fuzz and realclient's Check and Fuzz: the saved case replayed
// first (Harness.ReplaySaved), the campaign run through engine.Check and
// decided by its typed verdict (Harness.Campaign), the failure shrunk,
// its case file saved and its HTML report written (Harness.Save), and the
// failure message and log (Harness.Fail, FailureReport), the held log
// (HeldText). rapid's runs and the fuzzer's go through the engine too
// (engine.Inputs, Harness.Input). The adapters
// only say how a run is made (a model design, or a real Go client through
// engine.CheckConfig.Run) and how their messages name what is checked.
//
//	h := &harness.Harness{Prefix: "locksim", Who: "design fenced", Design: "fenced",
//		CaseDir: "testdata/locksim", Rerun: func(c engine.Case) (*model.Result, error) { return c.Replay(nil) }}
//	if !h.ReplaySaved(t) {
//		h.Campaign(t, cfg, func(res *engine.CheckResult) string { return "held" })
//	}
//
// Files:
//   - doc.go: this map.
//   - files.go: case and report file names (CaseName), the report
//     directory (ReportDirEnv, SaveReport).
//   - harness.go: Harness: replay-first, campaign, one outside input
//     (Input: rapid's draws, the fuzzer's bytes, through engine.Inputs),
//     save, failure message.
//   - summary.go: HeldText, the held log of a model check and a real
//     client's alike (report.SummaryText's lines, then the adapter's
//     notes), and Seeds, its run range.
//   - options.go: the shared check options (Settings, Option, WithTTL
//     ... WithDurations) that locksim and realclient adapt, and their
//     table (OptionTable, OptionsDoc: docs/options.md).
//   - failure.go: FailureReport, the failure log of one run.
//   - fuzz.go: the fuzzer's seed corpus (Corpus) and an input's seed
//     (FuzzSeed).
package harness
