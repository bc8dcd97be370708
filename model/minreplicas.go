package model

import (
	"time"

	"github.com/pkg/errors"
)

// DefaultMinReplicasMaxLag is Redis's default min-replicas-max-lag.
const DefaultMinReplicasMaxLag = 10 * time.Second

// validateMinReplicas checks min-replicas-to-write and min-replicas-max-lag
// of a topology with its defaults applied: the count fits the replicas of
// a group (more would refuse every write), and the lag is whole seconds,
// as Redis's configuration is, and goes with a count.
func (t Topology) validateMinReplicas() error {
	n, lag := t.MinReplicasToWrite, t.MinReplicasMaxLag
	switch {
	case n < 0:
		return errors.Errorf("min-replicas-to-write %d is negative", n)
	case n > t.Replicas:
		return errors.Errorf("min-replicas-to-write %d with %d replica(s) per group: every write would be refused (give 0 to %d)", n, t.Replicas, t.Replicas)
	case lag < 0:
		return errors.Errorf("min-replicas-max-lag %v is negative", lag)
	case lag != 0 && n == 0:
		return errors.Errorf("min-replicas-max-lag %v needs min-replicas-to-write", lag)
	case lag%time.Second != 0:
		return errors.Errorf("min-replicas-max-lag %v: Redis takes whole seconds", lag)
	}
	return nil
}
