package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"locksim/engine"
	"locksim/internal/bounded"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/report"
	"locksim/scenarios"
)

const matrixUsage = `matrix [--designs IDS] [--acquire FILE --release FILE [--renew FILE]] [--fencing F] [--invariants LIST] [--seeds N] [--format text|markdown|html] [-o FILE]

Runs every design against every catalogue scenario, each cell over seeds
1..N. With --acquire/--release your Lua design is a column (the only one
unless --designs names catalogue designs too).

Exit 0 when every cell ran (broken cells included: the table is the
result), 2 on bad input, when a cell has a run that stopped with an error
(the cell shows ERR, --details lists the errors: no verdict) or when no
cell judged anything (no client ever acquired), 130
when SIGINT, SIGTERM or SIGHUP stopped it (the cells run so far are printed
as a table marked PARTIAL; -o FILE keeps its previous contents).`

func cmdMatrix(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("matrix", matrixUsage, stdout)
	designs := fs.String("designs", "", "catalogue design IDs to show, comma-separated (default: all, or none with --acquire)")
	lua := addLuaFlags(fs)
	fencing := fs.String("fencing", "", "override every design's resource fencing: "+model.FencingNames())
	invs := fs.String("invariants", "", "the invariants the cells show, comma-separated (default all)")
	seeds := fs.Int("seeds", 3, "seeds per cell")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel workers (the output does not depend on it)")
	format := fs.String("format", "text", "text, markdown or html")
	details := fs.Bool("details", false, "list each broken cell's first violation after the table (text, markdown)")
	out := fs.String("o", "", "write to this file instead of stdout")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("unexpected argument %q", fs.Arg(0))
	}
	if err := distinctOutputs([]namedPath{{"-o", *out}}, lua.inputs()...); err != nil {
		return exitUsage, err
	}
	if *seeds < 1 || *seeds > 1000 {
		return exitUsage, usagef("--seeds %d: give 1 to 1000 (limits: seeds)", *seeds)
	}
	if *workers < 1 || *workers > engine.MaxWorkers {
		return exitUsage, usagef("--workers %d: give 1 to %d (limits: workers)", *workers, engine.MaxWorkers)
	}
	if err := checkFormat("matrix", *format); err != nil {
		return exitUsage, err
	}
	cols, err := designColumns(*designs, lua, *fencing)
	if err != nil {
		return exitUsage, err
	}
	var shown []invariant.ID
	if *invs != "" {
		if shown, err = invariant.Parse(*invs); err != nil {
			return exitUsage, usagef("--invariants: %v", err)
		}
		if err := judgedBySome(shown, cols); err != nil {
			return exitUsage, usagef("--invariants: %v", err)
		}
	}
	if err := checkWritable(namedPath{"-o", *out}); err != nil {
		return exitUsage, err
	}
	ctx, stop := interruptContext()
	m, err := engine.Matrix(engine.MatrixConfig{Designs: cols, Seeds: *seeds, Workers: *workers, Context: ctx})
	stop()
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	m.Brief = !*details
	m.Invariants = shown
	render := func(w io.Writer, format string) error {
		switch format {
		case "markdown", "md":
			return report.MatrixMarkdown(w, m)
		case "html":
			return report.MatrixHTML(w, m)
		}
		return report.MatrixText(w, m)
	}
	if m.Interrupted {
		// The table so far, marked PARTIAL; -o FILE is left as it was.
		if *out != "" && *out != "-" {
			render(stdout, "text")
		} else {
			render(stdout, *format)
		}
		fmt.Fprintf(stderr, "locksim matrix: interrupted: %d of %d cells ran; the partial table is above, no verdict on the others%s\n",
			len(m.Cells), len(m.Designs)*len(m.Scenarios), keptNote(*out))
		return exitInterrupted, nil
	}
	w, done, err := output(*out, stdout)
	if err != nil {
		return exitUsage, err
	}
	err = done(render(w, *format))
	if err != nil {
		return exitUsage, err
	}
	if *out != "" && *out != "-" {
		fmt.Fprintf(stdout, "matrix: %d designs x %d scenarios; written to %s\n", len(m.Designs), len(m.Scenarios), *out)
	}
	if n, first := m.ErrorCells(); n > 0 {
		return exitUsage, errors.Errorf("no verdict in %s: a run stopped with an error (shown as ERR; --details lists them); the first: %s", plural(n, "cell"), first)
	}
	if !m.JudgedAny() {
		return exitUsage, errors.New("no verdict: no cell judged anything (in every run no client acquired the lock)")
	}
	return exitSafe, nil
}

