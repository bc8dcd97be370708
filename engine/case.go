package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"slices"
	"strings"

	"github.com/pkg/errors"

	"locksim/internal/atomicfile"
	"locksim/internal/bounded"

	"locksim/model"
	"locksim/model/invariant"
)

// CaseVersion is the version of the case file format.
const CaseVersion = 1

// maxCaseBytes bounds a case file: one with model.MaxFaults faults and
// long Lua scripts is well under it.
const maxCaseBytes = 16 << 20

// CaseLimit bounds a case file (limits: case-bytes): LoadCase reads at
// most that much of whatever the path names, a file, a pipe or a device.
var CaseLimit = bounded.Limit{What: "a case file", Bytes: maxCaseBytes, Name: "case-bytes"}

// Case is one run saved to a file: everything needed to replay it byte for
// byte (`locksim replay FILE`, or Replay from Go). A case with a custom Go
// design cannot be replayed from the command line: it records the design's
// name and replays with the same Design value from Go.
type Case struct {
	Version int `json:"version"`
	// Locksim is the locksim that saved the case: its Fingerprint says
	// which simulator made the history (Mismatch names it). Cases saved
	// before fingerprints have none.
	Locksim *Build `json:"locksim,omitempty"`
	// Scenario names the catalogue scenario the run came from, if any (for
	// the report's title and teaching text on replay).
	Scenario string     `json:"scenario,omitempty"`
	Spec     model.Spec `json:"spec"`
	Seed     uint64     `json:"seed"`
	// Broken lists the invariants the run broke when it was saved.
	Broken []invariant.ID `json:"broken,omitempty"`
	// Unfired lists, for the reader, the faults of the spec that never
	// took effect in the saved run, each with why (sim.FaultOutcome):
	// they tested nothing. Replay ignores it.
	Unfired []string `json:"unfired,omitempty"`
	// Invariants, if set, are the only invariants the run was asked about
	// (--invariants, WithInvariants); Replay judges the replay by them too.
	Invariants []invariant.ID `json:"invariants,omitempty"`
	// HistoryHash is the hash of the history when it was saved; a replay
	// must reproduce it.
	HistoryHash string `json:"history_hash"`
	// InputHash is the hash of the spec and seed when it was saved: a
	// replay whose history differs can tell an edited case (InputHash no
	// longer matches) from a changed simulator.
	InputHash string `json:"input_hash,omitempty"`
	// Modules names, for the reader, the library modules and versions a
	// real client's run linked (model.Result.Modules). Replay ignores it:
	// a replay links what its own build links.
	Modules []string `json:"modules,omitempty"`
}

// inputHash hashes what a run is a function of: the spec and the seed.
func (c Case) inputHash() string {
	b, err := encode(struct {
		Spec model.Spec
		Seed uint64
	}{c.Spec, c.Seed}, "")
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Mismatch explains a replay whose history hash is not the saved one
// (hash, the replay's): the case was edited since it was saved, or the
// simulator changed. It is "" when the hashes agree.
func (c Case) Mismatch(hash string) string {
	switch {
	case c.HistoryHash == "" || hash == c.HistoryHash:
		return ""
	case c.InputHash != "" && c.InputHash != c.inputHash():
		return "the case's history hash does not match its contents: its spec or seed was edited after it was saved, so this is a different run"
	case c.InputHash != "" && c.Locksim != nil && c.Locksim.Fingerprint == Fingerprint:
		return "the history differs from the one saved although the case is unchanged and was saved by this simulator (fingerprint " + Fingerprint +
			"): the simulation was not deterministic, or code outside the simulator (a Go design, a real client's library) changed"
	case c.InputHash != "" && c.Locksim != nil && c.Locksim.Fingerprint != "":
		return "the history differs from the one saved although the case is unchanged: the simulator changed since it was saved (saved by fingerprint " +
			c.Locksim.Fingerprint + ", locksim " + c.Locksim.Version + "; this is fingerprint " + Fingerprint + ")"
	case c.InputHash != "":
		return "the history differs from the one saved although the case is unchanged: the simulator changed since it was saved"
	}
	return "the history differs from the one saved: the case was edited, or the simulator changed, since it was saved"
}

// NewCase records a finished run.
func NewCase(r *model.Result) Case {
	s := r.Spec
	if s.Custom != nil {
		s.Design = s.Custom.Name()
	}
	b := ThisBuild()
	c := Case{Version: CaseVersion, Locksim: &b, Spec: s, Seed: r.Seed, Broken: invariant.Broken(r.Failures()), HistoryHash: r.History.Hash()}
	c.InputHash = c.inputHash()
	c.Modules = slices.Clone(r.Modules)
	for _, i := range r.Unfired() {
		if i < len(s.Faults) {
			c.Unfired = append(c.Unfired, s.Faults[i].String()+": "+r.FaultOutcomes[i].String())
		}
	}
	// Saved only when they are not all of them (a list may repeat names).
	if asked := slices.Compact(slices.Sorted(slices.Values(r.Counted))); len(asked) > 0 && len(asked) < len(invariant.All) {
		c.Invariants = asked
	}
	return c
}

// Save writes the case as indented JSON, creating directories. Durations
// are written as Go writes them ("1s", "1.5ms"); LoadCase reads those and
// nanosecond numbers alike. The write is atomic (a temporary file in the
// same directory, then a rename): a save that fails or is interrupted
// leaves the previous file as it was.
func (c Case) Save(path string) error {
	b, err := marshalReadable(c)
	if err != nil {
		return errors.Wrap(err, "encoding case")
	}
	return errors.Wrap(atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	}), "saving case")
}

