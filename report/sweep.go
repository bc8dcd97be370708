package report

import (
	"fmt"
	"html"
	"io"
	"locksim/engine"
	"locksim/model/invariant"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"
)

// Sweep, SweepRef and SweepCell are the map engine.Sweep fills
// (engine.SweepResult); the renderers here only read it.
type (
	Sweep     = engine.SweepResult
	SweepRef  = engine.SweepRef
	SweepCell = engine.SweepCell
)

// refCells returns, per reference line, the cells it passes closest to:
// cell {row, column} -> true.
func refCells(s *Sweep) map[[2]int]bool {
	on := map[[2]int]bool{}
	for _, r := range s.Refs {
		for k := 1; k < len(r.Points); k++ {
			a, b := r.Points[k-1], r.Points[k]
			steps := int(2*max(abs(b[0]-a[0]), abs(b[1]-a[1]))) + 1
			for t := 0; t <= steps; t++ {
				f := float64(t) / float64(steps)
				x, y := a[0]+f*(b[0]-a[0]), a[1]+f*(b[1]-a[1])
				j, i := int(x+0.5), int(y+0.5)
				if i >= 0 && i < len(s.Ys) && j >= 0 && j < len(s.Xs) {
					on[[2]int{i, j}] = true
				}
			}
		}
	}
	return on
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// cellGlyph returns '.', 'o', '#', '+', 'E', '?' or ' ' for safe, safe
// but idle (no run's resource accepted a write: the lock did no work),
// broken, mixed, a run stopped with an error and none broke (no verdict),
// no run judged anything (no client acquired), not run.
func cellGlyph(c SweepCell) byte {
	switch {
	case c.Errors > 0 && c.Broken == 0:
		return 'E'
	case c.Errors > 0:
		return '+' // broken in some runs; the others stopped
	case c.Runs == 0 && c.Vacuous > 0:
		return '?'
	case c.Runs == 0:
		return ' '
	case c.Broken == 0 && c.Idle >= c.Runs:
		return 'o'
	case c.Broken == 0:
		return '.'
	case c.Broken >= c.Runs:
		return '#'
	default:
		return '+'
	}
}

// validateSweep checks the grid's shape.
func validateSweep(s *Sweep) error {
	if s == nil {
		return errors.New("nil sweep")
	}
	if len(s.Cells) != len(s.Ys) {
		return errors.Errorf("sweep has %d rows of cells for %d y values", len(s.Cells), len(s.Ys))
	}
	for i, r := range s.Cells {
		if len(r) != len(s.Xs) {
			return errors.Errorf("sweep row %d (%s=%s) has %d cells for %d x values", i, s.YName, s.Ys[i], len(r), len(s.Xs))
		}
		for j, c := range r {
			if c.Runs < 0 || c.Broken < 0 || c.Broken > c.Runs {
				return errors.Errorf("sweep cell (%s=%s, %s=%s): broken %d of %d runs", s.XName, s.Xs[j], s.YName, s.Ys[i], c.Broken, c.Runs)
			}
		}
	}
	return nil
}

// brokenCounts returns each broken invariant with the number of cells
// where it broke, sorted by invariant.
func brokenCounts(s *Sweep) []string {
	n := map[string]int{}
	for _, r := range s.Cells {
		for _, c := range r {
			seen := map[invariant.ID]bool{}
			for _, inv := range c.Invariants {
				if !seen[inv] {
					seen[inv] = true
					n[string(inv)]++
				}
			}
		}
	}
	var ids []string
	for id := range n {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]string, len(ids))
	for i, id := range ids {
		cells := "cells"
		if n[id] == 1 {
			cells = "cell"
		}
		out[i] = id + " (" + strconv.Itoa(n[id]) + " " + cells + ")"
	}
	return out
}

