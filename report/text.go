package report

import (
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
)

// Text writes the terminal report of one run: a header, the timeline as
// ASCII lanes over a time axis with each violation's window marked by
// '^', a legend, the key events in order, one explanation per violation
// and a verdict line per invariant. The output is plain ASCII unless
// opts.Color is set, and the same result always gives the same bytes.
func Text(w io.Writer, r *model.Result, opts TextOptions) error {
	if r == nil {
		return errors.New("nil result")
	}
	width := opts.Width
	if width == 0 {
		width = DefaultWidth
	}
	if width < 20 {
		return errors.Errorf("text width %d is below 20 columns", width)
	}
	t := build(r)
	if opts.Wrap != 0 && opts.Wrap < 40 {
		return errors.Errorf("wrap width %d is below 40 columns", opts.Wrap)
	}
	p := &printer{color: opts.Color, wrapW: opts.Wrap, crowded: map[int]bool{}}
	meta := opts.Meta.withResult(r)
	p.header(meta, summarize(r, t), r)
	p.timeline(t, width)
	p.keyEvents(t)
	p.violations(t, r)
	p.verdicts(r, t.ix, opts.Details)
	p.terms()
	_, err := io.WriteString(w, p.b.String())
	return errors.Wrap(err, "writing text")
}

// TimelineText writes only the timeline lanes, their legend and the key
// events of a run: the part of Text a test log needs next to the
// violations' explanations.
func TimelineText(w io.Writer, r *model.Result, width int) error {
	if r == nil {
		return errors.New("nil result")
	}
	if width == 0 {
		width = DefaultWidth
	}
	if width < 20 {
		return errors.Errorf("text width %d is below 20 columns", width)
	}
	t := build(r)
	p := &printer{crowded: map[int]bool{}}
	p.timeline(t, width)
	p.keyEvents(t)
	_, err := io.WriteString(w, p.b.String())
	return errors.Wrap(err, "writing text")
}

// ViolationsText writes a run's violations explained, as Text does after
// "Violations:": numbered as the timeline numbers them, those that share a
// cause as one block (the cause, what they share, a line each, the history
// retold once), then what still held and why fencing did not stop a stale
// write (held.go). wrapWidth is the prose width (0: DefaultWrap). A run
// with no violations writes nothing.
func ViolationsText(w io.Writer, r *model.Result, wrapWidth int) error {
	if r == nil {
		return errors.New("nil result")
	}
	if wrapWidth != 0 && wrapWidth < 40 {
		return errors.Errorf("wrap width %d is below 40 columns", wrapWidth)
	}
	if len(r.Violations) == 0 {
		return nil
	}
	p := &printer{wrapW: wrapWidth, crowded: map[int]bool{}}
	t := build(r)
	p.violationList(t, r)
	for _, sec := range t.heldSections(r) { // what still held, why fencing did not
		p.line("")
		p.heldSection(sec)
	}
	_, err := io.WriteString(w, p.b.String())
	return errors.Wrap(err, "writing text")
}

// printer accumulates the text report.
type printer struct {
	b     strings.Builder
	color bool
	// wrapW is the width prose wraps at (TextOptions.Wrap; 0: DefaultWrap).
	wrapW int
	// crowded holds the Seq of the events the timeline drew under a '+';
	// the key-events list includes them.
	crowded map[int]bool
}

// ANSI styles, used only with TextOptions.Color.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBlue   = "\x1b[34m"
	ansiMag    = "\x1b[35m"
	ansiCyan   = "\x1b[36m"
	ansiBRed   = "\x1b[1;31m"
	ansiBGreen = "\x1b[1;32m"
)

// ownerStyles colour key values by client, in client order.
var ownerStyles = []string{ansiBlue, ansiMag, ansiCyan, ansiGreen, ansiYellow}

func (p *printer) style(s, st string) string {
	if !p.color || st == "" {
		return s
	}
	return st + s + ansiReset
}

// wrapWidth is the width prose wraps at.
func (p *printer) wrapWidth() int {
	if p.wrapW > 0 {
		return p.wrapW
	}
	return DefaultWrap
}

func (p *printer) line(s string) {
	p.b.WriteString(strings.TrimRight(s, " "))
	p.b.WriteByte('\n')
}

