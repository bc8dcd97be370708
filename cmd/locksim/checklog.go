package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/engine"
	"locksim/internal/bounded"
	"locksim/logcheck"
	"locksim/model"
	"locksim/scenarios"
	"locksim/verdict"
)

// cmdCheckLog judges lock logs recorded in production (docs/check-log.md).
func cmdCheckLog(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("check-log", "check-log FILE... [--skew D] [--host-skew HOST=D,...] [--reorder D] [--fenced] [--liveness D] [--available D [--claim minority|failover]] [--acquire-tolerance D] [--possible-exits N] [--format text|markdown|json|html] [-o FILE] [--reproduce DESIGN [--runs N] [--save-case FILE]]", stdout)
	skew := fs.Duration("skew", 0, "bound on every host's clock offset from true time (each host within ±D); the verdicts hold for every offset within it")
	hostSkew := fs.String("host-skew", "", "per-host bounds overriding --skew, comma-separated: web-1=200ms,web-2=5ms")
	reorder := fs.Duration("reorder", 0, "how far out of time order events may come within one file: they are sorted within this window; an event further back is an error naming its line")
	fenced := fs.Bool("fenced", false, "judge fencing on every key with accepted writes, even where the log shows no rejected write")
	liveness := fs.Duration("liveness", 0, "judge liveness by timing: an acquisition that waited longer than this while no other client believed it held the key, at every clock offset (0: not judged)")
	available := fs.Duration("available", 0, "judge available by timing, as --liveness does, for a log whose faults were all ones the design tolerates (a log does not show faults; 0: not judged)")
	claim := fs.String("claim", "minority", "with --available: the claim it judges: minority (Redlock: a minority of masters down, stalled or cut off; the bound counts from the wait's start) or failover (a Sentinel setup: refused, since its bound counts from the onset of the last fault Sentinel repairs, which a log does not show)")
	tolerance := fs.Duration("acquire-tolerance", 0, "acquire-deadline: how late past the deadline its acquire-attempt logged a lock call may return (default 0: by the deadline)")
	possible := fs.Int("possible-exits", exitSafe, "the exit code when only possible violations were found (default 0: a possible violation is not a finding; 1 makes it fail a build)")
	format := fs.String("format", "text", "output format: text, markdown, json or html (one file: verdicts, violations, a timeline with one lane per client and each host's clock uncertainty drawn, contention)")
	out := fs.String("o", "", "write the report to this file instead of stdout")
	repro := fs.String("reproduce", "", "search this design's random fault schedules for a run whose own log breaks the first violation's invariant with the same shape (client and event kind, from the first involved acquire to the violation), and save it as a case")
	reproRuns := fs.Int("runs", 5000, "with --reproduce: how many runs to search")
	saveCase := fs.String("save-case", "locksim-incident.json", "with --reproduce: where to save the matching run as a case for 'locksim replay'")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() == 0 {
		return exitUsage, usagef("check-log needs at least one log file (docs/check-log.md has the format)")
	}
	if err := checkFormat("check-log", *format); err != nil {
		return exitUsage, err
	}
	if *possible != exitSafe && *possible != exitViolation {
		return exitUsage, usagef("--possible-exits %d: give 0 or 1", *possible)
	}
	switch *claim {
	case "minority":
	case "failover":
		return exitUsage, usagef("--available with --claim failover: a Sentinel setup's claim counts its bound from the onset of the last fault Sentinel repairs by a failover (a node crashed, stalled or cut off from the sentinel), and a log shows no faults: measured from a wait's start instead, a wait that began before the fault would be flagged though the claim excuses it. check-log cannot judge it; judge the log with --liveness, or replay the setup with locksim check (its available judgement sees the faults)")
	default:
		return exitUsage, usagef("--claim %q: give minority or failover", *claim)
	}
	opt := logcheck.Options{Skew: *skew, Reorder: *reorder, Fenced: *fenced, Liveness: *liveness, Available: *available, AcquireTolerance: *tolerance}
	if *skew < 0 || *reorder < 0 || *liveness < 0 || *available < 0 || *tolerance < 0 {
		return exitUsage, usagef("--skew, --reorder, --liveness, --available and --acquire-tolerance must not be negative")
	}
	if *hostSkew != "" {
		opt.HostSkew = map[string]time.Duration{}
		for _, part := range strings.FieldsFunc(*hostSkew, func(r rune) bool { return r == ',' || r == ' ' }) {
			h, d, ok := strings.Cut(part, "=")
			dur, err := time.ParseDuration(d)
			if !ok || h == "" || err != nil || dur < 0 {
				return exitUsage, usagef("--host-skew %q: give HOST=DURATION pairs, comma-separated (web-1=200ms)", part)
			}
			opt.HostSkew[h] = dur
		}
	}
	var named []namedPath
	var ins []logcheck.Input
	var seen []os.FileInfo
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			return exitUsage, errors.Errorf("cannot read %s: %v", name, errors.Unwrap(err))
		}
		defer f.Close()
		// One file given twice would be judged twice: every grant and hold
		// counted double in the contention figures.
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			for i, prev := range seen {
				if prev != nil && os.SameFile(prev, fi) {
					return exitUsage, usagef("%s and %s are the same file: give each log once", bounded.Clip(fs.Arg(i)), bounded.Clip(name))
				}
			}
			seen = append(seen, fi)
		} else {
			seen = append(seen, nil)
		}
		// An OTLP JSON trace document is read whole and its lock spans
		// turned into log lines; anything else is a lock log, streamed.
		br := bufio.NewReader(f)
		if head, _ := br.Peek(512); logcheck.IsOTLP(head) {
			in, _, err := logcheck.ReadOTLP(name, br)
			if err != nil {
				return exitUsage, usagef("%v", err)
			}
			ins = append(ins, in)
		} else {
			ins = append(ins, logcheck.Input{Name: name, R: br})
		}
		named = append(named, namedPath{"a log", name})
	}
	if err := distinctOutputs([]namedPath{{"-o", *out}, {"--save-case", *saveCase}}, named...); err != nil {
		return exitUsage, err
	}
	if *repro != "" {
		if _, err := model.LookupDesign(*repro); err != nil {
			return exitUsage, usagef("--reproduce: %v", err)
		}
		if *reproRuns < 1 || *reproRuns > engine.MaxRuns {
			return exitUsage, usagef("--runs %d: give 1 to %d", *reproRuns, engine.MaxRuns)
		}
	}
	var res *logcheck.Result
	var evs []logcheck.Event
	var err error
	if *repro != "" {
		res, evs, err = logcheck.ReadIncident(ins, opt)
	} else {
		res, err = logcheck.Check(ins, opt)
	}
	if err != nil {
		return exitUsage, err
	}
	w, done, err := output(*out, stdout)
	if err != nil {
		return exitUsage, err
	}
	switch *format {
	case "json":
		err = res.JSON(w)
	case "markdown":
		err = res.Markdown(w)
	case "html":
		err = res.HTML(w)
	default:
		err = res.Text(w)
	}
	if err := done(err); err != nil {
		return exitUsage, err
	}
	if *repro != "" {
		if err := reproduceIncident(res, evs, *repro, *reproRuns, *saveCase, stdout); err != nil {
			return exitUsage, err
		}
	}
	v := res.Verdict()
	if v.Kind == verdict.None {
		fmt.Fprintf(stderr, "locksim check-log: %s\n", v)
	}
	return v.ExitCodeWith(*possible), nil
}

// reproduceIncident searches design's runs for the log's first violation
// (a certain one if any) and saves the match as a case.
func reproduceIncident(res *logcheck.Result, evs []logcheck.Event, design string, runs int, save string, stdout io.Writer) error {
	if len(res.Violations) == 0 {
		fmt.Fprintln(stdout, "reproduction: the log shows no violation to reproduce")
		return nil
	}
	v := res.Violations[0]
	for _, x := range res.Violations {
		if x.Certainty == logcheck.Certain {
			v = x
			break
		}
	}
	cfg := engine.CheckConfig{Campaign: engine.Campaign{Base: model.Spec{Design: design}, Gen: scenarios.Gen{Kinds: scenarios.DefaultKinds}, Seed: 1}}
	rep, err := logcheck.Reproduce(evs, v, cfg, runs)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, "\n"+rep.Text())
	if rep.Distance == 0 {
		if err := engine.NewCase(rep.Result).Save(save); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  case saved to %s (locksim replay %s)\n", save, save)
	}
	return nil
}
