package scenarios

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/clock"
	"locksim/internal/bounded"
	"locksim/model"
	"locksim/sim"
)

// Limits on values in scenario files ("put a limit on everything"). They
// keep every sum of times far from overflow and every run bounded.
const (
	// maxDuration bounds every time and duration in a file.
	maxDuration = model.MaxRunTime
	// maxCount bounds counts: cycles, drop counts, trigger #N, events.
	maxCount = model.MaxCount
	// maxPPM bounds clock rates, as package clock does.
	maxPPM = clock.MaxRatePPM
)

// ParseFault parses one fault in the scenario syntax, without the leading
// word `fault`, e.g. "pause A for 1.5s after A write". It checks the
// syntax and what each kind requires, not whether the names exist: Parse
// checks those against the scenario. It also accepts sim.Fault.String's
// form (trigger delay before `after`, `ppm=N`).
func ParseFault(s string) (sim.Fault, error) {
	f, err := parseFault(strings.Fields(s))
	if err != nil {
		return sim.Fault{}, errors.Errorf("fault %s: %s", bounded.Q(s), err)
	}
	return f, nil
}

// parseFault parses the tokens after `fault`. Errors are plain messages
// that the caller places at a file and line. The kind's arguments and its
// rules are its sim.FaultKindTable entry's.
func parseFault(toks []string) (sim.Fault, error) {
	if len(toks) == 0 {
		return sim.Fault{}, errors.Errorf("fault needs a kind (%s)", kindList())
	}
	f := sim.Fault{Kind: sim.FaultKind(toks[0])}
	info, ok := sim.FaultKindOf(f.Kind)
	if !ok {
		return f, errors.Errorf("unknown fault kind %s (want %s)", bounded.Q(toks[0]), kindList())
	}
	a := &faultArgs{kind: f.Kind, rest: toks[1:]}
	if err := info.ParseArgs(&f, a); err != nil {
		return f, err
	}
	if err := parseClauses(&f, info, a.rest); err != nil {
		return f, err
	}
	return f, info.Check(f)
}

// faultArgs reads a fault's arguments for its kind's parser
// (sim.FaultArgs), with the file's limits and error texts.
type faultArgs struct {
	kind sim.FaultKind
	rest []string
}

func (a *faultArgs) Arg(what string) (string, error) {
	if len(a.rest) == 0 || isClause(a.rest[0]) {
		return "", errors.Errorf("%s needs %s", a.kind, what)
	}
	w := a.rest[0]
	a.rest = a.rest[1:]
	return w, nil
}

func (a *faultArgs) Args() []string {
	i := 0
	for i < len(a.rest) && !isClause(a.rest[i]) {
		i++
	}
	ws := a.rest[:i]
	a.rest = a.rest[i:]
	return ws
}

func (a *faultArgs) Plus() (string, bool) {
	if len(a.rest) == 0 || !strings.HasPrefix(a.rest[0], "+") {
		return "", false
	}
	w := a.rest[0][1:]
	a.rest = a.rest[1:]
	return w, true
}

func (a *faultArgs) IsClause(w string) bool { return isClause(w) }

func (a *faultArgs) Dur(s, what string) (time.Duration, error) { return parseDur(s, what) }

func (a *faultArgs) SignedDur(s, what string) (time.Duration, error) {
	return parseSignedDur(s, what)
}

func (a *faultArgs) Int(s, what string, lo, hi int64) (int64, error) {
	return parseInt(s, what, lo, hi)
}

