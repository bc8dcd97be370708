package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"locksim/engine"
	"locksim/model/invariant"
)

// Matrix, Cell and InvariantResult are the table engine.Matrix fills
// (engine.MatrixResult); the renderers here only read it.
type (
	Matrix          = engine.MatrixResult
	Cell            = engine.MatrixCell
	InvariantResult = engine.InvariantResult
)

// matrixInvariants returns the invariants the matrix shows.
func matrixInvariants(m *Matrix) []invariant.ID {
	if m.Invariants != nil {
		return m.Invariants
	}
	ids := slices.Clone(invariant.All)
	var extra []invariant.ID
	for _, c := range sortedCells(m) {
		for _, r := range c.cell.Results {
			if !slices.Contains(ids, r.Invariant) && !slices.Contains(extra, r.Invariant) {
				extra = append(extra, r.Invariant)
			}
		}
	}
	slices.Sort(extra)
	return append(ids, extra...)
}

type placedCell struct {
	design, scenario string
	cell             Cell
	ok               bool
}

// sortedCells lists the cells in display order: scenarios, then designs.
func sortedCells(m *Matrix) []placedCell {
	var out []placedCell
	for _, s := range m.Scenarios {
		for _, d := range m.Designs {
			c, ok := m.Cells[[2]string{d, s}]
			out = append(out, placedCell{d, s, c, ok})
		}
	}
	return out
}

// short2 is the short form of an invariant in matrix cells: its
// registry code (invariant.CodeOf), or for an ID the registry does not know
// the initials of its words.
func short2(inv invariant.ID) string {
	if a, ok := invariant.CodeOf(inv); ok {
		return a
	}
	var b strings.Builder
	for _, w := range strings.FieldsFunc(string(inv), func(r rune) bool { return r == '-' || r == '_' || r == ' ' }) {
		b.WriteString(strings.ToUpper(w[:1]))
	}
	if b.Len() == 0 {
		return string(inv)
	}
	return b.String()
}

// dataInvariants are the invariants that judge the data (invariant.HarmOf
// says HarmData): when one broke, an update was lost. The others judge
// the lease: mutual exclusion, a write outside its lease (stale-write),
// token uniqueness, an old holder let past the fence (fencing), liveness,
// reentrancy; a fenced resource can keep the data when they break.
var dataInvariants, leaseInvariants = byHarm()

func byHarm() (data, lease []invariant.ID) {
	for _, id := range invariant.All {
		if invariant.HarmOf(id) == invariant.HarmData {
			data = append(data, id)
		} else {
			lease = append(lease, id)
		}
	}
	return data, lease
}

// The ways a broken cell is classified (cellState.class).
const (
	classLost   = "lost"    // a data invariant broke: data lost
	classSafe   = "safe"    // only lease invariants broke and a data invariant held: lease broken, data safe
	classBroken = "unknown" // neither can be said: no data invariant was checked, or an unknown one broke
)

// cellState is one cell's summary for display.
type cellState struct {
	kind   string // "ok", "broken", "na", "none" (not run), "unchecked", "error"
	class  string // for a broken cell: classLost, classSafe or classBroken
	text   string // the broken invariants' abbreviations, "ok", "n/a", ...
	some   bool   // the class holds in some runs only (lost: every data invariant broke in some runs only)
	broken []InvariantResult
}

// classWords says what each class means, for legends and hover texts.
var classWords = map[string]string{
	classLost:   "data lost",
	classSafe:   "lease broken, data safe",
	classBroken: "broken, data unknown",
}

