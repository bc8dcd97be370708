package risk

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/pkg/errors"
)

// decodeFields decodes a JSON object field by field into the targets by
// name, so that every error names the field it is in ("pauses: size: ...")
// whatever type failed, and an unknown field is refused by name.
func decodeFields(b []byte, targets map[string]any) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return errors.New("expected an object {...}")
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t, ok := targets[k]
		if !ok {
			known := make([]string, 0, len(targets))
			for n := range targets {
				known = append(known, n)
			}
			sort.Strings(known)
			return errors.Errorf("%s: no such field (known: %s)", k, strings.Join(known, ", "))
		}
		if err := strictUnmarshal(raw[k], t); err != nil {
			return errors.Wrap(err, k)
		}
	}
	return nil
}

// UnmarshalJSON reads a profile, naming the field of any error.
func (p *Profile) UnmarshalJSON(b []byte) error {
	return decodeFields(b, map[string]any{
		"name": &p.Name, "about": &p.About, "horizon": &p.Horizon, "workload": &p.Workload,
		"pauses": &p.Pauses, "starvations": &p.Starvations, "partitions": &p.Partitions, "node_crashes": &p.NodeCrashes,
		"clock_jumps": &p.ClockJumps, "clock_drift_ppm": &p.ClockDriftPPM, "network": &p.Network,
		"sources": &p.Sources,
	})
}

// UnmarshalJSON reads a workload, naming the field of any error.
func (w *Workload) UnmarshalJSON(b []byte) error {
	return decodeFields(b, map[string]any{"clients": &w.Clients, "acquisitions_per_second": &w.AcquisitionsPerSecond, "section": &w.Section})
}

// UnmarshalJSON reads arrivals, naming the field of any error.
func (a *Arrivals) UnmarshalJSON(b []byte) error {
	return decodeFields(b, map[string]any{"per_hour": &a.PerHour, "size": &a.Size})
}

// UnmarshalJSON reads starvations, naming the field of any error.
func (s *Starvations) UnmarshalJSON(b []byte) error {
	return decodeFields(b, map[string]any{"per_hour": &s.PerHour, "size": &s.Size, "task": &s.Task})
}

// UnmarshalJSON reads clock jumps, naming the field of any error.
func (j *Jumps) UnmarshalJSON(b []byte) error {
	return decodeFields(b, map[string]any{"per_hour": &j.PerHour, "size": &j.Size, "backward_fraction": &j.BackwardFraction})
}

// UnmarshalJSON reads the network, naming the field of any error.
func (n *Network) UnmarshalJSON(b []byte) error {
	return decodeFields(b, map[string]any{"latency_min": &n.LatencyMin, "latency_max": &n.LatencyMax, "drops_per_link_hour": &n.DropsPerLinkHour})
}

// strictUnmarshal decodes one JSON value, refusing unknown fields and
// trailing data.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return errors.Errorf("a JSON %s where a %s belongs", te.Value, te.Type)
		}
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}