// parseClauses parses the clauses after a fault's arguments, in any order:
// `at T`, `after ACTOR KIND [#N] [+D]`, `+D` (sim's place for the trigger
// delay), `for D`, `oneway`, `restart`.
func parseClauses(f *sim.Fault, info sim.FaultKindInfo, rest []string) error {
	var at, after, delay, dur bool
	once := func(seen *bool, what string) error {
		if *seen {
			return errors.Errorf("%s given twice", what)
		}
		*seen = true
		return nil
	}
	var err error
	for len(rest) > 0 {
		tok := rest[0]
		rest = rest[1:]
		switch {
		case tok == "at":
			if err = once(&at, "at"); err != nil {
				return err
			}
			if len(rest) == 0 {
				return errors.New("at needs a time, e.g. at 2s")
			}
			f.At, err = parseDur(rest[0], "at")
			rest = rest[1:]
		case tok == "after":
			if err = once(&after, "after"); err != nil {
				return err
			}
			if len(rest) < 2 || isClause(rest[0]) || isClause(rest[1]) {
				return errors.New("after needs an actor and an event kind, e.g. after A acquired")
			}
			tr := &sim.Trigger{Actor: rest[0], Kind: sim.Kind(rest[1])}
			rest = rest[2:]
			if len(rest) > 0 && strings.HasPrefix(rest[0], "#") {
				n, err := parseInt(rest[0][1:], "after #N", 1, maxCount)
				if err != nil {
					return err
				}
				tr.Nth = int(n)
				rest = rest[1:]
			}
			if len(rest) > 0 && rest[0] == "task" {
				if len(rest) < 2 || isClause(rest[1]) {
					return errors.New("task needs a task name, e.g. task watchdog")
				}
				tr.Task, rest = rest[1], rest[2:]
			}
			if len(rest) > 0 && rest[0] == "since" {
				if len(rest) < 2 || isClause(rest[1]) {
					return errors.New("since needs an event kind, e.g. since acquire-start #2")
				}
				tr.Since, rest = sim.Kind(rest[1]), rest[2:]
				if len(rest) > 0 && strings.HasPrefix(rest[0], "#") {
					n, err := parseInt(rest[0][1:], "since #N", 1, maxCount)
					if err != nil {
						return err
					}
					tr.SinceNth = int(n)
					rest = rest[1:]
				}
			}
			f.After = tr
			if len(rest) > 0 && strings.HasPrefix(rest[0], "+") {
				if err = once(&delay, "the trigger delay"); err != nil {
					return err
				}
				f.At, err = parseDur(rest[0][1:], "trigger delay")
				rest = rest[1:]
			}
		case strings.HasPrefix(tok, "+"):
			if err = once(&delay, "the trigger delay"); err != nil {
				return err
			}
			f.At, err = parseDur(tok[1:], "trigger delay")
		case tok == "for":
			if err = once(&dur, "for"); err != nil {
				return err
			}
			if len(rest) == 0 {
				return errors.New("for needs a duration, e.g. for 1.5s")
			}
			f.Dur, err = parseDur(rest[0], "for")
			rest = rest[1:]
		case info.SetFlag(f, tok):
		default:
			return errors.Errorf("unexpected %s in a %s fault", bounded.Q(tok), f.Kind)
		}
		if err != nil {
			return err
		}
	}
	switch {
	case at && after:
		return errors.New("a fault takes either at TIME or after ACTOR KIND, not both")
	case !at && !after:
		return errors.New("a fault needs at TIME or after ACTOR KIND, e.g. at 2s or after A acquired")
	case delay && !after:
		return errors.New("a +DELAY needs a trigger (after ACTOR KIND)")
	}
	return nil
}

// faultFlags are the kinds' flag words (oneway, restart).
var faultFlags = sim.FaultFlags()

// isClause reports whether tok starts a clause, which ends a fault's
// arguments.
func isClause(tok string) bool {
	switch tok {
	case "at", "after", "for", "task", "since":
		return true
	}
	return slices.Contains(faultFlags, tok) || strings.HasPrefix(tok, "+")
}

func kindList() string {
	ks := make([]string, len(sim.FaultKinds))
	for i, k := range sim.FaultKinds {
		ks[i] = string(k)
	}
	return strings.Join(ks, ", ")
}

// parseDur parses a non-negative Go duration up to maxDuration. what
// names the value in errors; "" when the caller names it.
func parseDur(s, what string) (time.Duration, error) {
	d, err := parseSignedDur(s, what)
	if err == nil && d < 0 {
		err = errors.Errorf("%sduration %s is negative", prefix(what), s)
	}
	return d, err
}

// parseSignedDur parses a Go duration within ±maxDuration.
func parseSignedDur(s, what string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.Errorf("%sbad duration %s (want Go syntax such as 1.5s or 250ms)", prefix(what), bounded.Q(s))
	}
	if d > maxDuration || d < -maxDuration {
		return 0, errors.Errorf("%sduration %s is beyond the limit of %s", prefix(what), s, fmtDur(maxDuration))
	}
	return d, nil
}

func prefix(what string) string {
	if what == "" {
		return ""
	}
	return what + ": "
}

// parseInt parses a decimal integer in [lo, hi].
func parseInt(s, what string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, errors.Errorf("%sbad number %s", prefix(what), bounded.Q(s))
	}
	if n < lo || n > hi {
		return 0, errors.Errorf("%s%d is out of range [%d, %d]", prefix(what), n, lo, hi)
	}
	return n, nil
}

// parsePPM parses "±Nppm" (the suffix is required when unit is set).
func parsePPM(s string, unit bool, what string) (int64, error) {
	n, ok := strings.CutSuffix(s, "ppm")
	if unit && !ok {
		return 0, errors.Errorf("%s: want a rate like +20000ppm, got %s", what, bounded.Q(s))
	}
	return parseInt(n, what, -maxPPM, maxPPM)
}

// FormatFault renders a fault in the canonical scenario syntax, which
// ParseFault reads back to an equal fault; it is sim.Fault.String.
func FormatFault(f sim.Fault) string { return f.String() }

// fmtDur renders a duration exactly in Go syntax ("2m" rather than "2m0s").
func fmtDur(d time.Duration) string { return sim.FormatDuration(d) }

// fmtSigned renders a duration with an explicit sign: "+2s", "-500ms".
func fmtSigned(d time.Duration) string {
	if d >= 0 {
		return "+" + fmtDur(d)
	}
	return fmtDur(d)
}

// fmtPPM renders a rate: "+20000ppm".
func fmtPPM(n int64) string {
	if n >= 0 {
		return "+" + strconv.FormatInt(n, 10) + "ppm"
	}
	return strconv.FormatInt(n, 10) + "ppm"
}