// cellStateOf summarizes one placed cell over the invariants shown.
func cellStateOf(m *Matrix, pc placedCell, invs []invariant.ID) cellState {
	switch {
	case !pc.ok:
		return cellState{kind: "none", text: "-"}
	case pc.cell.NA != "":
		return cellState{kind: "na", text: "n/a"}
	}
	st := cellState{kind: "ok", text: "ok"}
	checked := 0
	dataHeld, lost, unknown := false, false, false
	var names []string
	for _, inv := range invs {
		i := slices.IndexFunc(pc.cell.Results, func(r InvariantResult) bool { return r.Invariant == inv })
		if i < 0 {
			continue
		}
		checked++
		r := pc.cell.Results[i]
		isData := slices.Contains(dataInvariants, inv)
		dataHeld = dataHeld || isData && !r.Broken
		if r.Broken {
			lost = lost || isData
			unknown = unknown || !isData && !slices.Contains(leaseInvariants, inv)
		}
		if r.Broken {
			st.broken = append(st.broken, r)
			name := short2(inv)
			if r.BrokenRuns > 0 && r.BrokenRuns < pc.cell.Runs {
				name += "(" + strconv.Itoa(r.BrokenRuns) + "/" + strconv.Itoa(pc.cell.Runs) + ")"
			}
			names = append(names, name)
		}
	}
	switch {
	case len(st.broken) > 0:
		st.kind, st.text = "broken", strings.Join(names, ",")
		switch {
		case lost:
			st.class = classLost
		case dataHeld && !unknown:
			st.class = classSafe
		default:
			st.class = classBroken
		}
		// Some runs only: each broken invariant of the class broke in
		// fewer than all runs (0 broken runs means not counted).
		st.some = true
		for _, r := range st.broken {
			if st.class == classLost && !slices.Contains(dataInvariants, r.Invariant) {
				continue
			}
			st.some = st.some && r.BrokenRuns > 0 && r.BrokenRuns < pc.cell.Runs
		}
		if pc.cell.Errors > 0 {
			st.text += "+" + errMark // what else held has no verdict
		}
	case pc.cell.Errors > 0:
		st.kind, st.text = "error", errMark
	case checked == 0 || pc.cell.NoneAcquired >= pc.cell.Runs || pc.cell.NoneFired >= pc.cell.Runs:
		// No invariant shown was judged, or no run acquired, or no run's
		// faults took effect, and none shown broke: nothing shown held.
		st.kind, st.text = "unchecked", "?"
	case pc.cell.Idle:
		st.text = "idle"
	}
	return st
}

// errMark marks a cell with a run that stopped with an error: no verdict
// for what no other run broke.
const errMark = "ERR"

// errWords explains errMark in the legends.
const errWords = errMark + ": a run stopped with an error, so the cell has no verdict for what did not break (the errors are listed with --details)"

// textMark is the mark a broken cell's text starts with, by class: the
// plain-text matrix and the HTML page use it (the HTML also colours).
var textMark = map[string]string{classLost: "!", classSafe: "~", classBroken: ""}

// mdMark is the Markdown's mark, where colour is only available as emoji.
var mdMark = map[string]string{classLost: "❌ ", classSafe: "⚠️ ", classBroken: ""}

// classesUsed lists the classes of the broken cells, in legend order, and
// which of them some cells show for some runs only.
func classesUsed(m *Matrix, invs []invariant.ID) ([]string, map[string]bool) {
	seen, some := map[string]bool{}, map[string]bool{}
	for _, pc := range sortedCells(m) {
		if st := cellStateOf(m, pc, invs); st.kind == "broken" {
			seen[st.class] = true
			some[st.class] = some[st.class] || st.some
		}
	}
	var out []string
	for _, c := range []string{classLost, classSafe, classBroken} {
		if seen[c] {
			out = append(out, c)
		}
	}
	return out, some
}

func runsNote(r InvariantResult, runs int) string {
	s := "seed " + strconv.FormatUint(r.Seed, 10)
	if r.BrokenRuns > 0 && runs > 0 {
		s += ", " + strconv.Itoa(r.BrokenRuns) + "/" + strconv.Itoa(runs) + " runs"
	}
	return s
}

// matrixLegend explains the cells in one line; marks gives each class's mark
// (textMark, mdMark), or nil to leave the classes out (the HTML draws
// them as swatches).
func matrixLegend(m *Matrix, invs []invariant.ID, marks map[string]string) string {
	var parts []string
	for _, inv := range invs {
		parts = append(parts, short2(inv)+" "+string(inv))
	}
	s := "ok: every checked invariant held; "
	if anyIdleCell(m, invs) {
		s += "idle: every checked invariant held, but no run's resource accepted a write (the lock did no work); "
	}
	if anyErrorCell(m) {
		s += errWords + "; "
	}
	if marks != nil {
		classes, _ := classesUsed(m, invs)
		for _, c := range classes {
			if mk := strings.TrimSpace(marks[c]); mk != "" {
				s += mk + " "
			}
			s += classWords[c] + " (" + classRule(c) + "); "
		}
	}
	return s + "invariants: " + strings.Join(parts, ", ") +
		"; a suffix (7/10) means broken in 7 of 10 runs; n/a: does not apply; -: not run; ?: nothing checked."
}