// designColumns builds the matrix's designs: the catalogue IDs asked for
// and your Lua design, each with the fencing override.
func designColumns(ids string, lua *luaFlags, fencing string) ([]model.Spec, error) {
	if fencing != "" {
		if err := checkFencing(fencing); err != nil {
			return nil, err
		}
	}
	var cols []model.Spec
	list := ids
	if list == "" && !lua.given() {
		list = strings.Join(model.DesignIDs(), ",")
	}
	for _, id := range strings.Split(list, ",") {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		if _, err := model.LookupDesign(id); err != nil {
			return nil, usagef("--designs: %v", err)
		}
		if slices.ContainsFunc(cols, func(c model.Spec) bool { return c.Design == id }) {
			return nil, usagef("--designs names %s twice: each design is one column", id)
		}
		cols = append(cols, model.Spec{Design: id, Fencing: model.Fencing(fencing)})
	}
	if lua.given() {
		s, err := lua.load()
		if err != nil {
			return nil, err
		}
		cols = append(cols, model.Spec{Design: model.LuaDesignID, Lua: s, Fencing: model.Fencing(fencing)})
	}
	return cols, nil
}

func checkFencing(f string) error {
	for _, k := range model.Fencings {
		if string(k) == f {
			return nil
		}
	}
	return usagef("--fencing %s: want %s", bounded.Q(f), model.FencingNames())
}

const sweepUsage = `sweep [--param NAME] [--design ID | --acquire FILE --release FILE [--renew FILE]] [--x VALUES] [--y VALUES] [--seeds N] [--format text|svg] [-o FILE]

Maps where leases break over two parameters, each cell over seeds 1..N,
with reference lines where the boundary should be. Params:
%s
Axes: a list (250ms,500ms,1s) or a range FROM:TO:STEPS[:log] (default a
20 x 20 grid).

Exit 0 when every cell ran (broken cells included: the map is the result),
2 on bad input, when a cell has a run that stopped with an error (the
cell shows E, the errors are listed under the map: no verdict) or when no
cell judged anything (no client ever acquired), 130 when
SIGINT, SIGTERM or SIGHUP stopped it (the cells run so far are printed as a
map marked PARTIAL; -o FILE keeps its previous contents).`

