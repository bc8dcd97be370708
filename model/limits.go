package model

import (
	"strconv"
	"time"

	"github.com/pkg/errors"

	"locksim/sim"

	"locksim/internal/bounded"
)

// The limits of a spec: the one table every entry point shares. Spec.Config
// enforces them, so flags, scenario files, case files and the Go API all
// meet them there; the CLI and the scenario parser check the same
// constants earlier for a message that names the flag or the line. Each
// error names its limit ("(limits: masters)"). Scripts and node keyspaces
// have their own limits (package sim/script, sim.NodeLimits); docs/limits.md
// lists them all.
const (
	// MaxTTL bounds the lease TTL, a critical section's work, the think
	// time, the stagger and link latencies: leases of hours need days of
	// virtual time and millions of events.
	MaxTTL = time.Hour
	// MaxRunTime bounds a run's virtual time (limits time=, until), a
	// workload's duration, every design option's duration, and every
	// fault's start, length, extra delay and clock jump.
	MaxRunTime = 24 * time.Hour
	// MaxEvents bounds the events a run processes (limits events=; also
	// sim's default): a run, its checkers and its text report then stay
	// under about 400 MB, its HTML report under 1 GB (measured: `make long`'s
	// TestLimitsBoundMemory). It is minutes of virtual contention; the
	// catalogue's runs take a few thousand.
	MaxEvents = 250_000
	// MaxClients, MaxMasters and MaxReplicas bound the deployment:
	// 64 masters of 16 replicas each run in under 200 MB.
	MaxClients  = 64
	MaxMasters  = 64
	MaxReplicas = 16
	// MaxFaults bounds a schedule (checking one is quadratic in its length).
	MaxFaults = 10_000
	// MaxCycles bounds the lock cycles per client; MaxCount every other
	// count (drop counts, trigger #N).
	MaxCycles = 100_000
	MaxCount  = 1_000_000
)

// limitError names the limit a value exceeds.
func limitError(what string, v any, limit any, name string) error {
	return errors.Errorf("%s %v: at most %v (limits: %s)", what, v, limit, name)
}

// checkLimits enforces the table on a spec with its defaults applied.
func (s Spec) checkLimits() error {
	t := s.Topology
	switch {
	case len(s.Clients) > MaxClients:
		return limitError("clients", len(s.Clients), MaxClients, "clients")
	case t.Masters > MaxMasters:
		return limitError("masters", t.Masters, MaxMasters, "masters")
	case t.Replicas > MaxReplicas:
		return limitError("replicas", t.Replicas, MaxReplicas, "replicas")
	case t.MinReplicasToWrite > MaxReplicas:
		return limitError("min-replicas-to-write", t.MinReplicasToWrite, MaxReplicas, "replicas")
	case len(s.Faults) > MaxFaults:
		return limitError("faults", len(s.Faults), MaxFaults, "faults")
	case s.Workload.Readers > MaxClients:
		return limitError("readers", s.Workload.Readers, MaxClients, "clients")
	case s.Workload.Cycles > MaxCycles:
		return limitError("cycles", s.Workload.Cycles, MaxCycles, "cycles")
	case s.Limits.MaxEvents > MaxEvents:
		return limitError("limits events", s.Limits.MaxEvents, MaxEvents, "events")
	}
	type bound struct {
		name     string
		v, limit time.Duration
	}
	durs := []bound{
		{"ttl", s.Options.TTL, MaxTTL}, {"work", s.Workload.Work, MaxTTL}, {"think", s.Workload.Think, MaxTTL},
		{"stagger", s.Workload.Start, MaxTTL}, {"latency", s.Network.Default.Max, MaxTTL},
		{"duration", s.Workload.Duration, MaxRunTime}, {"until", s.Until, MaxRunTime}, {"limits time", s.Limits.MaxTime, MaxRunTime},
	}
	o := s.Options
	for _, r := range OptionTable { // the design options' own bounds
		if r.Kind == OptDuration {
			durs = append(durs, bound{r.Key, *r.Field(&o).(*time.Duration), r.Max})
		}
	}
	durs = append(durs, bound{"down-after", t.Sentinel.DownAfter, MaxRunTime}, bound{"discovery", t.Sentinel.DiscoveryDelay, MaxRunTime},
		bound{"min-replicas-max-lag", t.MinReplicasMaxLag, MaxRunTime})
	for _, d := range durs {
		if d.v > d.limit {
			return limitError(d.name, sim.FormatDuration(d.v), sim.FormatDuration(d.limit), limitName(d.limit))
		}
	}
	for _, l := range s.Network.Links {
		if l.Latency.Max > MaxTTL {
			return limitError("link latency", sim.FormatDuration(l.Latency.Max), sim.FormatDuration(MaxTTL), "ttl")
		}
	}
	for i, f := range s.Faults {
		what := "faults[" + strconv.Itoa(i) + "] (" + bounded.Clip(string(f.Kind)) + ")"
		for _, v := range []time.Duration{f.At, f.Dur, f.Extra, f.By, -f.By} {
			if v > MaxRunTime {
				return limitError(what+" time", sim.FormatDuration(v), sim.FormatDuration(MaxRunTime), "run-time")
			}
		}
		if f.Count > MaxCount {
			return limitError(what+" count", f.Count, MaxCount, "count")
		}
		if a := f.After; a != nil && (a.Nth > MaxCount || a.SinceNth > MaxCount) {
			return limitError(what+" trigger #N", max(a.Nth, a.SinceNth), MaxCount, "count")
		}
	}
	return nil
}

// limitName names the limit a duration bound is.
func limitName(d time.Duration) string {
	if d == MaxTTL {
		return "ttl"
	}
	return "run-time"
}