func (p *printer) header(m Meta, s specSummary, r *model.Result) {
	title := "locksim report"
	if m.Scenario != "" {
		title += ": " + m.Scenario
		if m.Title != "" {
			title += " - " + m.Title
		}
	} else if m.Title != "" {
		title += ": " + m.Title
	}
	p.line(p.style(title, ansiBold))
	p.field("design", designLine(m.Design, s))
	p.field("seed", strconv.FormatUint(m.Seed, 10))
	if len(m.Modules) > 0 {
		p.field("linked", strings.Join(m.Modules, ", "))
	}
	p.field("what if", strings.Join(m.WhatIf, ", ")+whatIfFollows(m.WhatIf, r.Spec))
	p.field("clients", strings.Join(s.Clients, ", "))
	if len(s.Faults) == 0 {
		p.field("faults", "none")
	}
	for i, f := range s.Faults {
		if i < len(r.FaultOutcomes) && !r.FaultOutcomes[i].Fired() {
			f += " (" + r.FaultOutcomes[i].String() + ")"
		}
		p.field("fault", f)
	}
	if r.Err != nil {
		p.field("run", "stopped early: "+r.Err.Error())
	}
	if m.Teaching != "" {
		p.line("")
		for _, l := range wrap(reflow(m.Teaching), p.wrapWidth(), "") {
			p.line(l)
		}
	}
	p.line("")
}

func (p *printer) field(k, v string) {
	if v == "" {
		return
	}
	p.line(fmt.Sprintf("%-8s %s", k, v))
}

// canvas maps true time to columns: column c covers [c*end/width,
// (c+1)*end/width).
type canvas struct {
	width int
	end   time.Duration
}

func (c canvas) col(t time.Duration) int {
	if t <= 0 {
		return 0
	}
	if t >= c.end {
		return c.width - 1
	}
	hi, lo := bits.Mul64(uint64(t), uint64(c.width))
	q, _ := bits.Div64(hi, lo, uint64(c.end))
	return min(int(q), c.width-1)
}

// cell is one character of a lane with its ANSI style.
type cell struct {
	ch    byte
	style string
	owner bool // a key value's owner letter, not a legend glyph
}

// spanGlyph and markGlyph draw the timeline. A mark with glyph 0 is not
// drawn in text (markShownBy says what shows it instead). Key spans use
// the owner's glyph.
var spanGlyph = map[string]byte{
	spanAcquiring: '-', spanHeld: '=', spanLease: '~', spanPaused: 'z', spanCrashed: '#',
	spanDown: '#', spanPartition: '/',
	spanDangerNone: '.', spanDangerLiveness: 'l', spanDangerLease: 'm', spanDangerData: '*',
}

var markGlyph = map[string]byte{
	markAcquired: 'a', markReacquired: 'a', markAcquireFailed: 'F', markLeaseLost: 'L',
	markWritePrepared: 'p', markWrite: 'w', markWriteOK: 'W', markWriteRejected: 'X', markRelease: 'r',
	markRenew: 'R', markRenewFailed: 's', markWatchdogStop: 'S', markCrash: 'k',
	markRestart: 'U', markClockJump: 'J', markClockDrift: '%', markError: 'E',
	markExpired: 'x', markDeleted: '|', markEvicted: 'e', markNodeUp: 'U',
	markPromote: 'P', markDemote: 'D', markResOK: 'W', markResRejected: 'X',
	markNetDelay: 'd', markNetDrop: 'o', markResRead: 'v', markResReadRefused: 'V',
	markNodeStall: 'b', markNodeResume: 'g',
	markStarve: 'c', markStarveEnd: 'C',
	markMemoryPressure: 'M',
}

// markShownBy names, for each mark the text draws no glyph for, the glyph
// that shows it instead: the span it starts or ends, or a mark next to it.
var markShownBy = map[string]byte{
	markReleased:  'r', // the release it finishes
	markNodeCrash: '#', // the down span it starts
	markHeal:      '/', // the partition span it ends
}