func cmdSweep(args []string, stdout, stderr io.Writer) (int, error) {
	var about []string
	for _, n := range engine.SweepParamNames() {
		p := engine.SweepParams[n]
		about = append(about, fmt.Sprintf("  %-6s %s (default design %s)", n, p.About, p.Design))
	}
	fs := newFlags("sweep", fmt.Sprintf(sweepUsage, strings.Join(about, "\n")), stdout)
	param := fs.String("param", "pause", "what to sweep: "+strings.Join(engine.SweepParamNames(), ", "))
	design := fs.String("design", "", "catalogue design (default: the param's)")
	lua := addLuaFlags(fs)
	fencing := fs.String("fencing", "", "the resource's fencing: "+model.FencingNames())
	ttl := fs.Duration("ttl", 0, "lease TTL, where the x axis is not the TTL (default 1s)")
	invs := fs.String("invariants", "", "the invariants a cell counts as broken, comma-separated (default all)")
	xs := fs.String("x", "", "the x axis values: a list or FROM:TO:STEPS[:log]")
	ys := fs.String("y", "", "the y axis values: a list or FROM:TO:STEPS[:log]")
	seeds := fs.Int("seeds", 2, "seeds per cell")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel workers (the output does not depend on it)")
	format := fs.String("format", "text", "text or svg")
	out := fs.String("o", "", "write to this file instead of stdout")
	progress := fs.Bool("progress", isTerminal(stderr), "show progress on stderr (default on a terminal)")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	p, ok := engine.SweepParams[*param]
	if err := checkFormat("sweep", *format); err != nil {
		return exitUsage, err
	}
	switch {
	case !ok:
		return exitUsage, usagef("unknown --param %s (want %s)", bounded.Q(*param), strings.Join(engine.SweepParamNames(), ", "))
	case fs.NArg() > 0:
		return exitUsage, usagef("unexpected argument %q", fs.Arg(0))
	case *seeds < 1 || *seeds > 1000:
		return exitUsage, usagef("--seeds %d: give 1 to 1000 (limits: seeds)", *seeds)
	case *workers < 1 || *workers > engine.MaxWorkers:
		return exitUsage, usagef("--workers %d: give 1 to %d (limits: workers)", *workers, engine.MaxWorkers)
	case *design != "" && lua.given():
		return exitUsage, usagef("give either --design or --acquire/--release, not both")
	case *ttl < 0 || *ttl > model.MaxTTL:
		return exitUsage, usagef("--ttl %v: give a positive TTL up to %v", *ttl, model.MaxTTL)
	}
	if err := distinctOutputs([]namedPath{{"-o", *out}}, lua.inputs()...); err != nil {
		return exitUsage, err
	}
	c := engine.SweepConfig{Param: *param, Seeds: *seeds, Workers: *workers}
	c.Design.Options.TTL = *ttl
	switch {
	case lua.given():
		s, err := lua.load()
		if err != nil {
			return exitUsage, err
		}
		c.Design.Design, c.Design.Lua = model.LuaDesignID, s
	case *design != "":
		if _, err := model.LookupDesign(*design); err != nil {
			return exitUsage, usagef("%v", err)
		}
		c.Design.Design = *design
	}
	if *fencing != "" {
		if err := checkFencing(*fencing); err != nil {
			return exitUsage, err
		}
		c.Design.Fencing = model.Fencing(*fencing)
	}
	var err error
	if *invs != "" {
		if c.Invariants, err = invariant.Parse(*invs); err != nil {
			return exitUsage, usagef("--invariants: %v", err)
		}
	}
	if *xs != "" {
		if c.X, err = engine.ParseAxis(p.X.Name, p.X.Unit, *xs); err != nil {
			return exitUsage, usagef("--x: %v", err)
		}
	}
	if *ys != "" {
		if c.Y, err = engine.ParseAxis(p.Y.Name, p.Y.Unit, *ys); err != nil {
			return exitUsage, usagef("--y: %v", err)
		}
	}
	if err := checkWritable(namedPath{"-o", *out}); err != nil {
		return exitUsage, err
	}
	var endProgress func()
	c.Progress, endProgress = startProgress(*progress, stderr, "cells", 0)
	ctx, stop := interruptContext()
	c.Context = ctx
	sw, err := engine.Sweep(c)
	stop()
	endProgress()
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	render := func(w io.Writer, format string) error {
		if format == "svg" {
			return report.SweepSVG(w, sw)
		}
		return report.SweepText(w, sw)
	}
	if sw.Interrupted {
		if *out != "" && *out != "-" {
			render(stdout, "text")
		} else {
			render(stdout, *format)
		}
		done := 0
		for _, row := range sw.Cells {
			for _, c := range row {
				if c.Runs+c.Vacuous+c.Errors > 0 {
					done++
				}
			}
		}
		fmt.Fprintf(stderr, "locksim sweep: interrupted: %d of %d cells ran; the partial map is above, no verdict on the others%s\n",
			done, len(sw.Xs)*len(sw.Ys), keptNote(*out))
		return exitInterrupted, nil
	}
	w, done, err := output(*out, stdout)
	if err != nil {
		return exitUsage, err
	}
	err = done(render(w, *format))
	if err != nil {
		return exitUsage, err
	}
	if *out != "" && *out != "-" {
		fmt.Fprintf(stdout, "sweep %s: %d x %d cells; written to %s\n", *param, len(sw.Xs), len(sw.Ys), *out)
	}
	if n, first := sw.ErrorCells(); n > 0 {
		return exitUsage, errors.Errorf("no verdict in %s: a run stopped with an error (shown as E; listed under the map); the first: %s", plural(n, "cell"), first)
	}
	if !sw.JudgedAny() {
		return exitUsage, errors.New("no verdict: no cell judged anything (in every run no client acquired the lock and nothing counted broke)")
	}
	return exitSafe, nil
}

// judgedBySome refuses an invariant to show that no cell judges
// (model.Spec.Judges): every cell would show it held without judging it.
// A cell runs its design in its scenario (engine.InScenario), which may
// change what is judged (token-regression's nonstrict resource judges
// fencing); cells that do not judge it show it as not checked.
func judgedBySome(ids []invariant.ID, cols []model.Spec) error {
	if len(cols) == 0 { // the catalogue's designs
		for _, d := range model.DesignIDs() {
			cols = append(cols, model.Spec{Design: d})
		}
	}
	for _, id := range ids {
		why := ""
		some := false
		for _, c := range cols {
			for _, sc := range scenarios.All() {
				spec, na, err := engine.InScenario(sc, c)
				if err != nil || na != "" {
					continue
				}
				ok, w := spec.Resolution().Check.Judged(id)
				if ok {
					some = true
					break
				}
				if why == "" {
					why = w
				}
			}
			if some {
				break
			}
		}
		if !some {
			return errors.Errorf("invariant %s cannot apply to any cell of the matrix (%s): every cell would pass without judging it", id, why)
		}
	}
	return nil
}
