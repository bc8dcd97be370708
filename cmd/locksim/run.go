package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"locksim"
	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/report"
	"locksim/scenarios"
	"locksim/sim"
	"locksim/verdict"
)

func cmdRun(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("run", "run SCENARIO|FILE [--design ID | --acquire FILE --release FILE [--renew FILE] [--nodes N]] [--fencing F] [--option K=V,...] [--min-replicas-to-write N [--min-replicas-max-lag D]] [what-if flags: --ttl D --pause D --persistence P ...] [--seed N] [--details] [--format text|json|html|markdown] [-o FILE] [--save CASE] [--export LOG]", stdout)
	design := fs.String("design", "", "lock design ID (default: the scenario's own)")
	lua := addLuaFlags(fs)
	nodes := fs.Int("nodes", 1, "with --acquire: how many of the scenario's masters the scripts run on (more than 1: majority quorum)")
	fencing := fs.String("fencing", "", "override the resource's fencing: "+model.FencingNames())
	options := fs.String("option", "", `override the scenario's options, as its option line says them, comma- or space-separated: queue-wait=500ms,wall-clock=false (keys: locksim help scenarios)`)
	invs := fs.String("invariants", invariant.Names(invariant.All), "the invariants that count (exit 1 and the verdicts), comma-separated")
	seed := fs.Uint64("seed", 1, "seed of the run")
	format := fs.String("format", "text", "output format: text, json, html or markdown (the story, why it held, the verdicts, the terms: for a course page or an issue)")
	out := fs.String("o", "", "write the report to this file instead of stdout")
	save := fs.String("save", "", "also save the run as a case file for 'locksim replay'")
	export := fs.String("export", "", "also write the run as the lock log a wrapper around the clients' lock calls would write, for 'locksim check-log' (docs/check-log.md)")
	danger := fs.Bool("danger", false, "instead of the scenario's faults, draw its danger map: every fault placed at every point of the fault-free run (check --exhaustive), each moment coloured by what one fault there breaks")
	minReplicas := addMinReplicasFlags(fs)
	server := addServerFlag(fs)
	whatIf := addWhatIfFlags(fs)
	details := fs.Bool("details", false, "list every invariant's verdict, also those not checked and why (default: one line names them)")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() != 1 {
		return exitUsage, usagef("run needs one scenario ID or file (see 'locksim list')")
	}
	if err := distinctOutputs([]namedPath{{"-o", *out}, {"--save", *save}, {"--export", *export}}, append(lua.inputs(), scenarioInput("the scenario file", fs.Arg(0)))...); err != nil {
		return exitUsage, err
	}
	if err := checkWritable(namedPath{"-o", *out}, namedPath{"--save", *save}); err != nil {
		return exitUsage, err
	}
	sc, err := loadScenario(fs.Arg(0))
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	d := *design
	if d == "" {
		d = sc.Design
	}
	if !lua.given() && flagSet(fs, "nodes") {
		return exitUsage, usagef("--nodes goes with --acquire/--release (your Lua scripts)")
	}
	var spec model.Spec
	if lua.given() {
		if *design != "" {
			return exitUsage, usagef("give either --design or --acquire/--release, not both")
		}
		scripts, err := lua.load()
		if err != nil {
			return exitUsage, err
		}
		masters := 1
		if sc.Layout != nil {
			masters = sc.Layout.Masters
		}
		if *nodes < 1 || *nodes > masters {
			return exitUsage, usagef("--nodes %d: scenario %s has %d master(s); give 1 to %d", *nodes, sc.Name, masters, masters)
		}
		mine := model.Spec{Design: model.LuaDesignID, Lua: scripts, Options: sc.Spec.Options}
		mine.Options.LuaMasters = *nodes
		var na string
		if spec, na, err = engine.InScenario(sc, mine); err != nil || na != "" {
			return exitUsage, usagef("%s%v", na, errOrEmpty(err))
		}
		d = model.LuaDesignID
	} else {
		var err error
		if spec, err = sc.SpecFor(d); err != nil {
			return exitUsage, usagef("%v", err)
		}
	}
	if *fencing != "" {
		spec.Fencing = model.Fencing(*fencing)
	}
	if *options != "" {
		if err := scenarios.ApplyOptions(&spec, strings.FieldsFunc(*options, func(r rune) bool { return r == ' ' || r == ',' })); err != nil {
			return exitUsage, usagef("--option: %v", err)
		}
		if err := spec.ValidateSettings(); err != nil {
			return exitUsage, usagef("--option: %v", err)
		}
	}
	if err := minReplicas(&spec); err != nil {
		return exitUsage, err
	}
	if err := whatIf.apply(fs, &spec); err != nil {
		return exitUsage, err
	}
	if len(spec.Clients) == 1 {
		// As --clients 1 is refused: a file of your own may list one.
		return exitUsage, usagef("scenario %s has one client: one client has nobody to exclude, so mutual exclusion and lost updates could only read held; list two clients, or give --clients 2", sc.Name)
	}
	if err := server(&spec); err != nil {
		return exitUsage, err
	}
	invList, err := invariant.Parse(*invs)
	if err != nil {
		return exitUsage, usagef("--invariants: %v", err)
	}
	if err := spec.CanCount(invList); err != nil {
		return exitUsage, usagef("--invariants: %v", err)
	}
	if *danger {
		if *save != "" {
			return exitUsage, usagef("--save saves one run; with --danger use check --exhaustive --save-dir")
		}
		return runDanger(spec, *seed, invList, *format, *out, stdout, stderr)
	}
	r, err := model.Run(spec, *seed)
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	r.CountOnly(invList)
	var saveErr error
	if err := exportLog(*export, r.History, stderr, "run"); err != nil {
		return exitUsage, err
	}
	if *save != "" {
		c := locksim.NewCase(r)
		if _, err := scenarios.Lookup(sc.Name); err == nil {
			c.Scenario = sc.Name
		}
		if saveErr = c.Save(*save); saveErr == nil {
			fmt.Fprintf(stderr, "locksim run: case saved to %s (locksim replay %s)\n", *save, *save)
		}
	}
	meta := report.Meta{Scenario: sc.Name, Title: sc.Title, Design: d, Seed: *seed, Teaching: teaching(sc, spec, whatIfSaid(fs)), WhatIf: whatIfSaid(fs)}
	if err := writeReportOpts(*out, *format, r, meta, stdout, *details); err != nil {
		return exitUsage, err
	}
	writtenTo(stdout, *out)
	if saveErr != nil {
		return exitUsage, errors.Wrapf(saveErr, "the report is written, but the case could not be saved to %s", *save)
	}
	return runVerdict(r, whatIfSaid(fs))
}

