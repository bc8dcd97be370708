package scenarios

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/clock"
	"locksim/internal/bounded"
	"locksim/model"
	"locksim/network"
	"locksim/sim"
)

// More limits on what a file may hold; the spec's own limits are model's
// table (model.MaxClients, ...), which Spec.Config enforces again.
const (
	maxFileBytes = 1 << 20
	maxClients   = model.MaxClients
	maxMasters   = model.MaxMasters
	maxReplicas  = model.MaxReplicas
	maxFaults    = model.MaxFaults
	maxPriority  = 1_000_000
)

// Separator is the line that ends the header; the teaching text follows.
const Separator = "----"

// ParseError is a problem in a scenario file, at a line.
type ParseError struct {
	// File is the name the file was parsed under.
	File string
	// Line is the 1-based line of the problem; 0 for the file as a whole.
	Line int
	// Msg says what is wrong, in lower case, without the position.
	Msg string
}

// Error renders "file:line: msg", as compilers do.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
	}
	return e.File + ": " + e.Msg
}

// FileLimit bounds a scenario file (limits: scenario-bytes): Load reads
// at most that much of whatever the path names, a file, a pipe or a
// device.
var FileLimit = bounded.Limit{What: "a scenario file", Bytes: maxFileBytes, Name: "scenario-bytes"}

