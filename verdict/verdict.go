package verdict

// Kind is a verdict's class.
type Kind uint8

// The verdict classes, in the order Decide ranks them (the first that
// applies wins): an interrupted campaign is no verdict whatever it saw so
// far; a run that stopped or hung makes the counts meaningless; a break is
// evidence; a campaign that judged nothing is no evidence either way.
const (
	// Held: every counted invariant was judged and none broke.
	Held Kind = iota
	// Broken: a counted invariant broke (Certainty says whether for sure
	// or only under some reading of the evidence).
	Broken
	// None: the campaign finished but judged nothing (no run, no client
	// acquired, no fault took effect, every invariant undecided).
	None
	// Stuck: a run hung and could not finish (no progress, nothing
	// scheduled); its outcome is unknown.
	Stuck
	// Stopped: a run stopped with an error (a script error, a limit), which
	// stopped the campaign.
	Stopped
	// Interrupted: the campaign was stopped from outside (SIGINT, SIGTERM,
	// a cancelled context) before it finished; what it saw is a partial
	// tally.
	Interrupted
)

var kindNames = [...]string{"held", "broken", "no verdict", "stuck", "stopped", "interrupted"}

// String is the kind as reports name it.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Certainty says how sure a Broken verdict is: runs in the simulator are
// certain; a production log read under clock skew may only possibly
// break an invariant.
type Certainty uint8

const (
	// Certain: the evidence breaks it under every reading.
	Certain Certainty = iota
	// Possible: some readings of the evidence (clock offsets within the
	// skew bound) break it, others do not.
	Possible
)

// Estimate is a rate with its confidence interval (risk's per-acquisition
// probability), for a verdict that is a measurement rather than a proof.
type Estimate struct {
	Rate, Low, High float64
	// Level is the interval's confidence (0.95).
	Level float64
}

// The exit codes of the CLI for each kind: 0 held, 1 broken, 2 no
// verdict, stuck or stopped (like a usage error: no evidence), 130
// interrupted (128+SIGINT, what a shell reports).
const (
	ExitHeld        = 0
	ExitBroken      = 1
	ExitNoVerdict   = 2
	ExitInterrupted = 130
)

// Verdict is what a campaign decided.
type Verdict struct {
	Kind Kind
	// Certainty qualifies Broken (Certain unless a log said Possible).
	Certainty Certainty
	// Why says, for None, Stuck, Stopped and Interrupted, what happened,
	// in the words reports use ("run 3 (seed 4) stopped: ...", "in every
	// run (5 runs) no client acquired the lock, so nothing was judged").
	Why string
	// Estimate, if set, is the measured rate the verdict rests on.
	Estimate *Estimate
}

// Facts are what a result states of itself, for Decide. Each string is
// empty when the fact does not hold, else the reason in report words.
type Facts struct {
	// Interrupted: stopped from outside before it finished.
	Interrupted string
	// Stuck: a run hung.
	Stuck string
	// Stopped: a run stopped with an error.
	Stopped string
	// Broken: a counted invariant broke for certain; PossiblyBroken: only
	// possibly (and none for certain).
	Broken, PossiblyBroken bool
	// Nothing: why nothing was judged.
	Nothing string
}

// Decide is the one place a verdict is decided: interrupted, then stuck,
// then stopped, then nothing judged, then broken (certainly, then
// possibly), else held.
func Decide(f Facts) Verdict {
	switch {
	case f.Interrupted != "":
		return Verdict{Kind: Interrupted, Why: f.Interrupted}
	case f.Stuck != "":
		return Verdict{Kind: Stuck, Why: f.Stuck}
	case f.Stopped != "":
		return Verdict{Kind: Stopped, Why: f.Stopped}
	case f.Nothing != "":
		return Verdict{Kind: None, Why: f.Nothing}
	case f.Broken:
		return Verdict{Kind: Broken, Certainty: Certain}
	case f.PossiblyBroken:
		return Verdict{Kind: Broken, Certainty: Possible}
	}
	return Verdict{Kind: Held}
}

// ExitCode is the CLI's exit code for the verdict. A possible break exits
// 0 by default (a possible violation is not a finding): ExitCodeWith lets
// a caller choose.
func (v Verdict) ExitCode() int { return v.ExitCodeWith(ExitHeld) }

// ExitCodeWith is ExitCode with the code for a possible break given.
func (v Verdict) ExitCodeWith(possible int) int {
	switch v.Kind {
	case Held:
		return ExitHeld
	case Broken:
		if v.Certainty == Possible {
			return possible
		}
		return ExitBroken
	case Interrupted:
		return ExitInterrupted
	}
	return ExitNoVerdict
}

// Judged reports whether the verdict is evidence either way: held or
// broken.
func (v Verdict) Judged() bool { return v.Kind == Held || v.Kind == Broken }

// String is the verdict as a message says it: "held", "broken",
// "possibly broken", "no verdict: WHY" (nothing judged, or interrupted:
// WHY names the partial tally), or for a run that stopped or hung its WHY
// alone, which names the run ("run 3 (seed 4) stopped: ...").
func (v Verdict) String() string {
	switch {
	case v.Kind == Broken && v.Certainty == Possible:
		return "possibly broken"
	case v.Kind == None || v.Kind == Interrupted:
		if v.Why == "" {
			return "no verdict"
		}
		return "no verdict: " + v.Why
	case (v.Kind == Stopped || v.Kind == Stuck) && v.Why != "":
		return v.Why
	}
	return v.Kind.String()
}
