package logcheck

import (
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
	"time"
)

// Drawn is one belief kept for the HTML timeline, on its host's clock.
type Drawn struct {
	Client, Host, EndHow string
	From, To             int64
	Token                int64
}

// MaxDrawn bounds the beliefs the HTML timeline keeps (the first ones).
const MaxDrawn = 2000

// HTML writes a one-file page: the verdicts, the violations, a timeline
// with one lane per client (its beliefs as bars on its host's clock, the
// host's clock uncertainty drawn as a pale band at each end: the bar's
// true ends lie somewhere within it) and the contention figures.
func (r *Result) HTML(w io.Writer) error {
	var b strings.Builder
	st := r.Stats
	b.WriteString("<!doctype html><html><head><meta charset=\"utf-8\"><title>locksim check-log</title><style>" +
		"body{font-family:sans-serif;margin:1.5em;max-width:1200px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}" +
		".broken{color:#b00;font-weight:bold}.possible{color:#c60}.lane{font:12px monospace}</style></head><body>\n")
	fmt.Fprintf(&b, "<h1>check-log</h1><p>%d events from %d file(s), %d host(s), %d client(s), %d key(s); %s.</p>\n",
		st.Events, len(r.Files), st.Hosts, st.Clients, st.Keys, html.EscapeString(r.skewLine()))
	if r.NothingJudged != "" {
		fmt.Fprintf(&b, "<p class=\"broken\">Nothing judged: %s.</p>\n", html.EscapeString(r.NothingJudged))
	}
	b.WriteString("<h2>Verdicts</h2><table><tr><th>invariant</th><th>verdict</th><th>certain</th><th>possible</th><th>why</th></tr>\n")
	for _, v := range r.Verdicts {
		cls := ""
		switch v.Verdict {
		case "broken":
			cls = "broken"
		case "possibly broken":
			cls = "possible"
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td class=\"%s\">%s</td><td>%d</td><td>%d</td><td>%s</td></tr>\n",
			v.Invariant, cls, v.Verdict, v.Certain, v.Possible, html.EscapeString(v.Why))
	}
	b.WriteString("</table>\n")
	if len(r.Violations) > 0 {
		b.WriteString("<h2>Violations</h2><ol>\n")
		for _, v := range r.Violations {
			fmt.Fprintf(&b, "<li><b>%s</b> (%s, key <code>%s</code>): %s</li>\n", v.Invariant, v.Certainty, html.EscapeString(v.Key), html.EscapeString(v.Explanation))
		}
		b.WriteString("</ol>\n")
	}
	r.timeline(&b)
	b.WriteString("<h2>Contention</h2><table><tr><th>figure</th><th>n</th><th>p50</th><th>p90</th><th>p99</th><th>max</th></tr>\n")
	for _, row := range []struct {
		name string
		d    Dist
	}{{"acquire latency", st.Latency}, {"refused after", st.Refusals}, {"hold time", st.Holds}} {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%v</td><td>%v</td><td>%v</td><td>%v</td></tr>\n", row.name, row.d.N, round(row.d.P50), round(row.d.P90), round(row.d.P99), round(row.d.Max))
	}
	fmt.Fprintf(&b, "</table><p>Grants per client: %s.</p>\n</body></html>\n", html.EscapeString(fairness(st.Grants)))
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Result) skewOf(h string) time.Duration {
	if d, ok := r.HostSkew[h]; ok {
		return d
	}
	return r.Skew
}

// timeline draws the kept beliefs as an SVG, one lane per client.
func (r *Result) timeline(b *strings.Builder) {
	if len(r.Beliefs) == 0 {
		return
	}
	lo, hi := r.Beliefs[0].From, r.Beliefs[0].To
	lanes := map[string]string{} // client -> host
	for _, d := range r.Beliefs {
		s := int64(r.skewOf(d.Host))
		lo, hi = min(lo, d.From-s), max(hi, d.To+s)
		lanes[d.Client] = d.Host
	}
	names := make([]string, 0, len(lanes))
	for c := range lanes {
		names = append(names, c)
	}
	slices.SortFunc(names, func(a, c string) int {
		if lanes[a] != lanes[c] {
			return strings.Compare(lanes[a], lanes[c])
		}
		return strings.Compare(a, c)
	})
	row := map[string]int{}
	for i, c := range names {
		row[c] = i
	}
	const left, width, laneH = 220, 900, 22
	span := float64(max(hi-lo, 1))
	x := func(t int64) float64 { return left + float64(t-lo)/span*width }
	fmt.Fprintf(b, "<h2>Timeline</h2><p>One lane per client, on its host's clock, from %s to %s. A bar is a belief that the client holds its key; "+
		"the pale bands at its ends are its host's clock uncertainty (±the bound): the true instants lie within them. Red: a violation's window. Dashed orange: a premature loss (from the grant or refusal that shows it to the promised end) or a late acquisition (from its deadline to its return).",
		fmtTime(lo), fmtTime(hi))
	if len(r.Beliefs) == MaxDrawn {
		fmt.Fprintf(b, " The first %d beliefs are drawn.", MaxDrawn)
	}
	fmt.Fprintf(b, "</p>\n<svg width=\"%d\" height=\"%d\" class=\"lane\">\n", left+width+20, laneH*len(names)+10)
	for i, c := range names {
		fmt.Fprintf(b, "<text x=\"4\" y=\"%d\">%s (%s)</text>\n", i*laneH+15, html.EscapeString(c), html.EscapeString(lanes[c]))
		fmt.Fprintf(b, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#eee\"/>\n", left, left+width, i*laneH+11, i*laneH+11)
	}
	for _, d := range r.Beliefs {
		y := row[d.Client]*laneH + 4
		s := int64(r.skewOf(d.Host))
		title := html.EscapeString(fmt.Sprintf("%s: %s to %s (%s), token %d", d.Client, fmtTime(d.From), fmtTime(d.To), d.EndHow, d.Token))
		if s > 0 {
			for _, t := range []int64{d.From, d.To} {
				fmt.Fprintf(b, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"#9bd\" opacity=\"0.35\"/>\n", x(t-s), y, x(t+s)-x(t-s))
			}
		}
		fmt.Fprintf(b, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"#37a\"><title>%s</title></rect>\n", x(d.From), y, max(x(d.To)-x(d.From), 1), title)
	}
	for _, v := range r.Violations {
		if v.Invariant == "premature-loss" || v.Invariant == "acquire-deadline" {
			// On the holder's (or the caller's) lane: from the grant or
			// refusal that shows the loss to the promised end, or from the
			// deadline to the return; dashed orange.
			if i, ok := row[v.Clients[0]]; ok {
				fmt.Fprintf(b, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"18\" fill=\"none\" stroke=\"#e80\" stroke-width=\"2\" stroke-dasharray=\"4 2\"><title>%s</title></rect>\n",
					x(min(v.From, v.To)), i*laneH+2, max(x(max(v.From, v.To))-x(min(v.From, v.To)), 2), html.EscapeString(string(v.Certainty)+" "+string(v.Invariant)))
			}
			continue
		}
		if v.Invariant != "mutual-exclusion" {
			continue
		}
		for _, c := range v.Clients {
			if i, ok := row[c]; ok {
				fmt.Fprintf(b, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"18\" fill=\"none\" stroke=\"#d00\" stroke-width=\"2\"><title>%s</title></rect>\n",
					x(min(v.From, v.To)), i*laneH+2, max(x(max(v.From, v.To))-x(min(v.From, v.To)), 2), html.EscapeString(string(v.Certainty)+" "+string(v.Invariant)))
			}
		}
	}
	b.WriteString("</svg>\n")
}