// LoadCase reads a case file, through CaseLimit.
func LoadCase(path string) (Case, error) {
	b, err := CaseLimit.ReadFile(path)
	var le *bounded.Error
	if errors.As(err, &le) {
		return Case{}, err
	}
	if err != nil {
		return Case{}, errors.Wrap(err, "reading case")
	}
	return ParseCase(path, b)
}

// ParseCase reads a case file's contents; path names it in errors. A case
// that parses has a version this locksim reads and known invariants; its
// spec meets the limits when it runs (model.Spec.Config).
func ParseCase(path string, b []byte) (Case, error) {
	if len(b) > maxCaseBytes {
		return Case{}, &bounded.Error{Path: path, Limit: CaseLimit, Size: int64(len(b))}
	}
	var c Case
	if err := unmarshalReadable(b, &c); err != nil {
		return Case{}, errors.Wrapf(err, "%s is not a case file", path)
	}
	if c.Version != CaseVersion {
		return Case{}, errors.Errorf("%s has case version %d; this locksim reads version %d", path, c.Version, CaseVersion)
	}
	if len(c.Invariants) > 0 {
		ids, err := invariant.Parse(invariant.Names(c.Invariants))
		if err != nil {
			return Case{}, errors.Wrapf(err, "%s", path)
		}
		c.Invariants = ids
	}
	return c, nil
}

// RealClientPrefix starts the design name of a real client's case
// (realclient.DesignPrefix): its history came from a real lock library,
// so only realclient.Run replays it.
const RealClientPrefix = model.RealClientPrefix

// Replay runs the case again, judged by the case's Invariants when it has
// them. custom, if non-nil, supplies a Go design (the file only names it). The result's history hash equals HistoryHash
// when the simulation is unchanged.
func (c Case) Replay(custom model.Design) (*model.Result, error) {
	s := c.Spec
	if custom != nil {
		if custom.Name() != s.Design {
			return nil, errors.Errorf("the case was saved for design %s; Replay got design %s", bounded.Q(s.Design), bounded.Q(custom.Name()))
		}
		s.Custom = custom
	} else if _, err := model.LookupDesign(s.Design); err != nil && s.Design != model.LuaDesignID {
		if strings.HasPrefix(s.Design, RealClientPrefix) {
			return nil, errors.Errorf("case design %s is a real client's (package locksim/realclient): replay it from a Go test with realclient.Run(t, c, yourSetup), which runs your lock library again", bounded.Q(s.Design))
		}
		return nil, errors.Errorf("case design %s is not a catalogue design; if it is your Go design, replay the case from Go with Case.Replay(yourDesign)", bounded.Q(s.Design))
	}
	r, err := model.Run(s, c.Seed)
	if err == nil && len(c.Invariants) > 0 {
		r.CountOnly(c.Invariants)
	}
	return r, err
}