// runVerdict is the exit code of one run (run, replay) by check's rules:
// 2 with the reason for a run that stopped with an error, one that judged
// nothing (no client acquired) or one whose only counted invariant had
// no verdict; else 1 for a counted violation, 0 when none.
func runVerdict(r *model.Result, whatIf []string) (int, error) {
	if r.Err != nil {
		return exitUsage, r.Err
	}
	if r.Vacuous() {
		return exitUsage, errors.Errorf("no verdict: %s (the run judged nothing)", report.VacuousWhy)
	}
	if r.Undecided() {
		return exitUsage, errors.New("no verdict: liveness, the one counted invariant, had none (a fault never healed, or the run ended before the liveness bound)")
	}
	if r.NoFaultFired() {
		// The run judged the design without the faults it was given: a
		// story (or a CI step) whose trigger never happens would pass
		// for ever. check refuses the same ("no drawn fault took effect").
		n := len(r.Spec.Faults)
		var what []string
		for i, f := range r.Spec.Faults {
			what = append(what, f.String()+" ("+r.FaultOutcomes[i].String()+")")
			if i == 2 && n > 3 {
				what = append(what, fmt.Sprintf("and %d more", n-3))
				break
			}
		}
		fix := "fix the trigger (the report's key events show what happened), or leave the faults out to judge a fault-free run"
		if len(whatIf) > 0 {
			fix = "with " + strings.Join(whatIf, ", ") + " the run never reached them (the report's key events show what happened instead); drop or change those flags to judge the design under the scenario's faults"
		}
		return exitUsage, errors.Errorf("no verdict: none of the scenario's faults took effect, so the run judged the design without them: %s; %s", strings.Join(what, "; "), fix)
	}
	return exitFor(r), nil
}