// anyErrorCell reports whether a cell had a run that stopped with an error.
func anyErrorCell(m *Matrix) bool {
	n, _ := m.ErrorCells()
	return n > 0
}

// errorNote is an error cell's line for the lists: its runs that stopped,
// and the first one's error.
func errorNote(c Cell) string {
	runs := "a run"
	if c.Errors > 1 {
		runs = strconv.Itoa(c.Errors) + " runs"
	}
	return runs + " stopped with an error: " + c.Error
}

// partialNote heads an interrupted matrix.
const partialNote = "PARTIAL: interrupted before every cell ran; the cells not run show -, and this table is no verdict on them."

// anyIdleCell reports whether a cell shows "idle".
func anyIdleCell(m *Matrix, invs []invariant.ID) bool {
	for _, pc := range sortedCells(m) {
		if cellStateOf(m, pc, invs).text == "idle" {
			return true
		}
	}
	return false
}

// classRule says when a broken cell is in a class.
func classRule(c string) string {
	abbr := func(ids []invariant.ID, sep string) string {
		var out []string
		for _, id := range ids {
			out = append(out, short2(id))
		}
		if len(out) == 1 {
			return out[0]
		}
		return strings.Join(out[:len(out)-1], ", ") + sep + out[len(out)-1]
	}
	switch c {
	case classLost:
		return abbr(dataInvariants, " or ") + " broke"
	case classSafe:
		return "only " + abbr(leaseInvariants, " or ") + " broke; the data held"
	}
	return "no data invariant was checked, or one this report does not know broke"
}

// cellText is a cell's text with its class's mark.
func cellText(st cellState, marks map[string]string) string {
	if st.kind != "broken" {
		return st.text
	}
	return marks[st.class] + st.text
}

// MatrixText writes the matrix as a plain-text table (scenarios down,
// designs across), then the first violation of each broken invariant with
// its seed, the n/a reasons and a legend.
func MatrixText(w io.Writer, m *Matrix) error {
	if m == nil {
		return errors.New("nil matrix")
	}
	invs := matrixInvariants(m)
	var b strings.Builder
	if m.Title != "" {
		fmt.Fprintf(&b, "%s\n\n", m.Title)
	}
	if m.Interrupted {
		b.WriteString(partialNote + "\n\n")
	}
	sw := len("scenario")
	for _, s := range m.Scenarios {
		sw = max(sw, len(s))
	}
	cw := make([]int, len(m.Designs))
	states := map[[2]string]cellState{}
	for _, pc := range sortedCells(m) {
		st := cellStateOf(m, pc, invs)
		states[[2]string{pc.design, pc.scenario}] = st
	}
	for j, d := range m.Designs {
		cw[j] = len(d)
		for _, s := range m.Scenarios {
			cw[j] = max(cw[j], len(cellText(states[[2]string{d, s}], textMark)))
		}
	}
	row := func(first string, cells []string) {
		line := fmt.Sprintf("%-*s", sw, first)
		for j, c := range cells {
			line += "  " + fmt.Sprintf("%-*s", cw[j], c)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	row("scenario", m.Designs)
	var rule []string
	for j := range m.Designs {
		rule = append(rule, strings.Repeat("-", cw[j]))
	}
	row(strings.Repeat("-", sw), rule)
	for _, s := range m.Scenarios {
		var cells []string
		for _, d := range m.Designs {
			cells = append(cells, cellText(states[[2]string{d, s}], textMark))
		}
		row(s, cells)
	}
	b.WriteString("\n")
	var broken, na, errs []string
	for _, pc := range sortedCells(m) {
		st := states[[2]string{pc.design, pc.scenario}]
		where := pc.scenario + " x " + pc.design
		if pc.ok && pc.cell.NA == "" && pc.cell.Errors > 0 {
			errs = append(errs, where+": "+errorNote(pc.cell))
		}
		switch st.kind {
		case "na":
			na = append(na, where+": "+pc.cell.NA)
		case "broken":
			for _, r := range st.broken {
				s := where + ": " + string(r.Invariant) + " (" + runsNote(r, pc.cell.Runs) + ")"
				if r.Explanation != "" {
					s += ": " + r.Explanation
				}
				broken = append(broken, s)
			}
		}
	}
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString(title + "\n")
		for _, it := range items {
			ls := wrap(it, 100, "    ")
			ls[0] = "  - " + strings.TrimPrefix(ls[0], "    ")
			for _, l := range ls {
				b.WriteString(l + "\n")
			}
		}
		b.WriteString("\n")
	}
	if m.Brief {
		if len(broken) > 0 {
			b.WriteString("See a cell's story with: locksim run SCENARIO --design DESIGN --seed N (each cell ran seeds 1..N; --details lists every first violation).\n\n")
		}
		if len(errs) > 0 {
			fmt.Fprintf(&b, "%s: a run stopped with an error (no verdict); --details lists the errors.\n\n", plural(len(errs), "cell"))
		}
	} else {
		list("Broken (first violation; see it with: locksim run SCENARIO --design DESIGN --seed SEED):", broken)
		list("Errors (no verdict; see one with: locksim run SCENARIO --design DESIGN --seed SEED):", errs)
		list("Not applicable:", na)
	}
	for _, l := range wrap("Legend: "+matrixLegend(m, invs, textMark), 100, "") {
		b.WriteString(l + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return errors.Wrap(err, "writing matrix")
}

// mdEscape makes text safe inside a Markdown table cell or list item.
func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "\\", "\\\\")
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "\n", " ")
	return s
}

