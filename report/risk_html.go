package report

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"

	"locksim/risk"
)

// RiskHTML writes one page: the estimate's table and a plot of the risk
// per acquisition of one invariant against the TTL, one line per pause
// scale, each point with its 95% interval; a point with no violating run is
// drawn as an open marker at its upper bound with a downward arrow.
func RiskHTML(w io.Writer, r *risk.Result, curve []risk.CurvePoint) error {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
	b.WriteString(html.EscapeString("locksim risk: " + r.Design))
	b.WriteString("</title>\n<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}th{background:#f4f4f4}.note{color:#555}svg text{font-size:12px}</style></head><body>\n")
	fmt.Fprintf(&b, "<h1>Risk of <code>%s</code> under the profile <code>%s</code></h1>\n", html.EscapeString(r.Design), html.EscapeString(r.Profile))
	fmt.Fprintf(&b, "<p>%d runs, each counting %v with %v to settle before and after; seed %d.<br>Method: %s.</p>\n",
		r.Runs, time.Duration(r.Horizon), time.Duration(r.Settle), r.Seed, html.EscapeString(riskMethod(r)))
	b.WriteString("<table><tr><th>invariant</th><th>per acquisition</th><th>95% interval</th><th>per hour</th><th>95% interval</th><th>runs broken</th></tr>\n")
	for _, e := range r.Estimates {
		if e.UpperBoundOnly {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>0</td><td>below %s</td><td>0</td><td>below %s</td><td>0</td></tr>\n", e.ID, prob(e.CI95High), prob(e.PerHourHigh))
			continue
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s to %s</td><td>%s</td><td>%s to %s</td><td>%d</td></tr>\n", e.ID,
			prob(e.PerAcquisition), prob(e.CI95Low), prob(e.CI95High), prob(e.PerHour), prob(e.PerHourLow), prob(e.PerHourHigh), e.Hits)
	}
	b.WriteString("</table>\n")
	for _, e := range r.Estimates {
		if e.Note != "" {
			fmt.Fprintf(&b, "<p class=\"note\">%s: %s</p>\n", e.ID, html.EscapeString(e.Note))
		}
	}
	if len(curve) > 0 {
		fmt.Fprintf(&b, "<h2>%s per acquisition against the TTL</h2>\n<p>One line per pause scale (every pause of the profile times the scale); bars are 95%% intervals; an open marker with an arrow is an upper bound where no run broke it.</p>\n", curve[0].Estimate.ID)
		riskSVG(&b, curve)
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// riskSVG plots the curve: log TTL across, log probability up.
func riskSVG(b *strings.Builder, curve []risk.CurvePoint) {
	const W, H, left, right, top, bottom = 640, 360, 70, 120, 20, 40
	lo, hi := 1.0, 0.0
	minT, maxT := math.Inf(1), 0.0
	for _, p := range curve {
		for _, v := range []float64{p.Estimate.PerAcquisition, p.Estimate.CI95Low, p.Estimate.CI95High} {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		t := float64(p.TTL)
		minT, maxT = math.Min(minT, t), math.Max(maxT, t)
	}
	if hi <= 0 {
		lo, hi = 1e-9, 1
	}
	lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
	if lo == hi {
		lo /= 10
	}
	x := func(t float64) float64 {
		if maxT == minT {
			return left + (W-left-right)/2
		}
		return left + (math.Log(t)-math.Log(minT))/(math.Log(maxT)-math.Log(minT))*(W-left-right)
	}
	y := func(v float64) float64 {
		v = math.Max(v, lo)
		return top + (math.Log10(hi)-math.Log10(v))/(math.Log10(hi)-math.Log10(lo))*(H-top-bottom)
	}
	fmt.Fprintf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"risk against TTL\">\n", W, H)
	for e := math.Log10(lo); e <= math.Log10(hi)+1e-9; e++ {
		yy := y(math.Pow(10, e))
		fmt.Fprintf(b, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n", left, W-right, yy, yy, left-6, yy+4, int(e))
	}
	seen := map[risk.Duration]bool{}
	for _, p := range curve {
		if !seen[p.TTL] {
			seen[p.TTL] = true
			fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%v</text>\n", x(float64(p.TTL)), H-bottom+16, time.Duration(p.TTL))
		}
	}
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">TTL</text>\n", (W-right+left)/2, H-6)
	colors := []string{"#1b9e77", "#d95f02", "#7570b3", "#e7298a"}
	var scales []float64
	for _, p := range curve {
		if len(scales) == 0 || scales[len(scales)-1] != p.Scale {
			scales = append(scales, p.Scale)
		}
	}
	for i, sc := range scales {
		c := colors[i%len(colors)]
		var pts []string
		for _, p := range curve {
			if p.Scale != sc {
				continue
			}
			e := p.Estimate
			xx := x(float64(p.TTL))
			if e.UpperBoundOnly {
				yy := y(e.CI95High)
				fmt.Fprintf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"white\" stroke=\"%s\"><title>pauses x%g, ttl %v: below %s (no violating run)</title></circle><path d=\"M%.1f %.1f v10 m-3 -4 l3 4 l3 -4\" stroke=\"%s\" fill=\"none\"/>\n",
					xx, yy, c, sc, time.Duration(p.TTL), prob(e.CI95High), xx, yy+4, c)
				continue
			}
			yy := y(e.PerAcquisition)
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xx, yy))
			fmt.Fprintf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>pauses x%g, ttl %v: %s [%s, %s]</title></circle>\n",
				xx, xx, y(e.CI95Low), y(e.CI95High), c, xx, yy, c, sc, time.Duration(p.TTL), prob(e.PerAcquisition), prob(e.CI95Low), prob(e.CI95High))
		}
		if len(pts) > 1 {
			fmt.Fprintf(b, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\"/>\n", strings.Join(pts, " "), c)
		}
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" fill=\"%s\">pauses x%g</text>\n", W-right+10, top+16*(i+1), c, sc)
	}
	b.WriteString("</svg>\n")
}