// SweepText writes the sweep as a character grid, Ys[0] at the bottom,
// each column as wide as its widest x label: '.' safe in every run, 'o'
// safe but no write accepted in any run, '#' broken in every run, '+'
// mixed, ' ' not run.
func SweepText(w io.Writer, s *Sweep) error {
	if err := validateSweep(s); err != nil {
		return err
	}
	var b strings.Builder
	if s.Title != "" {
		b.WriteString(s.Title + "\n\n")
	}
	if s.Interrupted {
		b.WriteString(sweepPartial + "\n\n")
	}
	yw := len(s.YName)
	for _, y := range s.Ys {
		yw = max(yw, len(y))
	}
	cw := 1
	if len(s.Refs) > 0 {
		cw = 3 // room for "(#)"
	}
	for _, x := range s.Xs {
		cw = max(cw, len(x))
	}
	fmt.Fprintf(&b, "%*s\n", yw, s.YName)
	ref := refCells(s)
	for i := len(s.Ys) - 1; i >= 0; i-- {
		line := fmt.Sprintf("%*s |", yw, s.Ys[i])
		for j, c := range s.Cells[i] {
			g := string(cellGlyph(c))
			if ref[[2]int{i, j}] {
				g = "(" + g + ")"
			}
			line += " " + fmt.Sprintf("%*s", cw, g)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	b.WriteString(strings.Repeat(" ", yw) + " +" + strings.Repeat("-", (cw+1)*len(s.Xs)) + "\n")
	line := strings.Repeat(" ", yw+2)
	for _, x := range s.Xs {
		line += " " + fmt.Sprintf("%*s", cw, x)
	}
	b.WriteString(line + "\n")
	fmt.Fprintf(&b, "%s  %s ->\n\n", strings.Repeat(" ", yw+2), s.XName)
	b.WriteString("Legend: . safe in every run; # broken in every run; + broken in some runs; blank: not run.\n")
	if anySweepGlyph(s, '?') {
		b.WriteString("?: no verdict, no run judged anything (no client acquired).\n")
	}
	nerr, _ := s.ErrorCells()
	if nerr > 0 {
		b.WriteString("E: no verdict, a run stopped with an error and no run broke anything (the errors are listed below).\n")
	}
	if anySweepIdle(s) {
		b.WriteString("o: safe, but no run's resource accepted a write (the lock did no work: every client gave up or stopped before writing).\n")
	}
	if len(s.Refs) > 0 {
		var names []string
		for _, r := range s.Refs {
			names = append(names, r.Name)
		}
		b.WriteString("(x): on the reference line " + strings.Join(names, "; ") + ".\n")
	}
	if bc := brokenCounts(s); len(bc) > 0 {
		for _, l := range wrap("Broken: "+strings.Join(bc, ", ")+".", 100, "") {
			b.WriteString(l + "\n")
		}
	}
	if nerr > 0 {
		b.WriteString("Errors (no verdict):\n")
		for i, row := range s.Cells {
			for j, c := range row {
				if c.Errors == 0 {
					continue
				}
				runs := "a run"
				if c.Errors > 1 {
					runs = strconv.Itoa(c.Errors) + " runs"
				}
				ls := wrap(fmt.Sprintf("%s=%s, %s=%s: %s stopped with an error: %s", s.XName, s.Xs[j], s.YName, s.Ys[i], runs, c.Error), 100, "    ")
				ls[0] = "  - " + strings.TrimPrefix(ls[0], "    ")
				for _, l := range ls {
					b.WriteString(l + "\n")
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return errors.Wrap(err, "writing sweep")
}

// sweepPartial heads an interrupted sweep.
const sweepPartial = "PARTIAL: interrupted before every cell ran; the cells not run are blank, and this map is no verdict on them."

// Sweep SVG geometry, in pixels.
const (
	sweepCellW = 44
	sweepCellH = 30
	sweepCharW = 7
)

// sweepColor colours a cell by its broken fraction: green when safe,
// through amber, to red when broken in every run; grey when not run.
func sweepColor(c SweepCell) string {
	switch cellGlyph(c) {
	case 'E':
		return "#e879f9" // a run stopped with an error: no verdict
	case '?':
		return "#c7d2fe" // no run judged anything
	}
	if c.Runs == 0 {
		return "#f3f4f6"
	}
	type rgb struct{ r, g, b int }
	safe, mid, bad := rgb{134, 239, 172}, rgb{251, 191, 36}, rgb{220, 38, 38}
	// f is the broken fraction in 1/1000.
	f := c.Broken * 1000 / c.Runs
	lerp := func(a, b rgb, t int) rgb {
		return rgb{a.r + (b.r-a.r)*t/1000, a.g + (b.g-a.g)*t/1000, a.b + (b.b-a.b)*t/1000}
	}
	var x rgb
	switch {
	case cellGlyph(c) == 'o':
		x = rgb{209, 213, 219} // safe, but the lock did no work
	case f == 0:
		x = safe
	case f < 500:
		x = lerp(mid, rgb{249, 115, 22}, f*2)
	default:
		x = lerp(rgb{249, 115, 22}, bad, (f-500)*2)
	}
	return fmt.Sprintf("#%02x%02x%02x", x.r, x.g, x.b)
}

// SweepSVG writes the sweep as one self-contained SVG image: a grid of
// cells coloured by broken fraction (hover a cell for its counts), Ys[0] at
// the bottom, with a thick line along every edge between a safe cell and
// a cell where some run broke, and a legend.
func SweepSVG(w io.Writer, s *Sweep) error {
	if err := validateSweep(s); err != nil {
		return err
	}
	yw := len(s.YName)
	for _, y := range s.Ys {
		yw = max(yw, len(y))
	}
	xl := len(s.XName)
	for _, x := range s.Xs {
		xl = max(xl, len(x))
	}
	rotate := xl*sweepCharW > sweepCellW-4
	left := 16 + yw*sweepCharW
	top := 28
	if s.Title != "" {
		top = 54
	}
	gw, gh := len(s.Xs)*sweepCellW, len(s.Ys)*sweepCellH
	xlabH := 22
	if rotate {
		xlabH = 10 + xl*sweepCharW*3/4
	}
	legendY := top + gh + xlabH + 28
	width := max(left+gw+24, 480)
	if s.Title != "" {
		width = max(width, 32+len(s.Title)*9)
	}
	height := legendY + 56
	if n, _ := s.ErrorCells(); n > 0 || s.Interrupted {
		height += 36
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="system-ui, -apple-system, Segoe UI, Roboto, Arial, sans-serif" font-size="12">`+"\n", width, height, width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="#fff"/>` + "\n")
	if s.Title != "" {
		fmt.Fprintf(&b, `<text x="16" y="24" font-size="15" font-weight="bold">%s</text>`+"\n", esc(s.Title))
	}
	cellX := func(j int) int { return left + j*sweepCellW }
	cellY := func(i int) int { return top + (len(s.Ys)-1-i)*sweepCellH }
	b.WriteString(`<g id="cells">` + "\n")
	for i := range s.Ys {
		for j := range s.Xs {
			c := s.Cells[i][j]
			tip := fmt.Sprintf("%s=%s, %s=%s: ", s.XName, s.Xs[j], s.YName, s.Ys[i])
			switch {
			case c.Errors > 0 && c.Broken == 0:
				tip += "no verdict: " + strconv.Itoa(c.Errors) + " run(s) stopped with an error (" + c.Error + ")"
			case c.Runs == 0 && c.Vacuous > 0:
				tip += "no verdict: no run judged anything (no client acquired)"
			case c.Runs == 0:
				tip += "not run"
			default:
				tip += fmt.Sprintf("%d of %d runs broken", c.Broken, c.Runs)
				if c.Idle > 0 {
					tip += fmt.Sprintf("; %d accepted no write", c.Idle)
				}
				if len(c.Invariants) > 0 {
					invs := slices.Clone(c.Invariants)
					slices.Sort(invs)
					tip += " (" + strings.ReplaceAll(invariant.Names(slices.Compact(invs)), ",", ", ") + ")"
				}
				if c.Errors > 0 {
					tip += "; " + strconv.Itoa(c.Errors) + " run(s) stopped with an error (" + c.Error + ")"
				}
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#fff" stroke-width="1" data-state="%s"><title>%s</title></rect>`+"\n",
				cellX(j), cellY(i), sweepCellW, sweepCellH, sweepColor(c), sweepState(c), esc(tip))
			if c.Runs > 0 && c.Broken > 0 && c.Broken < c.Runs {
				fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" font-size="10" fill="#1f2937" pointer-events="none">%d/%d</text>`+"\n",
					cellX(j)+sweepCellW/2, cellY(i)+sweepCellH/2+4, c.Broken, c.Runs)
			}
		}
	}
	b.WriteString("</g>\n")
	// The boundary: every edge between a safe cell and a broken or mixed one.
	b.WriteString(`<g id="boundary" stroke="#111827" stroke-width="3" stroke-linecap="square">` + "\n")
	bad := func(i, j int) (bool, bool) {
		c := s.Cells[i][j]
		return c.Broken > 0, c.Runs > 0
	}
	for i := range s.Ys {
		for j := range s.Xs {
			bi, ri := bad(i, j)
			if !ri {
				continue
			}
			if j+1 < len(s.Xs) {
				if bj, rj := bad(i, j+1); rj && bj != bi {
					x := cellX(j + 1)
					fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d"/>`+"\n", x, cellY(i), x, cellY(i)+sweepCellH)
				}
			}
			if i+1 < len(s.Ys) {
				if bj, rj := bad(i+1, j); rj && bj != bi {
					y := cellY(i)
					fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d"/>`+"\n", cellX(j), y, cellX(j)+sweepCellW, y)
				}
			}
		}
	}
	b.WriteString("</g>\n")
	// Reference lines, dashed, named at their end.
	for _, r := range s.Refs {
		var pts []string
		for _, p := range r.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", float64(left)+(p[0]+0.5)*sweepCellW, float64(top)+(float64(len(s.Ys))-0.5-p[1])*sweepCellH))
		}
		if len(pts) < 2 {
			continue
		}
		fmt.Fprintf(&b, `<g class="ref"><polyline points="%s" fill="none" stroke="#1d4ed8" stroke-width="2" stroke-dasharray="6 4"/><title>%s</title></g>`+"\n", strings.Join(pts, " "), esc(r.Name))
		last := strings.Split(pts[len(pts)-1], ",")
		fmt.Fprintf(&b, `<text x="%s" y="%s" fill="#1d4ed8" font-size="11" dx="4" dy="-4">%s</text>`+"\n", last[0], last[1], esc(r.Name))
	}
	// Axes.
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#9ca3af"/>`+"\n", left, top, gw, gh)
	for i, y := range s.Ys {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-6, cellY(i)+sweepCellH/2+4, esc(y))
	}
	for j, x := range s.Xs {
		cx, cy := cellX(j)+sweepCellW/2, top+gh+14
		if rotate {
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" transform="rotate(-45 %d %d)">%s</text>`+"\n", cx, cy, cx, cy, esc(x))
		} else {
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", cx, cy, esc(x))
		}
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" font-weight="bold">%s &#8594;</text>`+"\n", left+gw/2, top+gh+xlabH+10, esc(s.XName))
	fmt.Fprintf(&b, `<text x="16" y="%d" font-weight="bold">%s &#8593;</text>`+"\n", top-8, esc(s.YName))
	// Legend.
	lx := 16
	fmt.Fprintf(&b, `<g id="legend" transform="translate(%d %d)">`+"\n", lx, legendY)
	for k := range 5 {
		c := SweepCell{Runs: 4, Broken: k}
		fmt.Fprintf(&b, `<rect x="%d" y="0" width="36" height="14" fill="%s"/>`+"\n", k*36, sweepColor(c))
	}
	b.WriteString(`<text x="0" y="28">safe</text><text x="180" y="28" text-anchor="end">broken in every run</text>` + "\n")
	b.WriteString(`<rect x="200" y="0" width="24" height="14" fill="#f3f4f6" stroke="#d1d5db"/><text x="230" y="11">not run</text>` + "\n")
	b.WriteString(`<line x1="290" y1="7" x2="314" y2="7" stroke="#111827" stroke-width="3"/><text x="320" y="11">safe / broken boundary</text>` + "\n")
	if bc := brokenCounts(s); len(bc) > 0 {
		fmt.Fprintf(&b, `<text x="0" y="46" fill="#6b7280">broken: %s</text>`+"\n", esc(strings.Join(bc, ", ")))
	}
	if n, _ := s.ErrorCells(); n > 0 {
		fmt.Fprintf(&b, `<rect x="0" y="54" width="24" height="14" fill="%s"/><text x="30" y="65">no verdict: a run stopped with an error (%d cells; hover one for its error)</text>`+"\n", sweepColor(SweepCell{Errors: 1}), n)
	}
	if s.Interrupted {
		fmt.Fprintf(&b, `<text x="0" y="82" font-weight="bold" fill="#b91c1c">%s</text>`+"\n", esc(sweepPartial))
	}
	b.WriteString("</g>\n</svg>\n")
	_, err := io.WriteString(w, b.String())
	return errors.Wrap(err, "writing sweep svg")
}

// anySweepGlyph reports whether a cell shows glyph g.
func anySweepGlyph(s *Sweep, g byte) bool {
	for _, r := range s.Cells {
		for _, c := range r {
			if cellGlyph(c) == g {
				return true
			}
		}
	}
	return false
}

// anySweepIdle reports whether a cell is safe but idle.
func anySweepIdle(s *Sweep) bool {
	for _, r := range s.Cells {
		for _, c := range r {
			if cellGlyph(c) == 'o' {
				return true
			}
		}
	}
	return false
}

func sweepState(c SweepCell) string {
	switch cellGlyph(c) {
	case 'o':
		return "idle"
	case '.':
		return "safe"
	case '#':
		return "broken"
	case '+':
		return "mixed"
	case 'E':
		return "error"
	case '?':
		return "no-verdict"
	}
	return "none"
}

// SweepSVGPath writes SweepSVG to a file, replacing it.
func SweepSVGPath(path string, s *Sweep) error {
	return writeFile(path, func(w io.Writer) error { return SweepSVG(w, s) })
}

// esc escapes text for XML and HTML.
func esc(s string) string { return html.EscapeString(s) }
