package model

import (
	"strconv"
	"strings"
	"time"

	"locksim/sim"
)

// OptionKind is the type of a design option's value.
type OptionKind int

const (
	// OptBool is true or false.
	OptBool OptionKind = iota
	// OptDuration is a Go duration, 0 or more in a scenario, above 0 as a flag.
	OptDuration
	// OptCount is an integer in [Lo, Hi].
	OptCount
	// OptFraction is a number in [0, 1).
	OptFraction
)

// OptionRow is one design option: everything the CLI flags, the scenario
// word, the validation, the report's words and the docs know of it. Adding
// a design option is one row here (and its field in Options, and its
// behaviour in the designs).
type OptionRow struct {
	// Key is the scenario word (`option KEY=VALUE`) and the flag (--KEY).
	Key  string
	Kind OptionKind
	// Lo and Hi bound a count.
	Lo, Hi int
	// Max bounds a duration (the limits of docs/limits.md).
	Max time.Duration
	// Default says the default, per run kind where they differ.
	Default string
	// Doc is the one line of the docs' option list and of the flag's help.
	Doc string
	// Flags are the commands that offer the option as --KEY: "check",
	// "risk" and "run" (run's what-if flags).
	Flags []string
	// Invert: the word is the negation of the field (wait-check=false
	// sets IgnoreWait).
	Invert bool
	// Field is the option's field in Options: *bool, *time.Duration, *int
	// or *float64 as Kind says.
	Field func(o *Options) any
	// Applies reports whether a set option applies to a spec's design
	// (nil: to every design); Designs names those it applies to, for the
	// refusal ("designs that queue their waiters (fair-lock)").
	Applies func(t Traits, s Spec) bool
	Designs string
}

// OptionTable is every design option, in the order a scenario's option
// line writes them.
var OptionTable = []OptionRow{
	{Key: "deadline", Kind: OptBool, Default: "false", Flags: []string{"check", "risk", "run"},
		Doc:   "a client deadline: the lease budgeted on the client's clock from before the request, minus margin; no entering or writing past it",
		Field: func(o *Options) any { return &o.Deadline }},
	{Key: "extend", Kind: OptBool, Default: "false",
		Doc:   "a watchdog that extends every renew-every, for designs that extend only on request (redlock)",
		Field: func(o *Options) any { return &o.Extend }},
	{Key: "wall-clock", Kind: OptBool, Default: "false", Flags: []string{"check", "run"},
		Doc:   "measure the acquire wait, and with deadline the lease, on the client's wall clock (as System.currentTimeMillis() in Java); clock jumps then step clients too",
		Field: func(o *Options) any { return &o.WallClock }},
	{Key: "margin", Kind: OptDuration, Max: MaxRunTime, Default: "2% of the TTL + 2ms",
		Doc:   "the deadline's safety margin",
		Field: func(o *Options) any { return &o.Margin }},
	{Key: "acquire-wait", Kind: OptDuration, Max: MaxRunTime, Default: "3 x TTL",
		Doc:   "how long one acquisition tries, on the client's monotonic clock",
		Field: func(o *Options) any { return &o.AcquireWait }},
	{Key: "retry-min", Kind: OptDuration, Max: MaxRunTime, Default: "5ms",
		Doc:   "the first backoff between tries (each sleep drawn from [backoff/2, backoff], doubling)",
		Field: func(o *Options) any { return &o.RetryMin }},
	{Key: "retry-max", Kind: OptDuration, Max: MaxRunTime, Default: "100ms",
		Doc:   "the largest backoff between tries",
		Field: func(o *Options) any { return &o.RetryMax }},
	{Key: "call-timeout", Kind: OptDuration, Max: MaxRunTime, Default: "200ms; check draws it per run (--swarm)", Flags: []string{"check", "run"},
		Doc:   "the per-command timeout",
		Field: func(o *Options) any { return &o.CallTimeout }},
	{Key: "node-timeout", Kind: OptDuration, Max: MaxRunTime, Default: "50ms",
		Doc:   "redlock's per-node timeout",
		Field: func(o *Options) any { return &o.NodeTimeout }},
	{Key: "drift-factor", Kind: OptFraction, Default: "0.01",
		Doc:   "redlock's clock drift allowance, in [0, 1)",
		Field: func(o *Options) any { return &o.DriftFactor }},
	{Key: "quorum", Kind: OptCount, Lo: 1, Hi: MaxMasters, Default: "a majority of the masters", Flags: []string{"check", "risk", "run"},
		Doc:     "masters a quorum design needs",
		Field:   func(o *Options) any { return &o.Quorum },
		Applies: func(t Traits, s Spec) bool { return t.Quorum || s.Lua != nil },
		Designs: "designs that take a quorum of masters (redlock, multi-lock) and to Lua designs"},
	{Key: "wait-replicas", Kind: OptCount, Lo: 1, Hi: MaxReplicas, Default: "1",
		Doc:   "the replicas wait-replica's WAIT asks for",
		Field: func(o *Options) any { return &o.WaitReplicas }},
	{Key: "wait-timeout", Kind: OptDuration, Max: MaxRunTime, Default: "100ms",
		Doc:   "wait-replica's WAIT timeout",
		Field: func(o *Options) any { return &o.WaitTimeout }},
	{Key: "renew-every", Kind: OptDuration, Max: MaxRunTime, Default: "TTL/3", Flags: []string{"check", "risk", "run"},
		Doc:   "the watchdog period",
		Field: func(o *Options) any { return &o.RenewEvery }},
	{Key: "queue-wait", Kind: OptDuration, Max: MaxRunTime, Default: "the acquire wait (as Redisson's tryLock)", Flags: []string{"check", "run"},
		Doc:     "how long a fair lock keeps a waiter's place in its queue past the one ahead",
		Field:   func(o *Options) any { return &o.QueueWait },
		Applies: func(t Traits, _ Spec) bool { return t.Fair },
		Designs: "designs that queue their waiters (fair-lock)"},
	{Key: "wait-accept", Kind: OptCount, Lo: 1, Hi: MaxReplicas, Default: "wait-replicas",
		Doc:   "the fewest acknowledgements WAIT must count for wait-replica to hold the lock (Redisson's rule is 1)",
		Field: func(o *Options) any { return &o.WaitAccept }},
	{Key: "wait-check", Kind: OptBool, Default: "true", Invert: true,
		Doc:   "false: wait-replica holds the lock whatever count WAIT returns (Redisson before redisson#3994)",
		Field: func(o *Options) any { return &o.IgnoreWait }},
	{Key: "retry-jitter", Kind: OptDuration, Max: MaxRunTime, Default: "0 (none)", Flags: []string{"check", "run"},
		Doc:   "up to this much more, drawn per retry, on each backoff sleep",
		Field: func(o *Options) any { return &o.RetryJitter }},
}

