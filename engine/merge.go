package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
	"locksim/model"
)

// MaxShardBytes bounds a shard's JSON (about 75 million runs at the
// catalogue's ~215 bytes a run: a longer campaign is more shards), and
// MaxShardValueBytes each value in it (the campaign, one run, the
// summary): merge reads a shard as a stream, so its memory is bounded by
// the second, not by the file. docs/limits.md: shard-bytes.
const (
	MaxShardBytes      = 16 << 30
	MaxShardValueBytes = 16 << 20
)

// shardBytesMax and shardValueMax are the limits OpenShard applies; tests
// lower them.
var shardBytesMax, shardValueMax int64 = MaxShardBytes, MaxShardValueBytes

// Shard is one shard's locksim.check/v1 document, opened for Merge: its
// schema, build, configuration hash and campaign are read; its runs are
// read as Merge tallies them, so memory stays flat however many runs the
// shards made.
type Shard struct {
	// Name names the document in errors (its file name).
	Name string
	// Build is the locksim that wrote it; ConfigHash its campaign's
	// ConfigHash.
	Build      Build
	ConfigHash string
	// Campaign is the check the shard ran; Shard and Shards say which part.
	Campaign Campaign
	dec      *json.Decoder
	runs     int  // runs read so far
	ended    bool // the runs are over and the summary was read
}

// limitError is a shard past a limit.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// shardReader refuses to read past the file limit, and past the value
// limit into the value the decoder is reading: json.Decoder buffers one
// whole value (from its InputOffset to what was read), so a huge string
// in a run stops here, before it is in memory.
type shardReader struct {
	r    io.Reader
	s    *Shard
	read int64
}