// whatIfSaid lists the what-if flags given, as the command line said
// them ("--ttl 3s, --pause 500ms"), so the report says what was changed.
func whatIfSaid(fs *flags) []string {
	var out []string
	for _, n := range whatIfNames() {
		if f := fs.Lookup(n); f != nil && flagSet(fs, n) {
			out = append(out, "--"+n+" "+f.Value.String())
		}
	}
	return out
}

// writtenTo says where a report went when -o named a file.
func writtenTo(stdout io.Writer, out string) {
	if out != "" && out != "-" {
		fmt.Fprintf(stdout, "written to %s\n", out)
	}
}

// runDanger draws the danger map of the scenario's configuration: the
// exhaustive depth-1 check of spec without its faults, placing the default
// kinds and the scenario's own kinds exhaustive mode can place (a starve
// scenario's map shows starvations). Exit 1 when a single fault breaks a
// counted invariant.
func runDanger(spec model.Spec, seed uint64, invs []invariant.ID, format, out string, stdout, stderr io.Writer) (int, error) {
	if err := checkFormat("run --danger", format); err != nil {
		return exitUsage, err
	}
	var kinds []sim.FaultKind // nil: the defaults
	for _, f := range spec.Faults {
		if !slices.Contains(engine.ExhaustiveKinds, f.Kind) && !slices.Contains(kinds, f.Kind) && slices.Contains(engine.PlacedKinds(), f.Kind) {
			if kinds == nil {
				kinds = slices.Clone(engine.ExhaustiveKinds) // its schedules keep their numbers
			}
			kinds = append(kinds, f.Kind)
		}
	}
	spec.Faults = nil
	c := engine.ExhaustiveConfig{Base: spec, Seed: seed, Invariants: invs, Kinds: kinds}
	var end func()
	c.Progress, end = startProgress(isTerminal(stderr), stderr, "schedules", 0)
	ctx, stop := interruptContext()
	c.Context = ctx
	res, err := engine.Exhaustive(c)
	stop()
	end()
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	if res.Verdict().Kind == verdict.Interrupted {
		// The tally so far, marked PARTIAL; no map drawn, -o kept.
		fmt.Fprintln(partialTo(out, format, stdout, stderr), res.Guarantee())
		fmt.Fprintf(stderr, "locksim run: interrupted: no danger map%s\n", keptNote(out))
		return exitInterrupted, nil
	}
	w, closeOut, err := output(out, stdout)
	if err != nil {
		return exitUsage, err
	}
	switch format {
	case "json":
		err = engine.ExhaustiveJSON(w, res, nil)
	case "html":
		err = report.DangerHTML(w, report.DangerMap(res))
	default:
		err = report.DangerText(w, report.DangerMap(res), 0)
	}
	err = closeOut(err)
	if err != nil {
		return exitUsage, err
	}
	if out != "" && out != "-" {
		fmt.Fprintln(stdout, res.Guarantee())
		fmt.Fprintf(stdout, "written to %s\n", out)
	}
	switch v := res.Verdict(); v.Kind {
	case verdict.None:
		// A danger map of a run with no point, or whose faults never took
		// effect, is drawn and exits 0, as it always has: the map itself
		// shows it is empty.
		return exitSafe, nil
	case verdict.Stopped:
		return v.ExitCode(), usagef("%s", v)
	default:
		return verdictExit(v)
	}
}