// Load reads and parses a scenario file, through FileLimit. Errors name
// the path as given.
func Load(path string) (*Scenario, error) {
	data, err := FileLimit.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses a scenario file. name is used in errors and kept as
// Scenario.File. Every error is a *ParseError naming the line; Parse never
// panics, whatever data holds. See the package documentation for the
// format.
func Parse(name string, data []byte) (*Scenario, error) {
	if len(data) > maxFileBytes {
		return nil, &ParseError{File: name, Msg: (&bounded.Error{Path: "the file", Limit: FileLimit, Size: int64(len(data))}).Error()}
	}
	p := &parser{
		file:  name,
		s:     &Scenario{File: name, Source: string(data)},
		first: map[string]int{},
	}
	if err := p.parse(string(data)); err != nil {
		return nil, err
	}
	return p.s, nil
}

// parser holds the state of one Parse.
type parser struct {
	file string
	s    *Scenario
	// first is the line where each directive first appeared.
	first map[string]int
	// end is the line where the header ended (the separator or the last
	// line), where missing directives are reported.
	end int
	// The lines of things checked once the whole header is known.
	faultLines []int
	clockLines []named
	prioLines  []named
	// options are the option keys seen so far.
	options map[string]bool
	// lastAt and lastAtLine are the latest absolute fault time so far.
	lastAt     time.Duration
	lastAtLine int
}

type named struct {
	line int
	name string
}

type directive struct {
	// many allows the directive more than once.
	many bool
	// parse handles the directive's words (args) or its raw text (rest).
	parse func(p *parser, line int, args []string, rest string) error
}

var directives map[string]directive

func init() {
	// Built in init: the handlers refer to the table (for suggestions).
	directives = map[string]directive{
		"name":     {parse: (*parser).name},
		"title":    {parse: (*parser).title},
		"design":   {parse: (*parser).design},
		"designs":  {parse: (*parser).designs},
		"topology": {parse: (*parser).topology},
		"sentinel": {parse: (*parser).sentinel},
		"cluster":  {parse: (*parser).cluster},
		"priority": {many: true, parse: (*parser).priority},
		"clients":  {parse: (*parser).clients},
		"ttl":      {parse: durField(func(s *model.Spec) *time.Duration { return &s.Options.TTL }, true, model.MaxTTL)},
		"work":     {parse: durField(func(s *model.Spec) *time.Duration { return &s.Workload.Work }, false, model.MaxTTL)},
		"think":    {parse: durField(func(s *model.Spec) *time.Duration { return &s.Workload.Think }, false, model.MaxTTL)},
		"stagger":  {parse: durField(func(s *model.Spec) *time.Duration { return &s.Workload.Start }, false, model.MaxTTL)},
		"duration": {parse: durField(func(s *model.Spec) *time.Duration { return &s.Workload.Duration }, false, model.MaxRunTime)},
		"until":    {parse: durField(func(s *model.Spec) *time.Duration { return &s.Until }, false, model.MaxRunTime)},
		"cycles":   {parse: intField(func(s *model.Spec) *int { return &s.Workload.Cycles }, model.MaxCycles)},
		"reentry":  {parse: intField(func(s *model.Spec) *int { return &s.Workload.Reentry }, 100)},
		"readers":  {parse: intField(func(s *model.Spec) *int { return &s.Workload.Readers }, model.MaxClients)},
		"latency":  {parse: (*parser).latency},
		"loss":     {parse: (*parser).loss},
		"fencing":  {parse: (*parser).fencing},
		"option":   {many: true, parse: (*parser).option},
		"clock":    {many: true, parse: (*parser).clock},
		"limits":   {parse: (*parser).limits},
		"fault":    {many: true, parse: (*parser).fault},
		"expect":   {many: true, parse: (*parser).expect},
	}
	// Eviction (sim/evict.go): maxmemory and its policy, and a filler.
	directives["maxmemory"] = directive{parse: (*parser).maxmemory}
	directives["fill"] = directive{parse: (*parser).fill}
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return &ParseError{File: p.file, Line: line, Msg: errors.Errorf(format, args...).Error()}
}

// at places a plain error at a line.
func (p *parser) at(line int, err error) error {
	if err == nil {
		return nil
	}
	return &ParseError{File: p.file, Line: line, Msg: err.Error()}
}

func (p *parser) parse(data string) error {
	lines := strings.Split(data, "\n")
	header := len(lines)
	for i, raw := range lines {
		raw = strings.TrimSuffix(raw, "\r")
		if strings.TrimSpace(raw) == Separator {
			header = i
			body := slices.Clone(lines[i+1:])
			for j := range body {
				body[j] = strings.TrimRight(body[j], "\r") // CRLF files
			}
			p.s.Text = strings.TrimSpace(strings.Join(body, "\n"))
			break
		}
		line := i + 1
		text := stripComment(raw)
		args := strings.Fields(text)
		if len(args) == 0 {
			continue
		}
		word := args[0]
		d, ok := directives[word]
		if !ok {
			msg := "unknown directive " + bounded.Quote(word)
			if s := suggest(word); s != "" {
				msg += " (did you mean " + strconv.Quote(s) + "?)"
			}
			return &ParseError{File: p.file, Line: line, Msg: msg}
		}
		if prev, seen := p.first[word]; seen && !d.many {
			return p.errorf(line, "%s given twice (first on line %d)", word, prev)
		} else if !seen {
			p.first[word] = line
		}
		rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), word))
		if err := d.parse(p, line, args[1:], rest); err != nil {
			if pe, ok := err.(*ParseError); ok {
				return pe
			}
			return p.at(line, errors.Wrap(err, word))
		}
	}
	switch {
	case header < len(lines):
		p.end = header + 1 // the separator line
	default:
		p.end = max(1, len(lines))
		if p.end > 1 && lines[p.end-1] == "" {
			p.end-- // a final newline ends the last line; it is not a line
		}
	}
	return p.finish()
}

// stripComment removes a comment: `#` at the start of a line or after
// whitespace, unless a digit follows it (`#2` counts events in a trigger).
func stripComment(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] != '#' {
			continue
		}
		if i > 0 && s[i-1] != ' ' && s[i-1] != '\t' {
			continue
		}
		if strings.TrimSpace(s[:i]) != "" && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			continue
		}
		return s[:i]
	}
	return s
}

