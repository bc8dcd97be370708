package invariant

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pkg/errors"

	"locksim/internal/goldenfile"
	"locksim/model/history"
	"locksim/sim"
)

// The data-driven checker tests (testdata/check/*.txt), in the form of
// cockroachdb/datadriven and etcd-io/raft's interaction tests: each case
// is a command line, a history, a line "----" and the verdicts, ended by
// a blank line. Lines starting with # before a command, and inside the
// history, are comments.
//
//	# A acquires; its key expires; B acquires while A holds.
//	check mutual-exclusion
//	0.050000s A  acquired  peer=r1 key=lock value=A:1 n=1
//	1.001000s r1 expire    key=lock value=A:1
//	1.004000s B  acquired  peer=r1 key=lock value=B:1 n=1
//	1.200000s A  release   key=lock value=A:1
//	----
//	mutual-exclusion: broken
//	  - clients=A,B from=1.004000s to=1.200000s events=0,1,2,3
//	    A and B both held the lock from 1.004000s to 1.200000s (0.196000s): A acquired at ...
//
// The command is check, then the invariants to report (all the config
// judges when none is named; token-order names both token invariants),
// then the config (dataConfig): quorum=N fencing=strict|nonstrict|version
// liveness=DURATION acquire-tolerance=DURATION (Go syntax: 1s, 500ms)
// available=BOUND/MASTERS/TOLERATE (available=2s/r1,r2,r3/1)
// and the flags reentrant, fair, shared, client-wall, per-client,
// validity (the design promises a validity: premature-loss is judged),
// no-writes (no client writes: the invariants that judge writes are
// not), and no-tokens (the design grants no fencing tokens: token-unique
// is not judged; by default it is).
//
// The history is in sim.Event.Line's form (sim.ParseLine), each line one
// event, Seq its position among the case's events from 0; local= may be
// left out, and is then the event's true time (a perfect clock). Kinds
// must be known (history.Info).
//
// The verdicts are, for each invariant in report order, "held", "no
// verdict (why)" (liveness: the history ended too soon),
// "not judged (why)" (named but the config does not judge it), or
// "broken" and each violation as the checkers report it: its clients,
// window, tokens, cited events (Seq) and explanation. A case whose input
// does not parse has "error: ..." as its verdict.
//
// When a case fails, run `go test ./model/invariant -run TestCheckData
// -rewrite` (or make golden) and inspect the diff. Only commit the changes
// if you understand what caused them: each verdict is a reviewed claim
// about a checker.

// dataCase is one case of a data file, with the text around it.
type dataCase struct {
	pre    []string // comment and blank lines before the command
	cmd    string
	input  []string
	output []string
}

// dataFile is a parsed data file: its cases and the lines after the last.
type dataFile struct {
	cases []dataCase
	post  []string
}

// parseDataFile splits a data file into cases; an error names its line.
func parseDataFile(text string) (*dataFile, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	f := &dataFile{}
	var pre []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			pre = append(pre, l)
			continue
		}
		if l != "check" && !strings.HasPrefix(l, "check ") {
			return nil, errors.Errorf("line %d: %q: want a command (check ...), a comment (#) or a blank line", i+1, l)
		}
		c := dataCase{pre: pre, cmd: l}
		pre = nil
		start := i + 1
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			c.input = append(c.input, lines[i])
		}
		if i == len(lines) {
			return nil, errors.Errorf("line %d: %s has no ---- line after its history", start, l)
		}
		for i++; i < len(lines) && lines[i] != ""; i++ {
			c.output = append(c.output, lines[i])
		}
		f.cases = append(f.cases, c)
	}
	f.post = pre
	return f, nil
}

