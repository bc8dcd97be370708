package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/engine"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// Danger is a danger map: a design's fault-free run, and for each point
// of it (a moment a fault can take hold, engine.Point) the worst that one
// fault placed there does. Exhaustive mode (engine.Exhaustive) finds it.
type Danger struct {
	// Run is the fault-free run.
	Run    *model.Result
	Design string
	// Guarantee and Limits are the exhaustive check's sentences: what was
	// explored and what broke, and what that is relative to.
	Guarantee, Limits string
	Points            []DangerPoint
	// Verdicts and Ways, if set, are the exhaustive check's own verdicts
	// (one per invariant, over every schedule) and the ways the design
	// broke: the HTML page shows them instead of the fault-free run's.
	Verdicts []DangerVerdict
	Ways     []DangerWay
	// More counts the ways not listed.
	More int
}

// DangerVerdict is an invariant's verdict over every schedule.
type DangerVerdict struct {
	Invariant string
	// Verdict is the CSS class: "held", "broken" or "unchecked".
	Verdict, Text string
}

// DangerWay is one way the design broke, with its smallest schedule.
type DangerWay struct {
	// N numbers the way among all the ways the design broke, from 1 (its
	// place in the JSON's breaks); 0 means its place in Ways.
	N                          int
	Mechanism, Broken, Classes string
	Schedules                  int
	Smallest                   []string
	Replay                     string
}

// DangerPoint is one point of the map.
type DangerPoint struct {
	At    time.Duration
	Actor string
	Harm  invariant.Harm
	// Label names the point ("A acquired #1: after the client's
	// acquired"), Detail what the faults there broke.
	Label, Detail string
}

var dangerSpan = map[invariant.Harm]string{
	invariant.HarmNone: spanDangerNone, invariant.HarmLiveness: spanDangerLiveness,
	invariant.HarmLease: spanDangerLease, invariant.HarmData: spanDangerData,
}

// dangerRow is the name of the row a danger map adds to each lane.
const dangerRow = "danger"

// addDanger adds a danger row to the lane of each actor with points: a
// zone from each point to the actor's next (the last to the end of the
// run), coloured by the worst harm of the points at its start. In a row
// the worse zones come last, so that text, which draws a column once,
// shows the worst of the zones that share it. With first the row is the
// lane's first (the page draws it first and taller: it is the point of a
// danger map), else its last.
func (t *timeline) addDanger(pts []DangerPoint, first bool) {
	by := map[string][]DangerPoint{}
	for _, p := range pts {
		by[p.Actor] = append(by[p.Actor], p)
	}
	for li := range t.Lanes {
		l := &t.Lanes[li]
		ps := by[l.ID]
		if len(ps) == 0 {
			continue
		}
		slices.SortStableFunc(ps, func(a, b DangerPoint) int { return int(a.At - b.At) })
		var spans []span
		for i := 0; i < len(ps); {
			j, worst := i, ps[i]
			var details []string
			for ; j < len(ps) && ps[j].At == ps[i].At; j++ {
				if ps[j].Harm > worst.Harm {
					worst = ps[j]
				}
				details = append(details, ps[j].Label+": "+ps[j].Detail)
			}
			to := t.End
			if j < len(ps) {
				to = ps[j].At
			}
			spans = append(spans, span{Kind: dangerSpan[worst.Harm], From: ps[i].At, To: to,
				Label: worst.Harm.String(), Detail: strings.Join(details, "\n")})
			i = j
		}
		slices.SortStableFunc(spans, func(a, b span) int {
			return slices.Index(dangerOrder, a.Kind) - slices.Index(dangerOrder, b.Kind)
		})
		r := row{Name: dangerRow, Spans: spans, Marks: []mark{}}
		if first {
			l.Rows = append([]row{r}, l.Rows...)
		} else {
			l.Rows = append(l.Rows, r)
		}
	}
}

// dangerOrder is the zones from least to worst.
var dangerOrder = []string{spanDangerNone, spanDangerLiveness, spanDangerLease, spanDangerData}

// DangerText writes a danger map for the terminal: the guarantee, the
// fault-free run's timeline with the danger rows first and two lines tall
// in each actor's lane (they are the point: which moment of the protocol
// one fault can break), the ways it breaks grouped by mechanism, then the
// points in time order with what the worst fault there breaks.
func DangerText(w io.Writer, d *Danger, width int) error {
	if d == nil || d.Run == nil {
		return errors.New("no danger map")
	}
	p := &printer{crowded: map[int]bool{}}
	p.line("Danger map of " + d.Design + ": what one fault at each moment of its fault-free run breaks")
	if d.Guarantee != "" {
		p.line(d.Guarantee)
	}
	if d.Limits != "" {
		p.line(d.Limits)
	}
	p.line("")
	if err := p.dangerPicture(d, width); err != nil {
		return err
	}
	p.dangerWays(d.Ways, d.More)
	p.dangerPoints(d)
	_, err := io.WriteString(w, p.b.String())
	return errors.Wrap(err, "writing text")
}

// dangerPicture draws the fault-free run with each actor's danger row
// first in its lane and drawn twice (two lines tall, so the zones read
// before the lanes they judge), then the legend.
func (p *printer) dangerPicture(d *Danger, width int) error {
	if width == 0 {
		width = DefaultWidth
	}
	if width < 20 {
		return errors.Errorf("text width %d is below 20 columns", width)
	}
	t := build(d.Run)
	t.addDanger(d.Points, true)
	for li := range t.Lanes {
		l := &t.Lanes[li]
		if len(l.Rows) > 0 && l.Rows[0].Name == dangerRow {
			second := l.Rows[0]
			second.Name = ""
			l.Rows = slices.Insert(l.Rows, 1, second)
		}
	}
	p.timeline(t, width)
	return nil
}

