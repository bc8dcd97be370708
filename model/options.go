package model

import (
	"time"

	"github.com/pkg/errors"
)

// WithDefaults returns o with every zero field set to its default for a
// deployment of `masters` independent groups.
func (o Options) WithDefaults(masters int) Options {
	if o.TTL == 0 {
		o.TTL = time.Second
	}
	if o.Margin == 0 {
		o.Margin = o.TTL/50 + 2*time.Millisecond
	}
	if o.AcquireWait == 0 {
		o.AcquireWait = 3 * o.TTL
	}
	if o.RetryMin == 0 {
		o.RetryMin = 5 * time.Millisecond
	}
	if o.RetryMax == 0 {
		o.RetryMax = 100 * time.Millisecond
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = 200 * time.Millisecond
	}
	if o.NodeTimeout == 0 {
		o.NodeTimeout = 50 * time.Millisecond
	}
	if o.DriftFactor == 0 {
		o.DriftFactor = 0.01
	}
	if o.Quorum == 0 {
		o.Quorum = masters/2 + 1
	}
	if o.WaitReplicas == 0 {
		o.WaitReplicas = 1
	}
	if o.WaitTimeout == 0 {
		o.WaitTimeout = 100 * time.Millisecond
	}
	if o.RenewEvery == 0 {
		o.RenewEvery = o.TTL / 3
	}
	if o.QueueWait == 0 {
		o.QueueWait = o.AcquireWait
	}
	return o
}

// Validate reports the first impossible option, naming it.
func (o Options) Validate(masters int) error {
	switch {
	case o.TTL <= 0:
		return errors.Errorf("ttl %v must be positive", o.TTL)
	case o.TTL < time.Millisecond:
		return errors.Errorf("ttl %v is below Redis's 1ms resolution", o.TTL)
	case o.Margin < 0:
		return errors.Errorf("margin %v is negative", o.Margin)
	case o.AcquireWait < 0:
		return errors.Errorf("acquire-wait %v is negative", o.AcquireWait)
	case o.RetryMin <= 0 || o.RetryMax < o.RetryMin:
		return errors.Errorf("retry bounds %v..%v are invalid (want 0 < min <= max)", o.RetryMin, o.RetryMax)
	case o.CallTimeout <= 0 || o.NodeTimeout <= 0:
		return errors.Errorf("call and node timeouts must be positive")
	case o.DriftFactor < 0 || o.DriftFactor >= 1:
		return errors.Errorf("drift-factor %v out of range [0, 1)", o.DriftFactor)
	case o.Quorum < 1 || o.Quorum > masters:
		return errors.Errorf("quorum %d is impossible with %d masters", o.Quorum, masters)
	case o.WaitReplicas < 0:
		return errors.Errorf("wait-replicas %d is negative", o.WaitReplicas)
	case o.WaitAccept < 0 || o.WaitAccept > o.WaitReplicas:
		return errors.Errorf("wait-accept %d: give 1 to wait-replicas (%d)", o.WaitAccept, o.WaitReplicas)
	case o.WaitTimeout < 0:
		return errors.Errorf("wait-timeout %v is negative", o.WaitTimeout)
	case o.RenewEvery <= 0:
		return errors.Errorf("renew-every %v must be positive", o.RenewEvery)
	case o.QueueWait <= 0:
		return errors.Errorf("queue-wait %v must be positive", o.QueueWait)
	}
	for _, r := range OptionTable { // every duration option: never negative
		if d, ok := r.Field(&o).(*time.Duration); ok && *d < 0 {
			return errors.Errorf("%s %v is negative", r.Key, *d)
		}
	}
	return nil
}
