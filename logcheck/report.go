package logcheck

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// JSON writes the result as one indented JSON document.
func (r *Result) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// skewLine says the clock bound the verdicts assume.
func (r *Result) skewLine() string {
	s := "clock offset bound: ±" + r.Skew.String() + " per host"
	if len(r.HostSkew) > 0 {
		hs := make([]string, 0, len(r.HostSkew))
		for h, d := range r.HostSkew {
			hs = append(hs, h+" ±"+d.String())
		}
		slices.Sort(hs)
		s += " (" + strings.Join(hs, ", ") + ")"
	}
	if r.Reorder > 0 {
		s += "; events of one file sorted within " + r.Reorder.String()
	}
	return s
}

// Text writes the report for a terminal.
func (r *Result) Text(w io.Writer) error {
	var b strings.Builder
	st := r.Stats
	fmt.Fprintf(&b, "check-log: %d events from %d file(s), %d host(s), %d client(s), %d key(s)\n",
		st.Events, len(r.Files), st.Hosts, st.Clients, st.Keys)
	b.WriteString(r.skewLine() + "\n")
	if r.NothingJudged != "" {
		b.WriteString("nothing judged: " + r.NothingJudged + "\n")
	}
	b.WriteString("\nverdicts (judged from what the clients saw):\n")
	for _, v := range r.Verdicts {
		line := fmt.Sprintf("  %-17s %s", v.Invariant, v.Verdict)
		switch {
		case v.Certain > 0 && v.Possible > 0:
			line += fmt.Sprintf(" (%d certain, %d more possible)", v.Certain, v.Possible)
		case v.Certain > 0:
			line += fmt.Sprintf(" (%d certain)", v.Certain)
		case v.Possible > 0:
			line += fmt.Sprintf(" (%d possible)", v.Possible)
		}
		if v.Why != "" {
			line += ": " + v.Why
		}
		b.WriteString(line + "\n")
	}
	if len(r.Violations) > 0 {
		fmt.Fprintf(&b, "\nviolations (at most %d per invariant and certainty):\n", MaxPerInvariant)
		for _, v := range r.Violations {
			fmt.Fprintf(&b, "  %s, %s, key %s: %s\n", v.Invariant, v.Certainty, v.Key, v.Explanation)
		}
	}
	b.WriteString("\ncontention:\n")
	fmt.Fprintf(&b, "  acquire latency  %s\n", distText(st.Latency))
	fmt.Fprintf(&b, "  refused after    %s\n", distText(st.Refusals))
	fmt.Fprintf(&b, "  hold times       %s\n", distText(st.Holds))
	if st.Waiting > 0 {
		fmt.Fprintf(&b, "  still waiting when the log ends: %d acquisition(s)\n", st.Waiting)
	}
	b.WriteString("  grants per client: " + fairness(st.Grants) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func distText(d Dist) string {
	if d.N == 0 {
		return "none"
	}
	return fmt.Sprintf("n=%d p50=%v p90=%v p99=%v max=%v", d.N, round(d.P50), round(d.P90), round(d.P99), round(d.Max))
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Microsecond)
	}
	return d
}

// fairness renders grants per client, most first, with the spread.
func fairness(g map[string]int) string {
	if len(g) == 0 {
		return "none"
	}
	cs := make([]string, 0, len(g))
	for c := range g {
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b string) int {
		if g[a] != g[b] {
			return g[b] - g[a]
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for i, c := range cs {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("... %d more", len(cs)-10))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", c, g[c]))
	}
	lo, hi := g[cs[len(cs)-1]], g[cs[0]]
	return strings.Join(parts, ", ") + fmt.Sprintf(" (most/least: %d/%d)", hi, lo)
}

// Markdown writes the report as a markdown section.
func (r *Result) Markdown(w io.Writer) error {
	var b strings.Builder
	st := r.Stats
	fmt.Fprintf(&b, "## check-log\n\n%d events from %d file(s), %d host(s), %d client(s), %d key(s); %s.\n\n",
		st.Events, len(r.Files), st.Hosts, st.Clients, st.Keys, r.skewLine())
	if r.NothingJudged != "" {
		b.WriteString("**Nothing judged**: " + r.NothingJudged + ".\n\n")
	}
	b.WriteString("| invariant | verdict | certain | possible | why |\n|---|---|---|---|---|\n")
	for _, v := range r.Verdicts {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s |\n", v.Invariant, v.Verdict, v.Certain, v.Possible, mdCell(v.Why))
	}
	if len(r.Violations) > 0 {
		b.WriteString("\n### Violations\n\n")
		for _, v := range r.Violations {
			fmt.Fprintf(&b, "- **%s** (%s, key `%s`): %s\n", v.Invariant, v.Certainty, v.Key, v.Explanation)
		}
	}
	b.WriteString("\n### Contention\n\n| figure | n | p50 | p90 | p99 | max |\n|---|---|---|---|---|---|\n")
	for _, row := range []struct {
		name string
		d    Dist
	}{{"acquire latency", st.Latency}, {"refused after", st.Refusals}, {"hold time", st.Holds}} {
		fmt.Fprintf(&b, "| %s | %d | %v | %v | %v | %v |\n", row.name, row.d.N, round(row.d.P50), round(row.d.P90), round(row.d.P99), round(row.d.Max))
	}
	b.WriteString("\nGrants per client: " + fairness(st.Grants) + ".\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