// dangerWays lists the ways a design broke grouped by mechanism (the
// fault kind that starts them, groupWays), each way folded under its
// group with its smallest schedule and replay line, numbered as the JSON
// lists them. more counts the ways not listed.
func (p *printer) dangerWays(ways []DangerWay, more int) {
	if len(ways) == 0 {
		return
	}
	ways = slices.Clone(ways)
	for i := range ways {
		if ways[i].N == 0 {
			ways[i].N = i + 1
		}
	}
	total := len(ways) + more
	head := "1 way it breaks"
	if total > 1 {
		head = thousands(total) + " ways it breaks"
	}
	p.line(head + ", grouped by mechanism (the smallest schedule of each):")
	for gi, g := range groupWays(ways) {
		if gi > 0 {
			p.line("")
		}
		p.line(fmt.Sprintf("  %s: %s (%s), breaking %s", g.Kind, g.Count, plural(g.Schedules, "schedule"), g.Broken))
		for _, w := range g.Ways {
			p.line(fmt.Sprintf("    %d. %s", w.N, w.Mechanism))
			if w.Classes == "" {
				p.line(fmt.Sprintf("       breaks %s (%s)", w.Broken, plural(w.Schedules, "schedule")))
			} else {
				p.line(fmt.Sprintf("       breaks %s (%s; durations %s)", w.Broken, plural(w.Schedules, "schedule"), w.Classes))
			}
			for _, l := range w.Smallest {
				p.line("       " + l)
			}
			if w.Replay != "" {
				p.line("       replay: " + w.Replay)
			}
		}
	}
	if more > 0 {
		p.line(fmt.Sprintf("  ... and %d more (--format json lists them all)", more))
	}
	p.line("")
}

// dangerPoints lists the points where one fault breaks something, in time
// order.
func (p *printer) dangerPoints(d *Danger) {
	pts := slices.Clone(d.Points)
	slices.SortStableFunc(pts, func(a, b DangerPoint) int { return int(a.At - b.At) })
	safe := 0
	for _, pt := range pts {
		if pt.Harm == invariant.HarmNone {
			safe++
		}
	}
	if safe == len(pts) {
		p.line(fmt.Sprintf("No single fault at any of the %d points breaks a counted invariant.", len(pts)))
	} else {
		p.line(fmt.Sprintf("Points where one fault breaks something (%d of %d; a zone runs from its point to the actor's next one):", len(pts)-safe, len(pts)))
	}
	for _, pt := range pts {
		if pt.Harm != invariant.HarmNone {
			p.line(strings.TrimRight(fmt.Sprintf("  %c %s  %-10s %s. %s", spanGlyph[dangerSpan[pt.Harm]], sim.FormatTime(pt.At), pt.Actor, pt.Label, pt.Detail), " "))
		}
	}
	p.line("")
}

// DangerHTML writes a danger map as one HTML page: the verdicts over
// every schedule, then the fault-free run's timeline with a taller danger
// row first in each actor's lane (hover a zone for its points and what
// broke there), the guarantee, then the ways it breaks grouped by
// mechanism (the fault kind), each group folded.
func DangerHTML(w io.Writer, d *Danger) error {
	if d == nil || d.Run == nil {
		return errors.New("no danger map")
	}
	meta := Meta{Design: d.Design, Title: "danger map of " + d.Design,
		Teaching: d.Guarantee + ". " + capitalize(d.Limits) + ". The danger row under each actor colours each moment of this " +
			"fault-free run by the worst one fault placed there does: red, the data (an update lost); amber, the lease " +
			"only (the data held); blue, liveness only; green, nothing."}
	return writeHTML(w, d.Run, meta, func(t *timeline, p *htmlPage) {
		t.addDanger(d.Points, true)
		p.Danger = d
		p.DangerGroups = groupWays(d.Ways)
	})
}

// dangerGroup is the ways of one mechanism: the fault kind that starts
// them ("pause", "clock-jump"), in the order the kind first appears.
type dangerGroup struct {
	Kind, Count, Broken string
	Schedules           int
	Ways                []DangerWay
}

// groupWays groups the ways by their mechanism's fault kind (its first
// word), each group listing the invariants any of its ways broke.
func groupWays(ways []DangerWay) []dangerGroup {
	var out []dangerGroup
	at := map[string]int{}
	for _, w := range ways {
		kind, _, _ := strings.Cut(w.Mechanism, " ")
		if w.Mechanism == engine.NoFaultMechanism {
			kind = "no fault"
		}
		i, ok := at[kind]
		if !ok {
			i = len(out)
			at[kind] = i
			out = append(out, dangerGroup{Kind: kind})
		}
		out[i].Ways = append(out[i].Ways, w)
		out[i].Schedules += w.Schedules
	}
	for i := range out {
		g := &out[i]
		var broken []string
		for _, w := range g.Ways {
			for _, id := range strings.Split(w.Broken, ",") {
				if id = strings.TrimSpace(id); id != "" && !slices.Contains(broken, id) {
					broken = append(broken, id)
				}
			}
		}
		g.Broken = strings.Join(broken, ", ")
		g.Count = count(len(g.Ways)) + " ways"
		if len(g.Ways) == 1 {
			g.Count = "one way"
		}
	}
	return out
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