// OptionKeys are the option words, in the table's order.
func OptionKeys() []string {
	keys := make([]string, len(OptionTable))
	for i, r := range OptionTable {
		keys[i] = r.Key
	}
	return keys
}

// LookupOption returns the row of key.
func LookupOption(key string) (OptionRow, bool) {
	for _, r := range OptionTable {
		if r.Key == key {
			return r, true
		}
	}
	return OptionRow{}, false
}

// Word renders the row's value in o as its scenario word ("queue-wait=500ms"),
// or "" when the field is zero (not set).
func (r OptionRow) Word(o *Options) string {
	switch p := r.Field(o).(type) {
	case *bool:
		if !*p {
			return ""
		}
		return r.Key + "=" + strconv.FormatBool(!r.Invert)
	case *time.Duration:
		if *p == 0 {
			return ""
		}
		return r.Key + "=" + sim.FormatDuration(*p)
	case *int:
		if *p == 0 {
			return ""
		}
		return r.Key + "=" + strconv.Itoa(*p)
	case *float64:
		if *p == 0 {
			return ""
		}
		return r.Key + "=" + strconv.FormatFloat(*p, 'g', -1, 64)
	}
	panic("model: option " + r.Key + " has a field of no known kind")
}

// Set puts v, parsed already, into o's field: a bool (the word's value,
// inverted as the row says), a duration, an int or a float64.
func (r OptionRow) Set(o *Options, v any) {
	switch p := r.Field(o).(type) {
	case *bool:
		*p = v.(bool) != r.Invert
	case *time.Duration:
		*p = v.(time.Duration)
	case *int:
		*p = v.(int)
	case *float64:
		*p = v.(float64)
	}
}

// Refusal says why the option, set, cannot apply to s's design ("" when
// it can); name is how the message names the option ("--quorum" or
// "quorum").
func (r OptionRow) Refusal(name string, s Spec) string {
	if r.Applies == nil || r.Applies(s.traits(nil), s) {
		return ""
	}
	return name + " applies to " + r.Designs + "; " + s.designName() + " does not"
}

// designName names s's design in messages.
func (s Spec) designName() string {
	if s.Custom != nil {
		return s.Custom.Name()
	}
	return s.Design
}

// OptionsDoc is the docs' option list, one line per row, from the table
// (a test keeps docs/options.md equal to it).
func OptionsDoc() string {
	var b strings.Builder
	b.WriteString("| option | type | default | flag on | what it does |\n|---|---|---|---|---|\n")
	kinds := map[OptionKind]string{OptBool: "true/false", OptDuration: "duration", OptCount: "count", OptFraction: "number in [0, 1)"}
	for _, r := range OptionTable {
		typ := kinds[r.Kind]
		if r.Kind == OptCount {
			typ = "count " + strconv.Itoa(r.Lo) + ".." + strconv.Itoa(r.Hi)
		}
		if r.Kind == OptDuration {
			typ = "duration up to " + sim.FormatDuration(r.Max)
		}
		flags := "-"
		if len(r.Flags) > 0 {
			flags = strings.Join(r.Flags, ", ")
		}
		b.WriteString("| `" + r.Key + "` | " + typ + " | " + r.Default + " | " + flags + " | " + r.Doc + " |\n")
	}
	return b.String()
}