// legendText explains each glyph, in legend order.
var legendText = []struct {
	ch   byte
	text string
}{
	{'-', "acquiring"}, {'=', "holding (critical section)"}, {'~', "lease the client believes it has"},
	{'z', "paused"}, {'#', "crashed / down"}, {'/', "partition"},
	{'a', "acquired"}, {'r', "release"}, {'R', "renewed"}, {'s', "renewal failed"}, {'S', "watchdog stopped"},
	{'F', "acquire gave up"}, {'L', "lease lost (did not enter / write)"},
	{'p', "write prepared (its request left later, at its W, X or w)"},
	{'W', "write accepted (client row: when sent; resource row: when applied)"}, {'X', "write rejected (likewise)"}, {'w', "write (no answer)"},
	{'v', "read served (resource row)"}, {'V', "read refused (resource row)"},
	{'x', "key expired"}, {'|', "key deleted"}, {'e', "key evicted"},
	{'k', "crash (killed)"}, {'U', "restart"}, {'P', "promoted"}, {'D', "demoted"},
	{'J', "clock jump"}, {'%', "clock rate change"}, {'d', "network delay"}, {'o', "network drop"},
	{'b', "node stalled (its thread blocked)"}, {'g', "stalled node serves again"},
	{'c', "a task starved of CPU (the rest of the process runs)"}, {'C', "the starved task runs again"},
	{'M', "memory pressure: a burst of other data (the node evicts by its maxmemory-policy)"},
	{'E', "task error"}, {'+', "several events in one column (each listed in the key events)"},
	{'*', "danger: one fault here can lose data"}, {'m', "danger: one fault here breaks the lease, the data holds"},
	{'l', "danger: one fault here stalls the lock (liveness)"}, {'.', "danger: no single fault here breaks anything"},
}

func spanStyle(s span, owners map[string]string) string {
	switch s.Kind {
	case spanHeld:
		return ansiGreen
	case spanAcquiring, spanLease:
		return ansiDim
	case spanPaused:
		return ansiYellow
	case spanCrashed, spanDown:
		return ansiRed
	case spanPartition:
		return ansiMag
	case spanKey:
		return owners[s.Owner]
	}
	return ""
}

func markStyle(k string) string {
	switch k {
	case markWriteOK, markResOK:
		return ansiBGreen
	case markWriteRejected, markResRejected, markExpired, markError, markLeaseLost, markAcquireFailed:
		return ansiBRed
	}
	return ansiBold
}

// ownerGlyphs gives each client the letter its key values are drawn with:
// its own first letter when unique, else A, B, C... in client order.
func ownerGlyphs(clients []string) map[string]byte {
	out := map[string]byte{}
	seen := map[byte]bool{}
	unique := true
	for _, c := range clients {
		g := strings.ToUpper(c)[0]
		if seen[g] || !(g >= 'A' && g <= 'Z' || g >= '0' && g <= '9') {
			unique = false
		}
		seen[g] = true
	}
	for i, c := range clients {
		if unique {
			out[c] = strings.ToUpper(c)[0]
		} else if i < 26 {
			out[c] = byte('A' + i)
		} else {
			out[c] = '*'
		}
	}
	return out
}

