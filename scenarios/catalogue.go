package scenarios

import (
	"embed"
	"strings"
	"sync"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
)

// IDs are the catalogue's scenarios, in CATALOGUE.md order. Each has a
// file catalogue/<id>.txt embedded in the binary.
var IDs = []string{
	"gc-pause",
	"pause-during-acquire",
	"stale-release",
	"crash-before-expire",
	"failover-lost-write",
	"wait-wrong-replica",
	"cluster-reshard-failover",
	"minority-primary",
	"restart-empty",
	"clock-jump",
	"clock-drift",
	"delayed-write",
	"token-regression",
	"version-check",
	"fair-queue",
	"fair-crash",
	"busy-fair-queue",
	"read-write",
	"one-node-restart",
	"explicit-lease",
	"wall-clock-jump",
	"no-faults",
	"evict-token-counter",
	"memory-pressure-burst",
	// The consensus lease (package consensus) against the same faults.
	"consensus-majority",
	"consensus-pause",
	"consensus-delayed-write",
	"consensus-fast-leader",
	"consensus-partitioned-leader",
	// Failures from the field, each named after its source.
	"redsync-186",
	"redisson-3994",
	"redisson-5256",
	"redisson-5697",
	"redisson-2665",
	"jepsen-sentinel",
	"valkey-2651",
}

//go:embed catalogue/*.txt
var catalogueFS embed.FS

var (
	loadOnce  sync.Once
	catalogue []*Scenario
	loadErr   error
)

// load parses the embedded files once.
func load() ([]*Scenario, error) {
	loadOnce.Do(func() {
		for _, id := range IDs {
			s, err := parseEmbedded(id)
			if err != nil {
				loadErr = err
				return
			}
			catalogue = append(catalogue, s)
		}
	})
	return catalogue, loadErr
}

func parseEmbedded(id string) (*Scenario, error) {
	name := id + ".txt"
	data, err := catalogueFS.ReadFile("catalogue/" + name)
	if err != nil {
		return nil, errors.Wrapf(err, "catalogue scenario %s", id)
	}
	s, err := Parse(name, data)
	if err != nil {
		return nil, err
	}
	if s.Name != id {
		return nil, errors.Errorf("%s: name %s does not match the file name", name, bounded.Q(s.Name))
	}
	return s, nil
}

// All returns the catalogue's scenarios in catalogue order. Each call
// returns fresh copies: callers may change them. It panics if an embedded
// file does not parse, which the package's tests rule out.
func All() []*Scenario {
	cat, err := load()
	if err != nil {
		panic(err)
	}
	out := make([]*Scenario, len(cat))
	for i, s := range cat {
		out[i] = s.clone()
	}
	return out
}

// Lookup returns the catalogue scenario with the given ID, a fresh copy.
func Lookup(id string) (*Scenario, error) {
	cat, err := load()
	if err != nil {
		return nil, err
	}
	for _, s := range cat {
		if s.Name == id {
			return s.clone(), nil
		}
	}
	return nil, errors.Errorf("unknown scenario %s (known: %s)", bounded.Q(id), strings.Join(IDs, ", "))
}

// clone returns a deep copy of s.
func (s *Scenario) clone() *Scenario {
	c := *s
	c.Spec = cloneSpec(s.Spec)
	c.Designs = append([]string(nil), s.Designs...)
	if s.Designs == nil {
		c.Designs = nil
	}
	if s.Layout != nil {
		l := *s.Layout
		c.Layout = &l
	}
	c.Expect = append([]Expectation(nil), s.Expect...)
	return &c
}

// FormatHelp is the scenario file format, for people (format.txt; `locksim
// help scenarios` prints it with the event kinds a trigger may name).
//
//go:embed format.txt
var FormatHelp string