func (l *shardReader) Read(p []byte) (int, error) {
	if l.read >= shardBytesMax {
		return 0, &limitError{fmt.Sprintf("%s is past %d bytes: a shard's JSON is at most %d (limits: shard-bytes); split the check into more shards", l.s.Name, shardBytesMax, shardBytesMax)}
	}
	if l.s.dec != nil {
		if buffered := l.read - l.s.dec.InputOffset(); buffered > shardValueMax {
			return 0, &limitError{fmt.Sprintf("%s: the value at byte %d is past %d bytes; a value in a shard's JSON (the campaign, a run, the summary) is at most %d (limits: shard-bytes): not the JSON of a check",
				l.s.Name, l.s.dec.InputOffset(), shardValueMax, shardValueMax)}
		}
	}
	if int64(len(p)) > shardBytesMax-l.read {
		p = p[:shardBytesMax-l.read]
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	return n, err
}

// OpenShard reads a check's JSON (what `locksim check --format json`
// writes) up to its runs: the schema must be locksim.check/v1, and the
// build, the configuration hash and the campaign must come before the
// runs, as JSONWriter writes them; the hash must be the campaign's (the
// file was not edited). Fields it does not know are skipped. The document
// is read as a stream within MaxShardBytes, each value within
// MaxShardValueBytes.
func OpenShard(name string, r io.Reader) (*Shard, error) {
	s := &Shard{Name: name}
	s.dec = json.NewDecoder(&shardReader{r: r, s: s})
	if err := s.delim('{'); err != nil {
		return nil, err
	}
	schema, campaign := "", false
	for s.dec.More() {
		key, err := s.key()
		if err != nil {
			return nil, err
		}
		switch key {
		case "schema":
			if err := s.dec.Decode(&schema); err != nil {
				return nil, s.wrap(err)
			}
			if schema != CheckSchema {
				return nil, errors.Errorf("%s has schema %s; merge reads %s (check --format json)", name, bounded.Q(schema), CheckSchema)
			}
		case "locksim":
			if err := s.dec.Decode(&s.Build); err != nil {
				return nil, s.wrap(err)
			}
		case "config_hash":
			if err := s.dec.Decode(&s.ConfigHash); err != nil {
				return nil, s.wrap(err)
			}
		case "campaign":
			if err := s.dec.Decode(&s.Campaign); err != nil {
				return nil, s.wrap(err)
			}
			campaign = true
		case "runs":
			if schema == "" || !campaign {
				return nil, errors.Errorf("%s: its runs come before its schema and campaign; merge reads the document as check --format json writes it", name)
			}
			if s.ConfigHash == "" {
				return nil, errors.Errorf("%s has no config_hash: written by a locksim before 0.4.0's shard format, or edited; run the shards again with this locksim (%s)", name, ThisBuild())
			}
			if h := ConfigHash(s.Campaign); h != s.ConfigHash {
				return nil, errors.Errorf("%s: its config_hash %s is not its campaign's (%s): the file was edited after the check wrote it", name, s.ConfigHash, h)
			}
			if s.Campaign.Shards < 1 || s.Campaign.Shard < 0 || s.Campaign.Shard >= s.Campaign.Shards {
				return nil, errors.Errorf("%s: shard %d of %d is no shard", name, s.Campaign.Shard, s.Campaign.Shards)
			}
			return s, s.delim('[')
		default:
			var skip json.RawMessage
			if err := s.dec.Decode(&skip); err != nil {
				return nil, s.wrap(err)
			}
		}
	}
	return nil, errors.Errorf("%s has no runs: not the JSON of a check", name)
}

// next returns the shard's next run; ok is false once its runs are over,
// when it has read the summary and checked that it counts the same runs.
func (s *Shard) next() (o RunOutcome, ok bool, err error) {
	if s.ended {
		return o, false, nil
	}
	if s.dec.More() {
		if err := s.dec.Decode(&o); err != nil {
			return o, false, s.wrap(err)
		}
		s.runs++
		return o, true, nil
	}
	if err := s.delim(']'); err != nil {
		return o, false, err
	}
	var sum *jsonSummary
	for s.dec.More() {
		key, err := s.key()
		if err != nil {
			return o, false, err
		}
		var v any = new(json.RawMessage)
		if key == "summary" {
			sum = &jsonSummary{}
			v = sum
		}
		if err := s.dec.Decode(v); err != nil {
			return o, false, s.wrap(err)
		}
	}
	if err := s.delim('}'); err != nil {
		return o, false, err
	}
	switch {
	case sum == nil:
		return o, false, errors.Errorf("%s ends without its summary: did the check finish?", s.Name)
	case sum.Runs != s.runs:
		return o, false, errors.Errorf("%s: its summary counts %d runs, its runs are %d", s.Name, sum.Runs, s.runs)
	}
	s.ended = true
	return o, false, nil
}

func (s *Shard) delim(want json.Delim) error {
	t, err := s.dec.Token()
	if err != nil {
		return s.wrap(err)
	}
	if t != want {
		return errors.Errorf("%s: %v where %v was due: not the JSON of a check", s.Name, t, want)
	}
	return nil
}

func (s *Shard) key() (string, error) {
	t, err := s.dec.Token()
	if err != nil {
		return "", s.wrap(err)
	}
	k, _ := t.(string)
	return k, nil
}

func (s *Shard) wrap(err error) error {
	var le *limitError
	if errors.As(err, &le) {
		return le
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.Errorf("%s is cut short after %d runs: did the check finish?", s.Name, s.runs)
	}
	return errors.Wrapf(err, "%s after %d runs", s.Name, s.runs)
}

// Merged is a check put back together from its shards, ready to Finish.
type Merged struct {
	// Config is the unsharded check the shards are the parts of (shard 0
	// of 1). Before Finish, set Each to see every run in run order (the
	// Run of a JSONWriter made with this Config writes the JSON the
	// unsharded check writes), Progress to follow the tally, and, for a Go
	// design, Base.Custom: a campaign's JSON only names a Go design.
	Config CheckConfig
	shards []*Shard // by shard index
}

// Merge checks that the shards are every shard of one check, each once:
// the same campaign (design and base configuration, generator, runs,
// budget, seed, invariants, shrink budget) split into Shards parts, each
// index 0..Shards-1 present exactly once. Its errors name the files.
func Merge(shards ...*Shard) (*Merged, error) {
	if len(shards) == 0 {
		return nil, errors.New("merge needs the JSON of every shard of a check")
	}
	first := shards[0]
	n := first.Campaign.Shards
	byIndex := make([]*Shard, n)
	if err := sameSimulator(shards); err != nil {
		return nil, err
	}
	for _, s := range shards {
		c := s.Campaign
		if c.Shards != n {
			return nil, errors.Errorf("%s is shard %d of %d, %s shard %d of %d: not the shards of one check",
				s.Name, c.Shard, c.Shards, first.Name, first.Campaign.Shard, n)
		}
		if field, a, b := campaignDiff(first.Campaign, c); field != "" {
			return nil, errors.Errorf("%s and %s are not shards of one check: their campaigns differ in %s (%s vs %s)", first.Name, s.Name, field, a, b)
		}
		if s.ConfigHash != first.ConfigHash {
			return nil, errors.Errorf("%s and %s are not shards of one check: their config_hash differ (%s vs %s)", first.Name, s.Name, first.ConfigHash, s.ConfigHash)
		}
		if other := byIndex[c.Shard]; other != nil {
			return nil, errors.Errorf("%s and %s are both shard %d of %d", other.Name, s.Name, c.Shard, n)
		}
		byIndex[c.Shard] = s
	}
	var missing []string
	for i, s := range byIndex {
		if s == nil {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return nil, errors.Errorf("shard %s of %d missing: merge needs the JSON of every shard (got %d files)", strings.Join(missing, ", "), n, len(shards))
	}
	c := first.Campaign
	c.Shard, c.Shards = 0, 1
	cfg := c.Config()
	if err := cfg.Gen.Validate(); err != nil {
		return nil, errors.Wrapf(err, "%s", first.Name)
	}
	return &Merged{Config: cfg, shards: byIndex}, nil
}

// sameSimulator checks that every shard was written by this simulator:
// the same Fingerprint (the version and the VCS commit are not compared:
// a build without VCS information has the fingerprint all the same). A
// shard without a fingerprint is refused: nothing says which simulator
// made its runs.
func sameSimulator(shards []*Shard) error {
	this := ThisBuild()
	for _, s := range shards {
		if s.Build.Fingerprint == "" {
			return errors.Errorf("%s has no simulator fingerprint (written by locksim %s: a locksim before fingerprints, or the file was edited); this merge's simulator is %s: nothing says which simulator made its runs, so they cannot be merged; run the shards again with this locksim",
				s.Name, s.Build, this)
		}
	}
	first := shards[0]
	for _, s := range shards[1:] {
		if s.Build.Fingerprint != first.Build.Fingerprint {
			return errors.Errorf("%s and %s were written by different simulators: fingerprint %s (locksim %s) and fingerprint %s (locksim %s); shards of one check come from one simulator: run them again with one locksim",
				first.Name, s.Name, first.Build.Fingerprint, first.Build, s.Build.Fingerprint, s.Build)
		}
	}
	if first.Build.Fingerprint != this.Fingerprint {
		return errors.Errorf("%s was written by a simulator with fingerprint %s (locksim %s); this merge's simulator has fingerprint %s (locksim %s): another simulator may make other runs from the same seeds, so its runs cannot be merged or its failure shrunk again here; merge with the locksim that ran the shards, or run them again",
			first.Name, first.Build.Fingerprint, first.Build, this.Fingerprint, this)
	}
	return nil
}

// campaignDiff names the first field two shards' campaigns differ in
// (their shard index aside), with both values; "" when they agree.
func campaignDiff(a, b Campaign) (field, va, vb string) {
	a.Shard, b.Shard = 0, 0
	for _, f := range []struct {
		name string
		a, b any
	}{
		{"base", a.Base, b.Base}, {"gen", a.Gen, b.Gen}, {"runs", a.Runs, b.Runs}, {"for_ns", a.For, b.For},
		{"seed", a.Seed, b.Seed}, {"invariants", a.Invariants, b.Invariants}, {"shrink_runs", a.ShrinkRuns, b.ShrinkRuns},
	} {
		ja, _ := json.Marshal(f.a)
		jb, _ := json.Marshal(f.b)
		if !bytes.Equal(ja, jb) {
			return f.name, clip(string(ja)), clip(string(jb))
		}
	}
	return "", "", ""
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// Finish reads every shard's runs in run order (run i from shard i %
// Shards) and tallies them as the unsharded Check would: the same counts,
// the first failing run by index, the first run that stopped with an error
// (the tally ends there, as Check stops there), and the first failure
// shrunk again by the engine's Shrink and re-run with its history. The
// result is the unsharded check's, field for field, so its summaries are
// the same bytes. With a time budget each shard made the runs its budget
// reached: the tally is all of them, in run order. A shard with fewer runs
// than its share (and no budget), runs out of order, or a summary that
// counts other runs than the document holds is an error.
func (m *Merged) Finish() (*CheckResult, error) {
	c := m.Config
	if err := rerunnable(c.Base); err != nil {
		return nil, err
	}
	mine, bounded := c.mine()
	res := c.newResult(mine)
	n := len(m.shards)
	for i, ended := 0, 0; (!bounded || i < mine) && ended < n; i++ {
		s := m.shards[i%n]
		if s.ended {
			continue
		}
		o, ok, err := s.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			if c.For == 0 {
				return nil, errors.Errorf("%s ends after %d runs; shard %d of %d has %d: did the check finish?",
					s.Name, s.runs, s.Campaign.Shard, n, (mine-s.Campaign.Shard+n-1)/n)
			}
			ended++ // its budget ran out: the other shards may have more
			continue
		}
		if o.Index != i {
			return nil, errors.Errorf("%s: run %d where run %d was due: shard %d of %d makes the runs with index %% %d == %d, in order",
				s.Name, o.Index, i, s.Campaign.Shard, n, n, s.Campaign.Shard)
		}
		res.add(o)
		if c.Each != nil {
			c.Each(o)
		}
		if c.Progress != nil {
			c.Progress(res.Runs, mine)
		}
		if o.Error != "" {
			break // Check stops at the first run that stops with an error
		}
	}
	// Every document must be whole: read what the tally did not need.
	for _, s := range m.shards {
		for !s.ended {
			o, ok, err := s.next()
			if err != nil {
				return nil, err
			}
			if ok && res.FirstError == nil && c.For == 0 {
				return nil, errors.Errorf("%s has run %d, past its share of the %d runs", s.Name, o.Index, mine)
			}
		}
	}
	if res.FirstError != nil {
		return res, nil
	}
	if f := res.FirstFail; f != nil {
		res.Minimal = c.shrink(f)
	}
	return res, nil
}

// rerunnable says why a campaign's design cannot be run again from its
// JSON: a Go design is only named there.
func rerunnable(s model.Spec) error {
	if s.Custom != nil || s.Lua != nil {
		return nil
	}
	if _, err := model.LookupDesign(s.Design); err == nil {
		return nil
	}
	if !slices.Contains([]string{"", model.LuaDesignID}, s.Design) {
		return errors.Errorf("design %s is a Go design: the shards' JSON names it but cannot run it, so its tally and first failure cannot be rebuilt from the files; merge from Go with engine.Merge, setting Merged.Config.Base.Custom to the design", bounded.Q(s.Design))
	}
	return errors.Errorf("the campaign's design %s cannot be run: its JSON has no Lua scripts", bounded.Q(s.Design))
}