func (p *printer) timeline(t *timeline, width int) {
	if len(t.Lanes) == 0 {
		p.line("Timeline: no events recorded.")
		p.line("")
		return
	}
	cv := canvas{width: width, end: t.End}
	glyphs := ownerGlyphs(t.clients)
	styles := map[string]string{}
	for i, c := range t.clients {
		styles[c] = ownerStyles[i%len(ownerStyles)]
	}
	idW, rowW := 0, 0
	for _, l := range t.Lanes {
		idW = max(idW, len(l.ID))
		for _, rw := range l.Rows {
			rowW = max(rowW, len(rw.Name))
		}
	}
	for _, wd := range t.Windows {
		idW = max(idW, len("!"+strconv.Itoa(wd.Index)))
	}
	labelW := idW + 1 + rowW + 1
	pad := strings.Repeat(" ", labelW)

	colDur := t.End / time.Duration(width)
	p.line(fmt.Sprintf("Timeline (true time; 1 column = %s)", short(roundDur(colDur))))
	ticks, labels := axis(cv)
	p.line(pad + labels)
	p.line(pad + ticks)
	used, owners := map[byte]bool{}, map[byte]bool{}
	for _, l := range t.Lanes {
		for ri, rw := range l.Rows {
			id := ""
			if ri == 0 {
				id = l.ID
			}
			cells := make([]cell, width)
			for i := range cells {
				cells[i].ch = ' '
			}
			for _, s := range rw.Spans {
				g := spanGlyph[s.Kind]
				if s.Kind == spanKey {
					g = '?'
					if og, ok := glyphs[s.Owner]; ok {
						g = og
					}
				}
				st := spanStyle(s, styles)
				for c := cv.col(s.From); c <= cv.col(s.To); c++ {
					cells[c] = cell{g, st, s.Kind == spanKey}
				}
			}
			for _, crowd := range placeMarks(cells, cv, rw.Marks) {
				for _, seq := range crowd {
					p.crowded[seq] = true
				}
			}
			// A key value stays visible even when marks cover its columns.
			for _, s := range rw.Spans {
				if s.Kind != spanKey {
					continue
				}
				a, b := cv.col(s.From), cv.col(s.To)
				g := glyphs[s.Owner]
				if g == 0 {
					g = '?'
				}
				seen := false
				for c := a; c <= b; c++ {
					seen = seen || cells[c].ch == g
				}
				if !seen {
					cells[a] = cell{g, spanStyle(s, styles), true}
				}
			}
			for _, c := range cells {
				if c.owner {
					owners[c.ch] = true
				} else {
					used[c.ch] = true
				}
			}
			p.line(fmt.Sprintf("%-*s %-*s ", idW, id, rowW, rw.Name) + p.cells(cells))
		}
	}
	p.line(pad + ticks)
	for _, wd := range t.Windows {
		cells := make([]byte, width)
		for i := range cells {
			cells[i] = ' '
		}
		a, b := cv.col(wd.From), cv.col(wd.To)
		for c := a; c <= b; c++ {
			cells[c] = '^'
		}
		text := wd.Invariant
		if len(wd.Clients) > 0 {
			text += " (" + strings.Join(wd.Clients, ", ") + ")"
		}
		bar := string(cells)
		switch {
		case b+2+len(text) <= width:
			bar = bar[:b+2] + text + bar[b+2+len(text):]
		case a-1-len(text) >= 0:
			bar = bar[:a-1-len(text)] + text + bar[a-1:]
		default:
			bar = strings.TrimRight(bar, " ") + " " + text
		}
		bar = strings.ReplaceAll(bar, "^", p.style("^", ansiBRed))
		p.line(fmt.Sprintf("%-*s ", labelW-1, "!"+strconv.Itoa(wd.Index)) + bar)
	}
	p.legend(used, owners, t.clients, glyphs, len(t.Windows) > 0)
	p.line("")
}

// maxShift is how many columns the text timeline moves a mark away from
// its own column to keep it visible and in time order. A mark that would
// have to move further shares a '+' cell with its neighbour instead.
const maxShift = 3

// slot is one column of a row holding one mark, or several under '+'.
type slot struct {
	col, lo int // the column, and the leftmost it may move to
	marks   []mark
}

// placeMarks draws a row's marks in time order (At, then Seq), so that
// left to right is time order and no mark hides another. A mark whose
// column an earlier mark took moves right; when that would put it more
// than maxShift columns from its own column or past the row's right edge,
// the marks before it move left to make room, each at most maxShift
// columns from its own; when even that fails (the row truly lacks room
// there), the mark joins the previous one and the cell shows '+', several
// events. Marks with no glyph are not drawn. It returns, for each '+'
// from left to right, the Seq of the marks it stands for, in time order.
func placeMarks(cells []cell, cv canvas, marks []mark) [][]int {
	ms := make([]mark, 0, len(marks))
	for _, m := range marks {
		if markGlyph[m.Kind] != 0 {
			ms = append(ms, m)
		}
	}
	sortMarks(ms)
	var slots []slot
	for _, m := range ms {
		own := cv.col(m.At)
		lo, hi := max(0, own-maxShift), min(len(cells)-1, own+maxShift)
		c := own
		if n := len(slots); n > 0 {
			c = max(c, slots[n-1].col+1)
		}
		if c > hi && !makeRoom(slots, hi-1) {
			last := &slots[len(slots)-1]
			last.marks = append(last.marks, m)
			last.lo = last.col // a '+' stays where it formed
			continue
		}
		slots = append(slots, slot{col: min(c, hi), lo: lo, marks: []mark{m}})
	}
	var crowds [][]int
	for _, s := range slots {
		if len(s.marks) == 1 {
			m := s.marks[0]
			cells[s.col] = cell{ch: markGlyph[m.Kind], style: markStyle(m.Kind)}
			continue
		}
		cells[s.col] = cell{ch: '+', style: ansiBold}
		var seqs []int
		for _, m := range s.marks {
			seqs = append(seqs, m.Seq)
		}
		crowds = append(crowds, seqs)
	}
	return crowds
}

