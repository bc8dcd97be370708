package report

import (
	"fmt"
	"strings"
	"time"

	"locksim/risk"
)

// RiskText renders a risk estimate for a terminal: what ran, how, and per
// invariant the probability per acquisition and the count per hour, each
// with its 95% interval. A target, if above 0, is compared with each upper
// bound.
func RiskText(r *risk.Result, target float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "risk of %s under the profile %s: %d runs, each counting %v with %v to settle before and after (seed %d)\n", r.Design, r.Profile, r.Runs, time.Duration(r.Horizon), time.Duration(r.Settle), r.Seed)
	fmt.Fprintf(&b, "method: %s\n", riskMethod(r))
	if r.Tally != nil {
		fmt.Fprintf(&b, "faults: %.2f a run under the profile", r.ExpectedFaults)
		if r.ExpectedFaultsTilted > 0 {
			fmt.Fprintf(&b, ", %.2f under the tilt", r.ExpectedFaultsTilted)
		}
		fmt.Fprintf(&b, "; %d drawn in all\n", r.Tally.Faults)
	}
	if len(r.Estimates) > 0 {
		fmt.Fprintf(&b, "effective samples: %.0f of %d (Kish, from the weights)\n\n", r.Estimates[0].EffectiveSamples, r.Runs)
	}
	fmt.Fprintf(&b, "  %-18s %-28s %-26s %s\n", "invariant", "per acquisition [95%]", "per hour [95%]", "runs broken")
	for _, e := range r.Estimates {
		acq := fmt.Sprintf("%s [%s, %s]", prob(e.PerAcquisition), prob(e.CI95Low), prob(e.CI95High))
		hour := fmt.Sprintf("%s [%s, %s]", prob(e.PerHour), prob(e.PerHourLow), prob(e.PerHourHigh))
		if e.UpperBoundOnly {
			acq = "below " + prob(e.CI95High)
			hour = "below " + prob(e.PerHourHigh)
		}
		fmt.Fprintf(&b, "  %-18s %-28s %-26s %d", e.ID, acq, hour, e.Hits)
		if e.Undecided > 0 {
			fmt.Fprintf(&b, " (%d undecided)", e.Undecided)
		}
		b.WriteByte('\n')
	}
	notes := map[string]bool{}
	for _, e := range r.Estimates {
		if e.Note != "" && !notes[e.Note] {
			notes[e.Note] = true
			fmt.Fprintf(&b, "note: %s\n", e.Note)
		}
	}
	if target > 0 {
		var over []string
		for _, e := range r.Estimates {
			if e.CI95High >= target {
				over = append(over, string(e.ID))
			}
		}
		if len(over) == 0 {
			fmt.Fprintf(&b, "target %s per acquisition: met by every upper bound\n", prob(target))
		} else {
			fmt.Fprintf(&b, "target %s per acquisition: not met (upper bound at or above it) by %s\n", prob(target), strings.Join(over, ", "))
		}
	}
	return b.String()
}

// RiskMarkdown renders a risk estimate as a table.
func RiskMarkdown(r *risk.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Risk of `%s`** under the profile `%s`: %d runs of %v, seed %d. Method: %s.\n\n", r.Design, r.Profile, r.Runs, time.Duration(r.Horizon), r.Seed, riskMethod(r))
	b.WriteString("| invariant | per acquisition | 95% interval | per hour | 95% interval | runs broken |\n|---|---|---|---|---|---|\n")
	for _, e := range r.Estimates {
		if e.UpperBoundOnly {
			fmt.Fprintf(&b, "| %s | 0 | below %s | 0 | below %s | 0 |\n", e.ID, prob(e.CI95High), prob(e.PerHourHigh))
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s to %s | %s | %s to %s | %d |\n", e.ID, prob(e.PerAcquisition), prob(e.CI95Low), prob(e.CI95High),
			prob(e.PerHour), prob(e.PerHourLow), prob(e.PerHourHigh), e.Hits)
	}
	return b.String()
}