// MatrixMarkdown writes the matrix as a GitHub-flavoured Markdown table
// (a broken cell marked ❌ when the data was lost, ⚠️ when only the lease
// broke and the data held) and a one-line legend; unless m.Brief, then
// the first violation of each broken invariant and the n/a reasons.
func MatrixMarkdown(w io.Writer, m *Matrix) error {
	if m == nil {
		return errors.New("nil matrix")
	}
	invs := matrixInvariants(m)
	var b strings.Builder
	if m.Title != "" {
		fmt.Fprintf(&b, "## %s\n\n", mdEscape(m.Title))
	}
	if m.Interrupted {
		b.WriteString("**" + partialNote + "**\n\n")
	}
	b.WriteString("| scenario |")
	for _, d := range m.Designs {
		b.WriteString(" " + mdEscape(d) + " |")
	}
	b.WriteString("\n|---|")
	for range m.Designs {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	var broken, na, errs []string
	for _, s := range m.Scenarios {
		b.WriteString("| " + mdEscape(s) + " |")
		for _, d := range m.Designs {
			c, ok := m.Cells[[2]string{d, s}]
			st := cellStateOf(m, placedCell{d, s, c, ok}, invs)
			where := "`" + s + "` × `" + d + "`"
			if ok && c.NA == "" && c.Errors > 0 {
				errs = append(errs, where+": "+mdEscape(errorNote(c)))
			}
			switch st.kind {
			case "broken":
				if st.class == classSafe {
					b.WriteString(" " + mdMark[st.class] + st.text + " |")
				} else {
					b.WriteString(" " + mdMark[st.class] + "**" + st.text + "** |")
				}
				for _, r := range st.broken {
					it := where + ": **" + string(r.Invariant) + "** (" + runsNote(r, c.Runs) + ")"
					if r.Explanation != "" {
						it += ": " + mdEscape(r.Explanation)
					}
					broken = append(broken, it)
				}
			case "na":
				b.WriteString(" n/a |")
				na = append(na, where+": "+mdEscape(c.NA))
			default:
				b.WriteString(" " + st.text + " |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n" + mdEscape(matrixLegend(m, invs, mdMark)) + "\n")
	if m.Brief {
		if len(errs) > 0 {
			fmt.Fprintf(&b, "\n%s: a run stopped with an error (no verdict); --details lists the errors.\n", plural(len(errs), "cell"))
		}
		broken, na, errs = nil, nil, nil
	}
	if len(broken) > 0 {
		b.WriteString("\n### Broken\n\n")
		for _, it := range broken {
			b.WriteString("- " + it + "\n")
		}
	}
	if len(errs) > 0 {
		b.WriteString("\n### Errors (no verdict)\n\n")
		for _, it := range errs {
			b.WriteString("- " + it + "\n")
		}
	}
	if len(na) > 0 {
		b.WriteString("\n### Not applicable\n\n")
		for _, it := range na {
			b.WriteString("- " + it + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return errors.Wrap(err, "writing matrix")
}

var matrixTmpl = parse("matrix.html", nil)

type matrixHTMLCell struct {
	Kind, Text, Tip string
}

type matrixHTMLRow struct {
	Scenario string
	Cells    []matrixHTMLCell
}

type matrixHTMLNote struct {
	Where, Invariant, Runs, Explanation, NA string
}

// matrixHTMLSwatch is one entry of the page's legend: a cell's look and
// what it means.
type matrixHTMLSwatch struct {
	Class, Mark, Text string
}

type matrixHTMLPage struct {
	Title    string
	Designs  []string
	Rows     []matrixHTMLRow
	Partial  string
	Broken   []matrixHTMLNote
	Errors   []matrixHTMLNote
	NA       []matrixHTMLNote
	Swatches []matrixHTMLSwatch
	Legend   string
	CSS      template.CSS
}

// MatrixHTML writes the matrix as one self-contained HTML page: a table
// coloured by verdict, data lost (red, '!') apart from lease broken with
// the data safe (amber, '~'), lighter when only some runs broke (hover a
// cell for its explanations), a legend of swatches, then the first
// violation of each broken invariant and the n/a reasons.
func MatrixHTML(w io.Writer, m *Matrix) error {
	if m == nil {
		return errors.New("nil matrix")
	}
	invs := matrixInvariants(m)
	p := matrixHTMLPage{Title: m.Title, Designs: m.Designs, Legend: matrixLegend(m, invs, nil), CSS: template.CSS(asset("matrix.css"))}
	p.Swatches = append(p.Swatches, matrixHTMLSwatch{Class: "ok", Text: "every checked invariant held"})
	classes, some := classesUsed(m, invs)
	for _, c := range classes {
		p.Swatches = append(p.Swatches, matrixHTMLSwatch{Class: "broken " + c, Mark: textMark[c], Text: classWords[c] + " (" + classRule(c) + ")"})
		if some[c] {
			p.Swatches = append(p.Swatches, matrixHTMLSwatch{Class: "broken " + c + " some", Mark: textMark[c], Text: "the same, in some runs only"})
		}
	}
	if p.Title == "" {
		p.Title = "locksim matrix"
	}
	if m.Interrupted {
		p.Partial = partialNote
	}
	for _, s := range m.Scenarios {
		rw := matrixHTMLRow{Scenario: s}
		for _, d := range m.Designs {
			c, ok := m.Cells[[2]string{d, s}]
			st := cellStateOf(m, placedCell{d, s, c, ok}, invs)
			hc := matrixHTMLCell{Kind: st.kind, Text: cellText(st, textMark)}
			if st.kind == "broken" {
				hc.Kind += " " + st.class
			}
			if st.some {
				hc.Kind += " some"
			}
			where := s + " × " + d
			if ok && c.NA == "" && c.Errors > 0 {
				p.Errors = append(p.Errors, matrixHTMLNote{Where: where, NA: errorNote(c)})
			}
			switch st.kind {
			case "error":
				hc.Tip = errorNote(c)
			case "na":
				hc.Tip = "n/a: " + c.NA
				p.NA = append(p.NA, matrixHTMLNote{Where: where, NA: c.NA})
			case "broken":
				var tips []string
				for _, r := range st.broken {
					tips = append(tips, string(r.Invariant)+" ("+runsNote(r, c.Runs)+"): "+r.Explanation)
					p.Broken = append(p.Broken, matrixHTMLNote{Where: where, Invariant: string(r.Invariant),
						Runs: runsNote(r, c.Runs), Explanation: r.Explanation})
				}
				hc.Tip = classWords[st.class] + ":\n" + strings.Join(tips, "\n")
			case "ok":
				hc.Tip = "every checked invariant held"
				if c.Runs > 0 {
					hc.Tip += " in " + strconv.Itoa(c.Runs) + " runs"
				}
				if c.Idle {
					hc.Tip += ", but the resource accepted no write: the lock did no work"
				}
			case "none":
				hc.Tip = "not run"
			default:
				hc.Tip = "no invariant checked"
			}
			rw.Cells = append(rw.Cells, hc)
		}
		p.Rows = append(p.Rows, rw)
	}
	var b bytes.Buffer
	if err := matrixTmpl.Execute(&b, p); err != nil {
		return errors.Wrap(err, "rendering matrix html")
	}
	_, err := w.Write(b.Bytes())
	return errors.Wrap(err, "writing matrix html")
}

// MatrixHTMLPath writes MatrixHTML to a file, replacing it.
func MatrixHTMLPath(path string, m *Matrix) error {
	return writeFile(path, func(w io.Writer) error { return MatrixHTML(w, m) })
}