// suggest returns the directive closest to a misspelt word, if close.
func suggest(word string) string {
	best, bestD := "", 3
	names := make([]string, 0, len(directives))
	for n := range directives {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if d := editDistance(word, n, bestD); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or limit if it is
// at least limit (long inputs stop early).
func editDistance(a, b string, limit int) int {
	if len(a) > 64 || len(b) > 64 || abs(len(a)-len(b)) >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

var (
	scenarioName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	clientName   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,31}$`)
	nodeOrGroup  = regexp.MustCompile(`^[rm][0-9]+$`)
	// reserved are names a client may not take: endpoints and the
	// words of the fault syntax.
	reserved = append([]string{model.ResourceName, sim.SentinelName, sim.FaultActor, "net", "at", "after", "for"}, sim.FaultFlags()...)
)

func one(args []string, what string) (string, error) {
	if len(args) != 1 {
		return "", errors.Errorf("want one %s, got %d words", what, len(args))
	}
	return args[0], nil
}

func (p *parser) name(line int, args []string, _ string) error {
	n, err := one(args, "name")
	if err != nil {
		return err
	}
	if !scenarioName.MatchString(n) {
		return errors.Errorf("bad name %s (letters, digits, '.', '_' and '-', at most 64)", bounded.Q(n))
	}
	p.s.Name = n
	return nil
}

func (p *parser) title(_ int, _ []string, rest string) error {
	if rest == "" {
		return errors.New("title is empty")
	}
	p.s.Title = rest
	return nil
}

func checkDesign(id string) error {
	if known := Designs(); !slices.Contains(known, id) {
		return errors.Errorf("unknown design %s (known: %s)", bounded.Q(id), strings.Join(known, ", "))
	}
	return nil
}

func (p *parser) design(_ int, args []string, _ string) error {
	id, err := one(args, "design ID")
	if err != nil {
		return err
	}
	if err := checkDesign(id); err != nil {
		return err
	}
	p.s.Design = id
	return nil
}

func (p *parser) designs(_ int, args []string, _ string) error {
	if len(args) == 0 {
		return errors.New("want * or a list of design IDs")
	}
	if len(args) == 1 && args[0] == "*" {
		return nil
	}
	ds := []string{}
	for _, id := range args {
		if err := checkDesign(id); err != nil {
			return err
		}
		if slices.Contains(ds, id) {
			return errors.Errorf("design %s listed twice", id)
		}
		ds = append(ds, id)
	}
	p.s.Designs = ds
	return nil
}

// keyvals splits "k=v" words, rejecting unknown or repeated keys.
func keyvals(args []string, known ...string) ([][2]string, error) {
	var out [][2]string
	seen := map[string]bool{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || v == "" {
			return nil, errors.Errorf("want key=value, got %s", bounded.Q(a))
		}
		if !slices.Contains(known, k) {
			return nil, errors.Errorf("unknown key %s (want %s)", bounded.Q(k), strings.Join(known, ", "))
		}
		if seen[k] {
			return nil, errors.Errorf("%s given twice", k)
		}
		seen[k] = true
		out = append(out, [2]string{k, v})
	}
	return out, nil
}

func (p *parser) topology(_ int, args []string, _ string) error {
	kvs, err := keyvals(args, "masters", "replicas", "persistence", "min-replicas-to-write", "min-replicas-max-lag")
	if err != nil {
		return err
	}
	if len(kvs) == 0 {
		return errors.New("want masters=N, replicas=N, persistence=MODE, min-replicas-to-write=N and/or min-replicas-max-lag=D")
	}
	t := &p.s.Spec.Topology
	for _, kv := range kvs {
		switch kv[0] {
		case "masters":
			n, err := parseInt(kv[1], "masters", 1, maxMasters)
			if err != nil {
				return err
			}
			p.layout().Masters = int(n)
		case "replicas":
			n, err := parseInt(kv[1], "replicas", 0, maxReplicas)
			if err != nil {
				return err
			}
			p.layout().Replicas = int(n)
		case "persistence":
			m := sim.Persistence(kv[1])
			if !slices.Contains(sim.Persistences, m) {
				return errors.Errorf("unknown persistence %s (want %s)", bounded.Q(kv[1]), sim.PersistenceNames())
			}
			t.Persistence = m
		case "min-replicas-to-write":
			n, err := parseInt(kv[1], kv[0], 0, maxReplicas)
			if err != nil {
				return err
			}
			t.MinReplicasToWrite = int(n)
		case "min-replicas-max-lag":
			d, err := parseDur(kv[1], kv[0])
			if err != nil {
				return err
			}
			if d < time.Second || d%time.Second != 0 {
				return errors.Errorf("min-replicas-max-lag %s: give whole seconds, at least 1s, as Redis takes it", kv[1])
			}
			t.MinReplicasMaxLag = d
		}
	}
	if l := p.s.Layout; l != nil {
		t.Masters, t.Replicas = l.Masters, l.Replicas
	}
	return nil
}

// layout returns the fixed layout, creating the default one (1 master, 0
// replicas) the first time.
func (p *parser) layout() *Layout {
	if p.s.Layout == nil {
		p.s.Layout = &Layout{Masters: 1}
	}
	return p.s.Layout
}

func (p *parser) sentinel(_ int, args []string, _ string) error {
	kvs, err := keyvals(args, "down-after", "discovery")
	if err != nil {
		return err
	}
	sc := &p.s.Spec.Topology.Sentinel
	sc.Enabled = true
	for _, kv := range kvs {
		d, err := parseDur(kv[1], kv[0])
		if err != nil {
			return err
		}
		if kv[0] == "down-after" {
			sc.DownAfter = d
		} else {
			sc.DiscoveryDelay = d
		}
	}
	return nil
}

// cluster makes the masters one Redis Cluster (model.Topology.Cluster).
func (p *parser) cluster(_ int, args []string, _ string) error {
	kvs, err := keyvals(args, "node-timeout")
	if err != nil {
		return err
	}
	t := &p.s.Spec.Topology
	t.Cluster = true
	for _, kv := range kvs {
		if t.ClusterNodeTimeout, err = parseDur(kv[1], kv[0]); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) priority(line int, args []string, _ string) error {
	if len(args) == 0 {
		return errors.New("want NODE=N, e.g. priority r3=1")
	}
	t := &p.s.Spec.Topology
	for _, a := range args {
		n, v, ok := strings.Cut(a, "=")
		if !ok || n == "" {
			return errors.Errorf("want NODE=N, got %s", bounded.Q(a))
		}
		pr, err := parseInt(v, "priority "+n, 1, maxPriority)
		if err != nil {
			return err
		}
		if _, dup := t.Priorities[n]; dup {
			return errors.Errorf("node %s has a priority already", n)
		}
		if t.Priorities == nil {
			t.Priorities = map[string]int{}
		}
		t.Priorities[n] = int(pr)
		p.prioLines = append(p.prioLines, named{line, n})
	}
	return nil
}

func (p *parser) clients(_ int, args []string, _ string) error {
	if len(args) == 0 {
		return errors.New("want at least one client name")
	}
	if len(args) > maxClients {
		return errors.Errorf("%d clients; at most %d", len(args), maxClients)
	}
	for i, c := range args {
		switch {
		case !clientName.MatchString(c):
			return errors.Errorf("bad client name %s (a letter, then letters, digits, '_' or '-'; at most 32)", bounded.Q(c))
		case slices.Contains(reserved, c) || nodeOrGroup.MatchString(c):
			return errors.Errorf("client name %s is reserved (node, group, endpoint or syntax word)", bounded.Q(c))
		case slices.Contains(args[:i], c):
			return errors.Errorf("client %s listed twice", c)
		}
	}
	p.s.Spec.Clients = slices.Clone(args)
	return nil
}

func durField(field func(*model.Spec) *time.Duration, positive bool, limit time.Duration) func(*parser, int, []string, string) error {
	return func(p *parser, _ int, args []string, _ string) error {
		a, err := one(args, "duration")
		if err != nil {
			return err
		}
		d, err := parseDur(a, "")
		if err != nil {
			return err
		}
		if positive && d == 0 {
			return errors.New("must be positive")
		}
		if d > limit {
			name := "run-time"
			if limit == model.MaxTTL {
				name = "ttl"
			}
			return errors.Errorf("%s is beyond the limit of %s (limits: %s)", a, fmtDur(limit), name)
		}
		*field(&p.s.Spec) = d
		return nil
	}
}

func intField(field func(*model.Spec) *int, hi int64) func(*parser, int, []string, string) error {
	return func(p *parser, _ int, args []string, _ string) error {
		a, err := one(args, "number")
		if err != nil {
			return err
		}
		n, err := parseInt(a, "", 0, hi)
		if err != nil {
			return err
		}
		*field(&p.s.Spec) = int(n)
		return nil
	}
}

func (p *parser) latency(_ int, args []string, _ string) error {
	if len(args) != 2 {
		return errors.New("want MIN MAX, e.g. latency 1ms 2ms")
	}
	lo, err := parseDur(args[0], "min")
	if err != nil {
		return err
	}
	hi, err := parseDur(args[1], "max")
	if err != nil {
		return err
	}
	if hi < lo {
		return errors.Errorf("max %s is below min %s", args[1], args[0])
	}
	p.s.Spec.Network.Default = network.Latency{Min: lo, Max: hi}
	return nil
}

// maxmemory BYTES [POLICY]: Redis's maxmemory and maxmemory-policy on
// every node (sim/evict.go).
func (p *parser) maxmemory(_ int, args []string, _ string) error {
	if len(args) < 1 || len(args) > 2 {
		return errors.Errorf("want BYTES [POLICY], e.g. maxmemory 2000 allkeys-lru (policies: %s)", sim.EvictionPolicyNames())
	}
	n, err := parseInt(args[0], "bytes", 1, sim.MaxKeyspaceBytes)
	if err != nil {
		return err
	}
	t := &p.s.Spec.Topology
	t.MaxMemory = n
	if len(args) == 2 {
		pol := sim.EvictionPolicy(args[1])
		if !slices.Contains(sim.EvictionPolicies, pol) {
			return errors.Errorf("unknown policy %s (want %s)", bounded.Q(args[1]), sim.EvictionPolicyNames())
		}
		t.Policy = pol
	}
	return nil
}

// fill every=D size=BYTES [ttl=D] [start=D]: another application writing
// its own keys to every primary (sim.FillConfig).
func (p *parser) fill(_ int, args []string, _ string) error {
	kvs, err := keyvals(args, "every", "size", "ttl", "start")
	if err != nil {
		return err
	}
	f := &p.s.Spec.Topology.Fill
	for _, kv := range kvs {
		switch kv[0] {
		case "size":
			n, err := parseInt(kv[1], "size", 0, sim.MaxValueBytes)
			if err != nil {
				return err
			}
			f.Size = int(n)
		default:
			d, err := parseDur(kv[1], kv[0])
			if err != nil {
				return err
			}
			switch kv[0] {
			case "every":
				if d < time.Millisecond {
					return errors.Errorf("every %s: at least 1ms", kv[1])
				}
				f.Every = d
			case "ttl":
				if d < time.Millisecond {
					return errors.Errorf("ttl %s: at least 1ms", kv[1])
				}
				f.TTL = d
			case "start":
				f.Start = d
			}
		}
	}
	if f.Every == 0 {
		return errors.New("want every=D size=BYTES [ttl=D] [start=D], e.g. fill every=10ms size=100")
	}
	return nil
}

func (p *parser) loss(_ int, args []string, _ string) error {
	a, err := one(args, "rate such as 1000ppm")
	if err != nil {
		return err
	}
	n, err := parseInt(strings.TrimSuffix(a, "ppm"), "loss", 0, 1_000_000)
	if err != nil {
		return err
	}
	p.s.Spec.Network.LossPPM = n
	return nil
}

func (p *parser) fencing(_ int, args []string, _ string) error {
	a, err := one(args, "mode")
	if err != nil {
		return err
	}
	if f := model.Fencing(a); slices.Contains(model.Fencings, f) {
		p.s.Spec.Fencing = f
		return nil
	}
	return errors.Errorf("unknown fencing %s (want %s)", bounded.Q(a), model.FencingNames())
}

// optionKeys are the `option` keys, in the order Format writes them: the
// rows of model.OptionTable.
var optionKeys = model.OptionKeys()

// ApplyOptions applies the arguments of an `option` line ("queue-wait=500ms",
// "wall-clock=false") to spec's options, with the checks a scenario file's
// option line gets; a key given twice is an error.
func ApplyOptions(spec *model.Spec, args []string) error {
	p := &parser{s: &Scenario{Spec: *spec}}
	if err := p.option(0, args, ""); err != nil {
		return errors.Wrap(err, "option")
	}
	spec.Options = p.s.Spec.Options
	return nil
}

func (p *parser) option(_ int, args []string, _ string) error {
	kvs, err := keyvals(args, optionKeys...)
	if err != nil {
		return err
	}
	if len(kvs) == 0 {
		return errors.Errorf("want key=value, keys %s", strings.Join(optionKeys, ", "))
	}
	o := &p.s.Spec.Options
	for _, kv := range kvs {
		k, v := kv[0], kv[1]
		if p.options[k] {
			return errors.Errorf("%s given twice", k)
		}
		if p.options == nil {
			p.options = map[string]bool{}
		}
		p.options[k] = true
		r, _ := model.LookupOption(k) // keyvals admits only the table's keys
		var v2 any
		switch r.Kind {
		case model.OptBool:
			b, err := strconv.ParseBool(v)
			if err != nil || (v != "true" && v != "false") {
				return errors.Errorf("%s: want true or false, got %s", k, bounded.Q(v))
			}
			v2 = b
		case model.OptFraction:
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || !(f >= 0 && f < 1) {
				return errors.Errorf("%s: want a number in [0, 1), got %s", k, bounded.Q(v))
			}
			v2 = f
		case model.OptCount:
			n, err := parseInt(v, k, int64(r.Lo), int64(r.Hi))
			if err != nil {
				return err
			}
			v2 = int(n)
		default:
			d, err := parseDur(v, k)
			if err != nil {
				return err
			}
			v2 = d
		}
		r.Set(o, v2)
	}
	return nil
}

func (p *parser) clock(line int, args []string, _ string) error {
	if len(args) < 2 {
		return errors.New("want NAME offset=D and/or rate=±Nppm")
	}
	n := args[0]
	kvs, err := keyvals(args[1:], "offset", "rate")
	if err != nil {
		return err
	}
	var c clock.Config
	for _, kv := range kvs {
		if kv[0] == "offset" {
			if c.Offset, err = parseSignedDur(kv[1], "offset"); err != nil {
				return err
			}
		} else if c.RatePPM, err = parsePPM(kv[1], true, "rate"); err != nil {
			return err
		}
	}
	for _, cl := range p.clockLines {
		if cl.name == n {
			return errors.Errorf("%s has a clock already (line %d)", n, cl.line)
		}
	}
	p.clockLines = append(p.clockLines, named{line, n})
	t := &p.s.Spec.Topology
	// Nodes and clients are told apart once the header is known; keep
	// the clock under nodes for now (see finish).
	if t.NodeClocks == nil {
		t.NodeClocks = map[string]clock.Config{}
	}
	t.NodeClocks[n] = c
	return nil
}

func (p *parser) limits(_ int, args []string, _ string) error {
	kvs, err := keyvals(args, "events", "time")
	if err != nil {
		return err
	}
	if len(kvs) == 0 {
		return errors.New("want events=N and/or time=D")
	}
	for _, kv := range kvs {
		if kv[0] == "events" {
			n, err := parseInt(kv[1], "events", 1, model.MaxEvents)
			if err != nil {
				return err
			}
			p.s.Spec.Limits.MaxEvents = int(n)
		} else {
			d, err := parseDur(kv[1], "time")
			if err != nil {
				return err
			}
			p.s.Spec.Limits.MaxTime = d
		}
	}
	return nil
}

func (p *parser) fault(line int, args []string, _ string) error {
	if len(p.s.Spec.Faults) >= maxFaults {
		return errors.Errorf("more than %d faults", maxFaults)
	}
	f, err := parseFault(args)
	if err != nil {
		return err
	}
	if f.After == nil {
		if p.lastAtLine > 0 && f.At < p.lastAt {
			return p.errorf(line, "fault at %s comes before the fault at %s on line %d (list absolute faults in time order)",
				fmtDur(f.At), fmtDur(p.lastAt), p.lastAtLine)
		}
		p.lastAt, p.lastAtLine = f.At, line
	}
	p.s.Spec.Faults = append(p.s.Spec.Faults, f)
	p.faultLines = append(p.faultLines, line)
	return nil
}

func (p *parser) expect(_ int, args []string, rest string) error {
	if len(args) == 0 || (args[0] != ExpectBreaks && args[0] != ExpectSurvives) {
		got := ""
		if len(args) > 0 {
			got = ", got " + strconv.Quote(args[0])
		}
		return errors.Errorf("want breaks or survives, then the catalogue's text%s", got)
	}
	text := strings.TrimSpace(strings.TrimPrefix(rest, args[0]))
	if text == "" {
		return errors.Errorf("%s needs the catalogue's text", args[0])
	}
	p.s.Expect = append(p.s.Expect, Expectation{Kind: args[0], Text: text})
	return nil
}