// teaching is the scenario's text for a run of spec, with a closing note
// when the run swapped in another design than the one the story tells of.
func teaching(sc *scenarios.Scenario, spec model.Spec, whatIf []string) string {
	if sc.Text == "" {
		return ""
	}
	if len(whatIf) > 0 {
		what := strings.Join(whatIf, ", ")
		if spec.Design != sc.Design {
			what = "design " + spec.Design + ", " + what
		}
		return sc.Text + "\n\nThe story above is told for the scenario as written; this run changes " + what +
			", so the timeline, the events and the verdicts below are its own: compare them with the story."
	}
	if spec.Design == sc.Design {
		return sc.Text
	}
	who := "design " + spec.Design
	if spec.Lua != nil {
		who = "your scripts (" + filepath.Base(spec.Lua.AcquireFile) + ", " + filepath.Base(spec.Lua.ReleaseFile) + ")"
	}
	return sc.Text + "\n\nThe story above is told for the scenario's design, " + sc.Design +
		"; this run puts " + who + " in its place, and the timeline and verdicts below are theirs."
}

// loadScenario takes a catalogue ID or a path to a scenario file.
func loadScenario(arg string) (*scenarios.Scenario, error) {
	if sc, err := scenarios.Lookup(arg); err == nil {
		return sc, nil
	} else if !strings.ContainsAny(arg, "/.") {
		return nil, err
	}
	return scenarios.Load(arg)
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flags, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func cmdReplay(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("replay", "replay FILE [--invariants LIST] [--details] [--format text|json|html|markdown] [-o FILE] | replay FILE --against-redis", stdout)
	invs := fs.String("invariants", "", "the invariants that count, comma-separated (default: those the case was saved with, else all)")
	againstRedis := fs.Bool("against-redis", false, "instead of the report, replay the commands each node ran against a real redis-server started on loopback (one per node, no persistence, paced in real time) and print the first reply that differs from the simulation's; exit 0 when all agree, 1 at a difference")
	format := fs.String("format", "text", "output format: text, json, html or markdown")
	out := fs.String("o", "", "write the report to this file instead of stdout")
	details := fs.Bool("details", false, "list every invariant's verdict, also those not checked and why (default: one line names them)")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() != 1 {
		return exitUsage, usagef("replay needs one case file")
	}
	if err := distinctOutputs([]namedPath{{"-o", *out}}, namedPath{"the case file", fs.Arg(0)}); err != nil {
		return exitUsage, err
	}
	if err := checkWritable(namedPath{"-o", *out}); err != nil {
		return exitUsage, err
	}
	c, err := locksim.LoadCase(fs.Arg(0))
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	if *invs != "" {
		if c.Invariants, err = invariant.Parse(*invs); err != nil {
			return exitUsage, usagef("--invariants: %v", err)
		}
	}
	// As run and check: an invariant the case's design cannot judge is
	// refused, whether given here or saved in the case.
	if err := c.Spec.CanCount(c.Invariants); err != nil {
		return exitUsage, usagef("--invariants: %v", err)
	}
	r, err := c.Replay(nil)
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	if *againstRedis {
		if flagSet(fs, "o") || flagSet(fs, "format") || flagSet(fs, "invariants") {
			return exitUsage, usagef("--against-redis prints a comparison, not a report: it takes no -o, --format or --invariants")
		}
		if r.Err != nil {
			io.WriteString(stderr, "locksim replay: the simulated run stopped early ("+r.Err.Error()+"); comparing what it ran\n")
		}
		release, err := c.Spec.ServerVersion()
		if err != nil {
			return exitUsage, usagef("%v", err)
		}
		return replayAgainstRedis(r.History, release, stdout)
	}
	meta := report.Meta{Design: c.Spec.Design, Seed: c.Seed}
	if sc, err := scenarios.Lookup(c.Scenario); c.Scenario != "" && err == nil {
		meta.Scenario, meta.Title, meta.Teaching = sc.Name, sc.Title, teaching(sc, c.Spec, nil)
	}
	if err := writeReportOpts(*out, *format, r, meta, stdout, *details); err != nil {
		return exitUsage, err
	}
	writtenTo(stdout, *out)
	if r.Err == nil {
		if why := c.Mismatch(r.History.Hash()); why != "" {
			io.WriteString(stderr, "locksim replay: warning: "+why+"\n")
		}
	}
	return runVerdict(r, nil)
}

// errOrEmpty renders err, or nothing.
func errOrEmpty(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