func riskMethod(r *risk.Result) string {
	if r.Proposal.Defensive >= 1 {
		s := "plain Monte Carlo from the profile"
		if r.Method == risk.Auto {
			s += fmt.Sprintf(" (the pilot, %d runs for each of %d tilts, found no tilt better)", r.PilotRuns, r.PilotTilts)
		}
		return s
	}
	win := ""
	if w := r.Proposal.Tilt.Window; w > 0 {
		win = fmt.Sprintf(", %.0f%% of those in the critical sections of a fault-free run", 100*w)
	}
	t := r.Proposal.Tilt
	if t.Kind != "" {
		from := "the tails"
		if t.Top {
			from = "the top segment of their distribution"
		}
		if t.Sharp > 1 {
			from += fmt.Sprintf(", drawn toward its top (sharp %g)", t.Sharp)
		}
		return fmt.Sprintf("importance sampling, a defensive mixture: %.0f%% of runs from the profile, the rest with %s faults raised to %g a run (if rarer) and %g of their sizes a run from %s%s (chosen by a pilot of %d runs for each of %d tilts); weights are the likelihood ratio",
			100*r.Proposal.Defensive, t.Kind, t.Boost, t.Tail, from, win, r.PilotRuns, r.PilotTilts)
	}
	return fmt.Sprintf("importance sampling, a defensive mixture: %.0f%% of runs from the profile, the rest with rare faults raised to %g a run and %g sizes a run from the tails%s (chosen by a pilot of %d runs per tilt); weights are the likelihood ratio",
		100*r.Proposal.Defensive, t.Boost, t.Tail, win, r.PilotRuns)
}

// prob writes a probability or rate with three significant digits.
func prob(p float64) string {
	if p == 0 {
		return "0"
	}
	return fmt.Sprintf("%.3g", p)
}

// AdviceText renders the advisor's answer: the current and recommended
// risk side by side, what was tried, and the sensitivity line.
func AdviceText(a *risk.Advice) string {
	var b strings.Builder
	fmt.Fprintf(&b, "advice for %s under the profile %s: target %s per acquisition on every invariant, by its 95%% upper bound\n", a.Current.Design, a.Current.Profile, prob(a.Target))
	fmt.Fprintf(&b, "searched %d settings in preference order (shortest wait for a dead holder's lock: the TTL and one retry sleep; then least renewal traffic; then fewest masters), %d runs in all\n\n", len(a.Tried), a.RunsUsed)
	for _, t := range a.Tried {
		mark := "over"
		switch {
		case t.Met:
			mark = "meets (confirmed from a second seed)"
		case t.Unconfirmed:
			mark = "met once, not confirmed from a second seed"
		}
		fmt.Fprintf(&b, "  %s: %s (highest upper bound: %s %s)\n", settingText(t.Setting), mark, t.Worst, prob(t.WorstUpper))
	}
	b.WriteByte('\n')
	if a.Recommended == nil {
		fmt.Fprintf(&b, "no recommendation: %s\n", a.Unresolved)
		return b.String()
	}
	fmt.Fprintf(&b, "recommended: %s\n(a waiter gets a dead holder's lock within %v: the TTL and one retry sleep)\n\n", settingText(*a.Recommended), a.Recommended.DeadWait())
	fmt.Fprintf(&b, "  %-18s %-28s %s\n", "invariant", "current [95%]", "recommended [95%]")
	for i, e := range a.Estimate.Estimates {
		cur := "-"
		if i < len(a.Current.Estimates) {
			cur = estimateText(a.Current.Estimates[i])
		}
		fmt.Fprintf(&b, "  %-18s %-28s %s\n", e.ID, cur, estimateText(e))
	}
	if a.Sensitivity != nil {
		worst, id := 0.0, ""
		for _, e := range a.Sensitivity.Estimates {
			if e.CI95High >= worst {
				worst, id = e.CI95High, string(e.ID)
			}
		}
		verdict := "still meets the target"
		if worst >= a.Target {
			verdict = "no longer meets the target"
		}
		fmt.Fprintf(&b, "\nsensitivity: with every pause twice as long (the p99 pause doubled), the recommendation %s (highest upper bound: %s %s)\n", verdict, id, prob(worst))
	}
	return b.String()
}

func settingText(s risk.Setting) string { return s.String() }

func estimateText(e risk.Estimate) string {
	if e.UpperBoundOnly {
		return "below " + prob(e.CI95High)
	}
	return fmt.Sprintf("%s [%s, %s]", prob(e.PerAcquisition), prob(e.CI95Low), prob(e.CI95High))
}