// makeRoom moves the trailing slots left so that the last one sits at or
// before column at, each keeping its order and its lower bound; it reports
// whether it could (and changes nothing when it could not).
func makeRoom(slots []slot, at int) bool {
	k := len(slots) - 1
	for limit := at; k >= 0 && slots[k].col > limit; k, limit = k-1, limit-1 {
		if limit < slots[k].lo {
			return false
		}
	}
	for j, limit := len(slots)-1, at; j > k; j, limit = j-1, limit-1 {
		slots[j].col = limit
	}
	return true
}

func (p *printer) cells(cs []cell) string {
	var b strings.Builder
	for i := 0; i < len(cs); {
		j := i
		for j < len(cs) && cs[j].style == cs[i].style {
			j++
		}
		run := make([]byte, j-i)
		for k := i; k < j; k++ {
			run[k-i] = cs[k].ch
		}
		b.WriteString(p.style(string(run), cs[i].style))
		i = j
	}
	return b.String()
}

// legend lists the glyphs that appear, then the key-value letters.
func (p *printer) legend(used, ownerUsed map[byte]bool, clients []string, glyphs map[string]byte, windows bool) {
	var items []string
	for _, l := range legendText {
		if used[l.ch] {
			items = append(items, string(l.ch)+" "+l.text)
		}
	}
	var owners []string
	for _, c := range clients {
		if ownerUsed[glyphs[c]] {
			owners = append(owners, string(glyphs[c])+" = "+c)
		}
	}
	if len(owners) > 0 {
		items = append(items, "node rows: the key holds the value of "+strings.Join(owners, ", "))
	}
	if ownerUsed['?'] {
		items = append(items, "? a value of no known client")
	}
	if windows {
		items = append(items, "^ violation window")
	}
	if len(items) == 0 {
		return
	}
	p.line("")
	for _, l := range wrap("Legend: "+strings.Join(items, "; ")+".", p.wrapWidth(), "  ") {
		p.line(l)
	}
}

// roundDur rounds a column's duration to three significant digits.
func roundDur(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	m := time.Duration(1)
	for d/m >= 1000 {
		m *= 10
	}
	return (d + m/2) / m * m
}

// axis returns the tick row ('|' at ticks, '-' between) and the labels
// row for a canvas.
func axis(cv canvas) (string, string) {
	step := tickStep(cv.end, max(2, cv.width/10))
	ticks := []byte(strings.Repeat("-", cv.width))
	labels := []byte(strings.Repeat(" ", cv.width+12))
	next := 0
	for k := time.Duration(0); k*step <= cv.end; k++ {
		c := cv.col(k * step)
		if k*step == cv.end {
			c = cv.width - 1
		}
		ticks[c] = '|'
		l := tickLabel(k*step, step)
		if c >= next && c+len(l) <= len(labels) {
			copy(labels[c:], l)
			next = c + len(l) + 1
		}
	}
	return string(ticks), strings.TrimRight(string(labels), " ")
}

// tickStep picks 1, 2 or 5 times a power of ten so that end has at most n
// steps.
func tickStep(end time.Duration, n int) time.Duration {
	for p := time.Duration(1); ; p *= 10 {
		for _, f := range []time.Duration{1, 2, 5} {
			if s := f * p; end/s <= time.Duration(n) {
				return s
			}
		}
		if p > time.Duration(1)<<58 {
			return end
		}
	}
}

// tickLabel renders a tick in the unit of the step: "0.2s", "15ms".
func tickLabel(d, step time.Duration) string {
	if d == 0 {
		return "0"
	}
	unit, name := time.Second, "s"
	switch {
	case step < time.Microsecond:
		unit, name = time.Nanosecond, "ns"
	case step < time.Millisecond:
		unit, name = time.Microsecond, "us"
	case step < 100*time.Millisecond:
		unit, name = time.Millisecond, "ms"
	}
	dec := 0
	for u := unit; step%u != 0 && dec < 9; u /= 10 {
		dec++
	}
	return strconv.FormatFloat(float64(d)/float64(unit), 'f', dec, 64) + name
}

