package model

import (
	"strings"

	"github.com/pkg/errors"

	"locksim/sim"
)

// ValidateSettings refuses settings that cannot apply to the spec's
// design: the one rule that a scenario file, `run --option`, check's
// flags and the Go API (engine.CheckConfig.Validate) all go through. It
// reads the spec as given, before WithDefaults: a zero field is "not set".
func (s Spec) ValidateSettings() error {
	t := s.traits(nil)
	o, w := s.Options, s.Workload
	name := s.Design
	if s.Custom != nil {
		name = s.Custom.Name()
	}
	replicas := s.Topology.Replicas
	if replicas == 0 {
		replicas = t.Replicas
	}
	for _, r := range OptionTable {
		if r.Word(&o) != "" {
			if why := r.Refusal(r.Key, s); why != "" {
				return errors.New(why)
			}
		}
	}
	switch {
	// Zero draws or defaults them; a negative count reached the run
	// generator, which indexed the masters and panicked (new-user trial).
	case s.Topology.Masters < 0:
		return errors.Errorf("masters %d is negative (0: the design's default)", s.Topology.Masters)
	case s.Topology.Replicas < 0:
		return errors.Errorf("replicas %d is negative (0: the design's default)", s.Topology.Replicas)
	case w.Readers != 0 && !t.Shared:
		return errors.Errorf("readers applies to designs that take read locks (read-write-lock); %s does not", name)
	case w.Readers > len(s.Clients) && len(s.Clients) > 0:
		return errors.Errorf("readers %d: more than the %d clients", w.Readers, len(s.Clients))
	case o.WaitReplicas != 0 && t.Replicas > 0 && o.WaitReplicas > replicas:
		return errors.Errorf("wait-replicas %d: more than the %d replica(s) per master, so WAIT could never be satisfied", o.WaitReplicas, replicas)
	}
	_, err := s.ServerVersion()
	return err
}

// ServerVersion returns the release the spec's nodes model: Topology.Server,
// or when that is "" the first modelled release with what the design needs.
// It refuses an unknown release and one the design cannot run on, saying
// which releases it needs.
func (s Spec) ServerVersion() (sim.Version, error) { return s.serverVersion(s.traits(nil)) }

// serverVersion is ServerVersion given the spec's traits (Resolve).
func (s Spec) serverVersion(t Traits) (sim.Version, error) {
	name := s.Design
	if s.Custom != nil {
		name = s.Custom.Name()
	}
	if s.Topology.Server == "" {
		for _, v := range sim.Versions {
			if ok, _ := t.Serves(v); ok {
				return v, nil
			}
		}
		return sim.Version{}, errors.Errorf("%s needs %s, which no modelled release has", name, strings.Join(t.Needs, " and "))
	}
	v, err := sim.ParseVersion(s.Topology.Server)
	if err != nil {
		return v, err
	}
	if ok, need := t.Serves(v); !ok {
		alts := strings.Split(need, "|")
		var in []string
		for _, a := range alts {
			in = append(in, a+" ("+sim.Needs(a)+")")
		}
		return v, errors.Errorf("%s sends %s, which %s does not have: it needs %s", name, strings.Join(alts, " or "), v, strings.Join(in, " or "))
	}
	return v, nil
}