// render writes f back: each case's output ends with a blank line, but
// for the last case's, unless lines follow it.
func (f *dataFile) render() string {
	var b strings.Builder
	for i, c := range f.cases {
		for _, l := range c.pre {
			b.WriteString(l + "\n")
		}
		b.WriteString(c.cmd + "\n")
		for _, l := range c.input {
			b.WriteString(l + "\n")
		}
		b.WriteString("----\n")
		for _, l := range c.output {
			b.WriteString(l + "\n")
		}
		if i < len(f.cases)-1 || len(f.post) > 0 {
			b.WriteString("\n")
		}
	}
	for _, l := range f.post {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// dataConfig reads a check command's words after "check": invariant IDs
// and the config.
func dataConfig(words []string) ([]ID, Config, error) {
	var ids []ID
	cfg := Config{Tokens: true} // the histories carry the tokens they test; no-tokens says a design grants none
	for _, w := range words {
		name, val, hasVal := strings.Cut(w, "=")
		var err error
		switch {
		case hasVal && name == "quorum":
			if cfg.Quorum, err = strconv.Atoi(val); err != nil || cfg.Quorum < 0 {
				err = errors.New("want a whole number")
			}
		case hasVal && name == "liveness":
			if cfg.LivenessBound, err = time.ParseDuration(val); err != nil || cfg.LivenessBound < 0 {
				err = errors.New("want a duration (1s, 500ms)")
			}
		case hasVal && name == "acquire-tolerance":
			if cfg.AcquireTolerance, err = time.ParseDuration(val); err != nil || cfg.AcquireTolerance < 0 {
				err = errors.New("want a duration (1s, 500ms)")
			}
		case hasVal && name == "available":
			// available=BOUND/r1,r2,r3/TOLERATE
			parts := strings.Split(val, "/")
			if len(parts) != 3 {
				err = errors.New("want available=BOUND/MASTERS/TOLERATE, e.g. available=2s/r1,r2,r3/1")
				break
			}
			if cfg.AvailableBound, err = time.ParseDuration(parts[0]); err != nil {
				break
			}
			cfg.Masters = strings.Split(parts[1], ",")
			cfg.Tolerate, err = strconv.Atoi(parts[2])
		case hasVal && name == "fencing":
			rule, ok := map[string]FenceRule{"none": NoFencing, "strict": TokenAbove, "nonstrict": TokenAtLeast, "version": VersionCheck}[val]
			if !ok {
				err = errors.Errorf("want strict, nonstrict, version or none")
			}
			cfg.Fencing = rule
		case hasVal:
			err = errors.New("unknown option (quorum=, fencing=, liveness=, acquire-tolerance=)")
		case w == "no-tokens":
			cfg.Tokens = false
		case w == "reentrant":
			cfg.Reentrant = true
		case w == "fair":
			cfg.Fair = true
		case w == "shared":
			cfg.Shared = true
		case w == "client-wall":
			cfg.ClientWall = true
		case w == "per-client":
			cfg.PerClient = true
		case w == "validity":
			cfg.Validity = true
		case w == "no-writes":
			cfg.NoWrites = true
		case w == "failover":
			cfg.Failover = true // with available=: a Sentinel setup's claim
		default:
			var more []ID
			more, err = Parse(w)
			ids = append(ids, more...)
		}
		if err != nil {
			return nil, cfg, errors.Wrapf(err, "check %s", w)
		}
	}
	return Sorted(ids), cfg, nil
}

// dataHistory reads a case's history lines.
func dataHistory(lines []string) (sim.History, error) {
	var h sim.History
	for _, l := range lines {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if !strings.Contains(l, " local=") {
			at, _, _ := strings.Cut(strings.TrimLeft(l, " "), " ")
			l += " local=" + at
		}
		e, err := sim.ParseLine(l)
		if err != nil {
			return nil, errors.Wrapf(err, "event %d", len(h))
		}
		if _, ok := history.Info(e.Kind); !ok {
			return nil, errors.Errorf("event %d: unknown kind %q", len(h), e.Kind)
		}
		e.Seq = len(h)
		h = append(h, e)
	}
	return h, nil
}

// runDataCase judges a case and returns its verdict lines.
func runDataCase(c dataCase) []string {
	ids, cfg, err := dataConfig(strings.Fields(c.cmd)[1:])
	var h sim.History
	if err == nil {
		h, err = dataHistory(c.input)
	}
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	ix := history.New(h)
	vs := CheckIndex(ix, cfg)
	named := len(ids) > 0
	if !named {
		ids = All
	}
	var out []string
	for _, id := range ids {
		if ok, why := cfg.Judged(id); !ok {
			if named {
				out = append(out, string(id)+": not judged ("+why+")")
			}
			continue
		}
		mine := Only(vs, []ID{id})
		if len(mine) == 0 {
			if why, undecided := LivenessUndecided(ix, cfg); id == Liveness && undecided {
				out = append(out, string(id)+": no verdict ("+why+")")
				continue
			}
			out = append(out, string(id)+": held")
			continue
		}
		out = append(out, string(id)+": broken")
		for _, v := range mine {
			out = append(out, "  - "+violationLine(v), "    "+v.Explanation)
		}
	}
	return out
}

// violationLine renders a violation's fields but its explanation.
func violationLine(v Violation) string {
	ints := func(xs []int64) string {
		ss := make([]string, len(xs))
		for i, x := range xs {
			ss[i] = strconv.FormatInt(x, 10)
		}
		return strings.Join(ss, ",")
	}
	seqs := make([]int64, len(v.Events))
	for i, s := range v.Events {
		seqs[i] = int64(s)
	}
	s := "clients=" + strings.Join(v.Clients, ",") + " from=" + sim.FormatTime(v.From) + " to=" + sim.FormatTime(v.To)
	if len(v.Tokens) > 0 {
		s += " tokens=" + ints(v.Tokens)
	}
	return s + " events=" + ints(seqs)
}

// TestCheckData runs every case of testdata/check/*.txt and compares the
// verdicts with the file (package goldenfile: -rewrite writes them).
func TestCheckData(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "check", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no data files under testdata/check (%v)", err)
	}
	for _, path := range paths {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".txt"), func(t *testing.T) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parseDataFile(string(text))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			for i := range f.cases {
				f.cases[i].output = runDataCase(f.cases[i])
			}
			goldenfile.Check(t, filepath.Join("check", name), f.render())
		})
	}
}

// The data files' own format: a file renders back to itself, and a
// malformed one is refused with its line.
func TestDataFileFormat(t *testing.T) {
	text := "# head\n\ncheck a\nx\n----\ny\n\n# mid\ncheck b\n----\n\n# tail\n"
	f, err := parseDataFile(text)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.render(); got != text {
		t.Errorf("render = %q, want %q", got, text)
	}
	if n := len(f.cases); n != 2 || !slices.Equal(f.cases[0].output, []string{"y"}) {
		t.Errorf("cases: %+v", f.cases)
	}
	for _, bad := range []struct{ text, want string }{
		{"check\nx\n", "line 1: check has no ---- line after its history"},
		{"# c\nchek\n----\n", `line 2: "chek": want a command (check ...), a comment (#) or a blank line`},
	} {
		if _, err := parseDataFile(bad.text); err == nil || err.Error() != bad.want {
			t.Errorf("parseDataFile(%q) = %v, want %s", bad.text, err, bad.want)
		}
	}
}