func (p *printer) keyEvents(t *timeline) {
	keys := t.Key
	if len(p.crowded) > 0 {
		keys = t.keyEvents(p.crowded)
	}
	if len(keys) == 0 {
		return
	}
	p.line("Key events (! = cited by a violation):")
	actorW := 0
	for _, k := range keys {
		actorW = max(actorW, len(k.Actor))
	}
	wi := 0
	for _, k := range keys {
		for wi < len(t.Windows) && t.Windows[wi].From < k.At {
			p.windowLine(t.Windows[wi])
			wi++
		}
		flag := " "
		if k.Cited {
			flag = p.style("!", ansiBRed)
		}
		p.line(fmt.Sprintf("%s %s  %-*s  %s", flag, fmtT(k.At), actorW, k.Actor, k.Text))
	}
	for ; wi < len(t.Windows); wi++ {
		p.windowLine(t.Windows[wi])
	}
	p.line("")
}

func (p *printer) windowLine(w window) {
	s := fmt.Sprintf("^ %s  violation %d: %s from %s to %s", fmtT(w.From), w.Index, w.Invariant, fmtT(w.From), fmtT(w.To))
	p.line(p.style(s, ansiBRed))
}

func (p *printer) violations(t *timeline, r *model.Result) {
	vs := r.Violations
	if r.Err != nil {
		p.line(p.style("No verdicts: the run stopped with an error before it finished, so nothing was judged.", ansiBRed))
		p.line("")
		return
	}
	if r.Vacuous() {
		p.line(p.style("Vacuous: no client acquired the lock, so nothing was judged (no verdict).", ansiYellow))
		p.line("")
		return
	}
	if r.NoFaultFired() {
		p.line(p.style("No verdict: none of the run's faults took effect, so it judged the design without them (the key events show why).", ansiYellow))
		p.line("")
		return
	}
	if len(vs) == 0 {
		p.line("No violations found.")
		p.line("")
		p.heldItems(t, r)
		return
	}
	p.line("Violations:")
	p.violationList(t, r)
	p.line("")
	p.heldItems(t, r)
}

// heldItems writes the saving events of the run (heldSections): why it
// held, what still held, why fencing did not stop a stale write.
func (p *printer) heldItems(t *timeline, r *model.Result) {
	for _, sec := range t.heldSections(r) {
		p.heldSection(sec)
		p.line("")
	}
}

// heldSection writes one section of saving events.
func (p *printer) heldSection(sec heldSection) {
	width := p.wrapWidth()
	p.line(sec.Title + " (from the history):")
	for _, it := range sec.Items {
		for _, l := range hang("- "+it.Text+".", width, "  ", "    ") {
			p.line(l)
		}
	}
}

// violationList writes each violation explained, those that share a cause
// as one block (group.go): the cause, the facts they share, a line per
// violation, and the history retold once.
func (p *printer) violationList(t *timeline, r *model.Result) {
	vs := r.Violations
	width := p.wrapWidth()
	for _, g := range t.groups(vs) {
		v := vs[g.Members[0]]
		counted := ""
		if !r.IsCounted(v.Invariant) {
			counted = " (not counted: not asked about)"
		}
		if len(g.Members) == 1 {
			p.line(p.style(fmt.Sprintf("%d. %s: %s", g.Members[0]+1, v.Invariant, violationHead(v))+counted, ansiBold))
			if v.Explanation != "" {
				for _, l := range wrap(v.Explanation, width, "   ") {
					p.line(l)
				}
			}
			if s := t.story(v); s != "" {
				for _, l := range wrap(s, width, "   ") {
					p.line(l)
				}
			}
			continue
		}
		var ms []invariant.Violation
		for _, i := range g.Members {
			ms = append(ms, vs[i])
		}
		counted = ""
		if !groupCounted(r, ms) {
			counted = " (not counted: not asked about)"
		}
		head := fmt.Sprintf("%s. %s, %s violations with one cause%s: %s", numbers(g.Members), groupLabel(ms), count(len(ms)), counted, g.Cause)
		for _, l := range hang(head, width, "", "   ") {
			p.line(p.style(l, ansiBold))
		}
		if g.Shared != "" {
			for _, l := range wrap("In each: "+g.Shared+".", width, "   ") {
				p.line(l)
			}
		}
		for k, i := range g.Members {
			own := g.Each[k]
			if counted == "" && !r.IsCounted(vs[i].Invariant) {
				own += " (not counted)"
			}
			for _, l := range hang(fmt.Sprintf("#%d %s", i+1, own), width, "   ", "      ") {
				p.line(l)
			}
		}
		if s := t.groupStory(ms); s != "" {
			for _, l := range wrap(s, width, "   ") {
				p.line(l)
			}
		}
	}
}

