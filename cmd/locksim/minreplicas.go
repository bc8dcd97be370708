package main

import (
	"time"

	"locksim/model"
	"locksim/sim"
)

// addMinReplicasFlags defines --min-replicas-to-write and
// --min-replicas-max-lag (Redis's settings on every node; check and run)
// and returns what puts them into a spec, refusing values out of their
// bounds. A count above the spec's replicas per group is the model's error.
func addMinReplicasFlags(fs *flags) func(*model.Spec) error {
	n := fs.Int("min-replicas-to-write", 0, "Redis's min-replicas-to-write on every node: a primary with fewer replicas acknowledged within --min-replicas-max-lag refuses writes (NOREPLICAS); 0 to the replicas per group")
	lag := fs.Duration("min-replicas-max-lag", 0, "Redis's min-replicas-max-lag, whole seconds (default 10s with --min-replicas-to-write)")
	return func(s *model.Spec) error {
		switch {
		case flagSet(fs, "min-replicas-to-write") && (*n < 0 || *n > model.MaxReplicas):
			return usagef("--min-replicas-to-write %d: give 0 to %d (limits: replicas)", *n, model.MaxReplicas)
		case flagSet(fs, "min-replicas-max-lag") && (*lag < time.Second || *lag%time.Second != 0 || *lag > model.MaxRunTime):
			return usagef("--min-replicas-max-lag %s: give whole seconds, 1s to %s (limits: run-time)", sim.FormatDuration(*lag), sim.FormatDuration(model.MaxRunTime))
		case flagSet(fs, "min-replicas-max-lag") && *n == 0 && s.Topology.MinReplicasToWrite == 0:
			return usagef("--min-replicas-max-lag goes with --min-replicas-to-write")
		}
		if flagSet(fs, "min-replicas-to-write") {
			s.Topology.MinReplicasToWrite = *n
		}
		if flagSet(fs, "min-replicas-max-lag") {
			s.Topology.MinReplicasMaxLag = *lag
		}
		return nil
	}
}
