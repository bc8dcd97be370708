// Package report shows a run of locksim to people: where a lease broke,
// which client believed it held the lock, when the key really expired on
// which node, who was paused, which write went through with which token.
//
// It renders a finished run (a model.Result: the spec, the seed, the
// history and the checkers' violations) and two summaries over many runs.
// Every renderer writes to an io.Writer; the ...Path variants write a
// file. Output is deterministic: the same input gives the same bytes (no
// map is iterated unsorted, no wall clock, no pointers), so it can be
// compared with golden files.
//
//   - Text: the terminal report. A header (scenario, design, seed,
//     faults, the teaching text), then one lane per client (acquiring,
//     holding, the lease it believes it has, pauses and crashes, writes
//     accepted or rejected), one per Redis node (whose value the lock key
//     holds, expiries, deletions, crashes, promotions, clock jumps), the
//     resource and the network, drawn as ASCII bars over a time axis
//     (TextOptions.Width columns, default 72) with each violation's
//     window marked by '^' under the axis; a legend of the glyphs used.
//     A row's marks read left to right in time order and none hides
//     another: a mark whose column is taken moves right, the earlier ones
//     move left when the row needs room, each at most three columns from
//     its own; where even that fails, one '+' stands for several events,
//     all listed in the key events. Then the key events in order; one
//     explanation per violation (the checker's, then a retelling built
//     from the history); the saving events (held.go: why a run held, what
//     still held in one that broke, why fencing did not stop a stale
//     write, and what safety cost), every sentence generated from the
//     history's events and replies (renew.go words a failed renewal by
//     the replies the watchdog got, and tells a fault before the
//     expiries it caused at the same instant); a verdict line per
//     invariant: held, BROKEN, broken or held "(not counted)" for an
//     invariant the caller did not ask about, no verdict, and the ones
//     not checked on one line (each with its reason with
//     TextOptions.Details); then the glossary terms the report used
//     (glossary.go, docs/glossary.md). ANSI colour only with
//     TextOptions.Color. TestStoriesAgreeWithTheHistory reads the
//     reports of every catalogue scenario with every design against
//     their histories (replies, holders, owners, order, counts).
//   - JSON: the machine-readable report, schema locksim.report/v2 below.
//   - Markdown: the story for a course page or an issue (markdown.go):
//     what ran, the teaching text, the violations, why it held, the
//     verdicts as a table and the terms used with their meanings.
//   - HTML, HTMLPath: one self-contained page (inline CSS, SVG and script;
//     nothing is fetched): the verdicts as a row of badges, then the lanes
//     as a zoomable SVG timeline (buttons, mouse wheel, drag to pan; hover
//     for each event's details) with the violation windows shaded and
//     banded, then the teaching text, the explanations, the saving events,
//     the key events, the whole history and the glossary entries of the
//     terms the page links. In a 1280x800 window the badges and the whole
//     timeline show without scrolling. It opens on the span the
//     violations' story tells (cause.go; the whole run when that is most
//     of it, or with #all); a click on a violation (its band, its entry or
//     its "show" button) zooms on it, "whole run" zooms back;
//     page.html#v2 opens zoomed on violation 2. A hold past the loss of
//     its lease is drawn hollow ("believed, not held"), a command that
//     changed another client's key is a line from where it was sent to
//     where the node ran it, and marks at one instant sit side by side.
//     Violations that share a cause (group.go: everything one hold of a
//     client caused, whatever invariant each breaks: the overlaps of a
//     paused A with each of B's holds, A's stale writes, the update A's
//     late write lost) are one entry: the cause once and each consequence
//     a clause ("A was paused 1,500.0 ms from 56.1 ms; meanwhile B held
//     the lock once; B's update was lost to A's write; the resource
//     accepted one of A's writes after its lease was lost"), the facts
//     they share, a line per violation (naming its invariant when the
//     group mixes them) and the history retold once, folded; the text
//     report and ViolationsText (locksim.Check's failure log) print the
//     same block, and the JSON keeps every violation with the groups
//     beside them. The resource row draws the reads it
//     served next to the writes it applied (a lost update is a read that
//     missed a write), and each answered write is a line from where the
//     client prepared it (dashed while it waited to be sent) to where the
//     resource answered. The page shows times in milliseconds with one
//     decimal ("1,049.1 ms"), the exact value in each one's title; the
//     legend names every mark kind drawn. The templates are embedded from
//     templates/.
//   - MatrixText, MatrixMarkdown, MatrixHTML: the designs x scenarios
//     table (Matrix, Cell: engine.MatrixResult, filled by engine.Matrix), each cell held, broken (with the first
//     violation's explanation and the seed that showed it), n/a with a
//     reason, or not run. A broken cell says whether the data was lost
//     (lost-update broke: '!', ❌ in Markdown, red in HTML) or only the
//     lease broke while the data held (mutual exclusion, a stale write,
//     token uniqueness, fencing, liveness or reentrancy: '~', ⚠️, amber). With Matrix.Brief the text and the Markdown leave out the
//     per-cell explanations: the Markdown is then the table and a one-line
//     legend, to paste into a pull request.
//   - SweepText, SweepSVG: a two-parameter map (Sweep) of safe, broken
//     and mixed cells with the safe/broken boundary drawn.
//   - SummaryText, SummaryMarkdown, SummaryHTML: a check
//     (engine.CheckResult) for the terminal, a pull request or CI job
//     summary, and one HTML page (CheckHTML: tallies as badges, the
//     minimal case's timeline, what ran and the summary field by field).
//   - ExhaustiveText, DangerMap, DangerText, DangerHTML: an exhaustive
//     check (engine.ExhaustiveResult): the guarantee and tallies, the
//     danger map's picture (each actor's danger row first, two lines tall
//     in text, taller in HTML), the ways it breaks grouped by mechanism
//     and folded under it, then the points.
//
// Package engine runs the campaigns and returns their results; this
// package renders them, and engine imports none of it.
//
// Times are true (simulation) time, printed as sim.FormatTime does
// ("1.050000s") everywhere but the HTML page's prose (see msText). Every lane is drawn from the run's history.Index: the
// critical sections are exactly those the checkers judged (history.Section;
// CONTRIBUTING.md, "The critical section"), pauses run from
// pause to resume, each key's value on each node from one key event to the
// next, and each write from the instant the client prepared it, through
// the request that carried it (where the client row draws it; 'p' marks
// the prepared instant when the request left later), to the resource's
// answer.
//
// # JSON schema locksim.report/v2
//
// v2 (this version) differs from v1: token-order is two invariants,
// token-unique and fencing; a verdict says whether it counted and may be
// "no-verdict"; in the history a res-write's n is the value written and
// its reply "(integer) 1" or "(integer) 0", and promote/demote events name
// the group (key) and the other primary (peer). sim.Kinds and
// history.Kinds document every event kind's fields.
//
// One object, indented by two spaces, ending in a newline. Durations and
// times are integers in nanoseconds (fields ending in _ns). A reader must
// ignore fields it does not know; a change that removes or redefines a
// field gets a new schema version.
//
//	{
//	  "schema": "locksim.report/v2",
//	  "locksim": {"version": "0.4.0", "fingerprint": "0123456789abcdef"},  // engine.ThisBuild: the simulator
//	  "meta": {                      // Meta; empty strings are left out
//	    "scenario": "gc-pause", "title": "...", "design": "set-px-lua",
//	    "seed": 1, "teaching": "...",
//	    "what_if": ["--ttl 3s"]      // run's what-if flags, when given
//	  },
//	  "spec": {                      // what ran
//	    "design": "set-px-lua",
//	    "fencing": "off",            // strict | nonstrict | off, if set
//	    "ttl_ns": 1000000000,
//	    "deadline": true,            // only when the client deadline is on
//	    "clients": ["A", "B"],
//	    "masters": 1, "replicas": 0, "persistence": "none",  // when set
//	    "faults": ["pause A after A acquired for 1.5s"],      // sim.Fault.String
//	    "min_replicas_to_write": 1, "min_replicas_max_lag_ns": 1000000000, // when set
//	    "server": "redis-8.4"        // the release the nodes modelled, when not redis-7.0
//	  },
//	  "error": "...",                // only when the run stopped early
//	  "history": [ ... ],            // sim.Event values as recorded, in order:
//	                                 // seq, at_ns, actor, task, kind, local_ns,
//	                                 // peer, args, reply, key, value, token, n,
//	                                 // dur_ns, note (zero fields left out but
//	                                 // seq, at_ns, actor, kind, local_ns)
//	  "violations": [                // invariant.Violation, plus "story"
//	    {
//	      "invariant": "mutual-exclusion",
//	      "clients": ["A", "B"],
//	      "from_ns": 1049101000, "to_ns": 1104228000,
//	      "tokens": [41, 42],        // when any
//	      "events": [8, 19, 28],     // seq numbers of the events that show it
//	      "explanation": "...",      // the checker's words
//	      "story": "From the history: ..."  // the report's retelling
//	    }
//	  ],
//	  "groups": [                    // only when violations share a cause:
//	    {                            // two or more from one hold of their
//	      "invariant": "mutual-exclusion", // first client; the first member's
//	      "invariants": ["mutual-exclusion", "stale-write"], // when it mixes them
//	      "violations": [1, 2, 3],   // their numbers (index in violations + 1)
//	      "cause": "A was paused 1.422500s from 0.002949s; meanwhile B held the lock three times (tokens 2, 3, 4)",
//	      "shared": "...",           // the facts every explanation states
//	      "each": ["...", "...", "..."], // the rest of each explanation
//	      "story": "..."             // the history retold once for all
//	    }
//	  ],
//	  "held": [                      // the saving events (held.go), when any
//	    {"title": "Why it held",     // or "What still held", "Why fencing did not stop it"
//	     "items": [{"text": "...", "seqs": [306], "cost": true}]} // cost: a price paid
//	  ],
//	  "verdicts": [                  // every invariant.All entry in order,
//	                                 // then any other invariant violated
//	    {"invariant": "mutual-exclusion", "verdict": "broken", "counted": true, "violations": 1},
//	    {"invariant": "fencing", "verdict": "not-checked", "counted": true, "violations": 0,
//	     "why": "the resource is not fenced"}
//	  ]
//	}
//
// "held" means no violation of that invariant was found in this run;
// "broken" that at least one was; "not-checked" that the checkers do not
// judge it for this run (why says which); "no-verdict" that the run
// stopped with an error, so nothing was judged. "counted" is false for an
// invariant the caller did not ask about: its violations are listed but do
// not fail the run.
//
// # Example
//
//	r := &model.Result{Spec: spec, Seed: seed, History: h, Violations: vs}
//	meta := report.Meta{Scenario: "gc-pause", Title: "A pauses past its lease"}
//	report.Text(os.Stdout, r, report.TextOptions{Meta: meta, Color: isTerminal})
//	report.HTMLPath("gc-pause.html", r, meta)
//	report.JSON(f, r, meta)
//
// A text timeline (set-px-lua under gc-pause, abridged):
//
//	                0        0.2s     0.4s     0.6s     0.8s      1.0s     1.2s     1.4s
//	                |--------|--------|--------|--------|---------|--------|--------|-------
//	A        lock   a======================================================================W
//	         paused zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz
//	B        lock   ------------------------------------------------a=Wr
//	r1       lock   AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAx BB|
//	resource served                                                 v W                  v W
//	                |--------|--------|--------|--------|---------|--------|--------|-------
//	!1                                      mutual-exclusion (A, B) ^^^
//	!2                                                                     stale-write (A) ^
//
// The tests regenerate the golden files under testdata/ with
// `make golden` (or go test -rewrite); review them with git diff. When chromium is
// on PATH the tests load each HTML report headless, each page in a tab
// of one browser the package's tests share (internal/headless), and check
// the DOM after the script ran (body[data-ready="1"], no body[data-errors], the view it
// opens on, the marks and write links drawn, hover texts in ms) and, in a
// 1280x800 viewport, the geometry of the opening view (badges and timeline
// on screen, no sideways scrolling, a group as one block, a danger map's
// rows before and taller than the rest); set
// LOCKSIM_SCREENSHOT=/tmp/report.png to also save a screenshot.
// TestEveryMarkInTheLegend reads the mark kinds from timeline.go and fails
// when one lacks an entry in the text legend or the HTML's.
package report