// whatIfFollows names the knobs that change with a what-if flag: --ttl
// moves the default acquire wait (3 × the TTL) when the spec sets none.
func whatIfFollows(whatIf []string, s model.Spec) string {
	for _, w := range whatIf {
		if strings.HasPrefix(w, "--ttl") && s.Options.TTL > 0 && (s.Options.AcquireWait == 0 || s.Options.AcquireWait == 3*s.Options.TTL) {
			return " (the acquire wait, 3 × the TTL by default, follows it: " + short(3*s.Options.TTL) + ")"
		}
	}
	return ""
}

// verdicts writes each invariant's verdict. Without details, the
// invariants not checked (the design or resource makes them meaningless)
// are named on one line, not one line each with the reason: a beginner
// reads what was judged.
func (p *printer) verdicts(r *model.Result, ix *history.Index, details bool) {
	p.line("Verdicts:")
	ds := verdicts(r, ix)
	w := 0
	for _, d := range ds {
		w = max(w, len(d.Invariant))
	}
	var folded []string
	for _, d := range ds {
		if !details && d.Verdict == verdictNotChecked {
			folded = append(folded, d.Invariant)
			continue
		}
		n := "1 violation"
		if d.Violations != 1 {
			n = strconv.Itoa(d.Violations) + " violations"
		}
		var s string
		switch {
		case d.Verdict == verdictNone:
			s = p.style("no verdict", ansiDim) + " (" + d.Why + ")"
		case d.Verdict == verdictNotChecked:
			s = p.style("not checked", ansiDim) + " (" + d.Why + ")"
		case d.Verdict == verdictBroken && d.Counted:
			s = p.style("BROKEN", ansiBRed) + " (" + n + ")"
		case d.Verdict == verdictBroken:
			s = p.style("broken", ansiYellow) + " (not counted: " + n + ")"
		case d.Counted && d.Why != "":
			s = p.style("held", ansiGreen) + " (" + d.Why + ")"
		case d.Counted:
			s = p.style("held", ansiGreen)
		default:
			s = p.style("held", ansiGreen) + " (not counted)"
		}
		p.line(fmt.Sprintf("  %-*s  %s", w, d.Invariant, s))
	}
	if len(folded) > 0 {
		for _, l := range hang("  not checked here: "+strings.Join(folded, ", ")+" (--details says why)", p.wrapWidth(), "", "    ") {
			p.line(p.style(l, ansiDim))
		}
	}
}

// terms ends the report with the glossary terms it used and where they
// are explained.
func (p *printer) terms() {
	used := termsIn(p.b.String())
	if len(used) == 0 {
		return
	}
	names := make([]string, len(used))
	for i, u := range used {
		names[i] = glossary[u].Name
	}
	p.line("")
	for _, l := range wrap("Terms used (docs/glossary.md explains each): "+strings.Join(names, ", ")+".", p.wrapWidth(), "") {
		p.line(p.style(l, ansiDim))
	}
}

// reflow joins the lines of each paragraph of a hand-wrapped text (a
// scenario file's) so that wrap breaks it at the report's width, not where
// the file's lines happen to end: a line break inside a paragraph is a
// space; a blank line, and a line that starts with a space (an indented
// example), keep their breaks.
func reflow(text string) string {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			prev := lines[i-1]
			if l == "" || prev == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// hang wraps text like wrap, its first line indented by first and the
// others by rest.
func hang(text string, width int, first, rest string) []string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		out = append(out, wrapPara(para, width, first, rest)...)
		first = rest
	}
	return out
}

// wrap breaks text into lines of at most width bytes (longer words stay
// whole), each starting with indent.
func wrap(text string, width int, indent string) []string { return hang(text, width, indent, indent) }

// wrapPara wraps one paragraph: its first line starts with first, the
// others with rest; a paragraph's own leading blanks add to both.
func wrapPara(para string, width int, first, rest string) []string {
	// An indented paragraph (an example) keeps its indent.
	if lead := para[:len(para)-len(strings.TrimLeft(para, " \t"))]; lead != "" {
		first, rest = first+lead, rest+lead
	}
	var out []string
	indent := first
	line := indent
	for _, w := range strings.Fields(para) {
		if len(line) > len(indent) && len(line)+1+len(w) > width {
			out = append(out, line)
			indent = rest
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	return append(out, line)
}
