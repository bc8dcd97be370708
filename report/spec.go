package report

import (
	"strings"
	"time"

	"locksim/model"
	"locksim/sim"
)

// specSummary is the part of a Spec a reader needs: what ran under which
// faults. Faults are rendered with sim.Fault.String.
type specSummary struct {
	Design      string        `json:"design"`
	Fencing     string        `json:"fencing,omitempty"`
	TTL         time.Duration `json:"ttl_ns"`
	Deadline    bool          `json:"deadline,omitempty"`
	Clients     []string      `json:"clients"`
	Masters     int           `json:"masters,omitempty"`
	Replicas    int           `json:"replicas,omitempty"`
	Persistence string        `json:"persistence,omitempty"`
	Faults      []string      `json:"faults"`
	// Unfired lists the faults that never took effect, each with why
	// ("pause A for 1s after A write #2: never fired: its trigger never
	// happened"); such a fault tested nothing.
	Unfired []string `json:"unfired,omitempty"`

	// MinReplicasToWrite and MinReplicasMaxLag are Redis's settings, when set.
	MinReplicasToWrite int           `json:"min_replicas_to_write,omitempty"`
	MinReplicasMaxLag  time.Duration `json:"min_replicas_max_lag_ns,omitempty"`

	// Server is the Redis or Valkey release the nodes modelled, when it
	// is not redis-7.0 (model.Spec.ServerVersion).
	Server string `json:"server,omitempty"`

	// Settings are the design options that differ from its defaults, as a
	// scenario's option line writes them ("queue-wait=500ms").
	Settings []string `json:"settings,omitempty"`
	// Readers are the clients that only read, under shared holds.
	Readers []string `json:"readers,omitempty"`
}

// summarize builds the spec summary; clients default to those found in
// the history.
func summarize(r *model.Result, t *timeline) specSummary {
	s := r.Spec
	out := specSummary{
		Design:      s.Design,
		Fencing:     string(s.Fencing),
		TTL:         s.Options.TTL,
		Deadline:    s.Options.Deadline,
		Clients:     append([]string{}, s.Clients...),
		Masters:     s.Topology.Masters,
		Replicas:    s.Topology.Replicas,
		Persistence: string(s.Topology.Persistence),
		Faults:      []string{},
	}
	out.MinReplicasToWrite, out.MinReplicasMaxLag = s.Topology.MinReplicasToWrite, s.Topology.MinReplicasMaxLag
	rs := s.Resolution() // a run's spec is resolved already: this reads its design's traits once
	if v, err := rs.ServerVersion(); err == nil && v != sim.Redis70 {
		out.Server = v.String()
	}
	for _, w := range rs.Settings() {
		if !strings.HasPrefix(w, "deadline=") { // the design line says it
			out.Settings = append(out.Settings, w)
		}
	}
	if n := s.Workload.Readers; n > 0 && rs.Traits.Shared {
		out.Readers = append(out.Readers, s.Clients[max(len(s.Clients)-n, 0):]...)
	}
	if out.Design == "" && s.Custom != nil {
		out.Design = s.Custom.Name()
	}
	if len(out.Clients) == 0 {
		out.Clients = append(out.Clients, t.clients...)
	}
	for _, f := range s.Faults {
		out.Faults = append(out.Faults, f.String())
	}
	for _, i := range r.Unfired() {
		if i < len(s.Faults) {
			out.Unfired = append(out.Unfired, s.Faults[i].String()+": "+r.FaultOutcomes[i].String())
		}
	}
	return out
}
