package model

import (
	"slices"
	"strconv"
	"strings"

	"locksim/sim"
)

// LockKey is the lock's key on every node (a design with several keys on
// one node numbers them: lock1, lock2, ...).
const LockKey = "lock"

// LockKeys lists the keys that hold a spec's lock on a node: LockKey, or
// the numbered keys of a design whose Traits.Keys is more than one. A
// fault aimed at the lock (an eviction) names one of these.
func LockKeys(s Spec) []string { return lockKeys(s.traits(nil)) }

// lockKeys is LockKeys given the spec's traits (Resolved.LockKeys).
func lockKeys(t Traits) []string {
	n := t.Keys
	if n <= 1 {
		return []string{LockKey}
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = LockKey + strconv.Itoa(i+1)
	}
	return keys
}

// Traits are what a design needs from a deployment and what it does,
// declared once per design (the catalogue table, a Go design's Traits
// method, or inferred from the interfaces it implements). Every command and
// checker asks the traits, never the design's ID.
type Traits struct {
	// Masters is how many independent masters the design takes the lock on
	// by default; MinMasters the fewest it can run with (a majority needs 3
	// to tolerate one failure). 0 means 1.
	Masters, MinMasters int
	// Quorum: the lock is held with a majority of the masters (redlock,
	// a Lua design on several masters).
	Quorum bool
	// ToleratesMinority: the design claims to keep working while a
	// minority of its masters (masters - quorum of them) is down, slow or
	// cut off: invariant.Available judges the claim (redlock).
	ToleratesMinority bool
	// ToleratesFailover: on one primary with replicas under Sentinel, the
	// design claims to keep working while Sentinel replaces a primary that
	// crashed, stalled or was cut off from the sentinel (a failover within
	// its down-after): invariant.Available judges the claim (the designs
	// on one master that need no replica to write: not wait-replica,
	// whose WAIT needs the replica the failover takes).
	ToleratesFailover bool
	// Replicas is how many replicas per master the design needs (it WAITs
	// for them).
	Replicas int
	// Renews: a watchdog keeps the lease alive while the critical section
	// runs, so the section may outlast the TTL.
	Renews bool
	// Validity: the design computes how long its lease is valid on the
	// client's monotonic clock (redlock; any design with the deadline
	// option).
	Validity bool
	// Fenced: an acquisition returns a fencing token; the resource checks
	// tokens (strict) unless told otherwise.
	Fenced bool
	// Reentrant: the owner may take the lock again while holding it.
	Reentrant bool
	// Shared: the clients that read (Workload.Readers) take shared holds,
	// read locks that overlap one another; rw-exclusion is judged.
	Shared bool
	// Fair: waiters queue and the lock goes to them in the order their
	// requests reached Redis; FIFO is judged.
	Fair bool
	// AllMasters: the lock needs every master (Redisson's MultiLock), so
	// the default quorum is all of them rather than a majority.
	AllMasters bool
	// Keys is how many keys of one master the lock takes, needing a
	// majority of them (a "Redlock" over keys of one instance); 0
	// means one.
	Keys int
	// ReadsWall: the client's decisions depend on its wall clock, so a
	// step of a client's wall clock is a fault worth placing: the fair
	// lock sends it as the queue's "now" (System.currentTimeMillis()),
	// and the wall-clock option measures the wait and the lease on it.
	ReadsWall bool
	// OwnNodes: the design deploys its own nodes (a consensus cluster,
	// model.Deployer) named r1..rN for Masters of them, so it runs with no
	// Redis replicas and no Sentinel.
	OwnNodes bool
	// Needs are the commands and options the design sends that Redis 7.0
	// lacks, as sim.Version.Has names them ("SET IFEQ"); "A|B" needs
	// either. A run refuses a server release without them
	// (Spec.ValidateServer), and picks the first that has them when none
	// is given.
	Needs []string
}

// Serves reports whether release v has everything the traits need, and
// otherwise names the first need it lacks.
func (t Traits) Serves(v sim.Version) (bool, string) {
	for _, need := range t.Needs {
		if !slices.ContainsFunc(strings.Split(need, "|"), v.Has) {
			return false, need
		}
	}
	return true, ""
}

// Traited is a Design that declares its traits. Designs that do not are
// read from their interfaces: Renewer renews, Reentrant is reentrant.
type Traited interface {
	Traits() Traits
}

// TraitsOf returns a design's traits.
func TraitsOf(d Design) Traits {
	if t, ok := d.(Traited); ok {
		return t.Traits()
	}
	var t Traits
	_, t.Renews = d.(Renewer)
	_, t.Reentrant = d.(Reentrant)
	return t
}

// Traits returns the traits of the spec's design as this spec runs it:
// its declared traits with the options and scripts applied (the deadline
// option adds Validity, Extend adds Renews, a Lua design on several
// masters needs a quorum, a fencing rule that judges tokens means tokens).
func (s Spec) Traits() Traits { return s.traits(nil) }

// traits is Traits with the spec's design, when the caller has built it
// (Spec.design), read instead of looked up again.
func (s Spec) traits(d Design) Traits {
	var t Traits
	switch {
	case s.Custom != nil:
		t = TraitsOf(s.Custom)
	case s.Design == LuaDesignID && s.Lua != nil:
		t.Renews = s.Lua.Renew != ""
		t.Fenced = s.Fencing.Tokens()
		t.Quorum = s.lockMasters() > 1
		t.ToleratesMinority = t.Quorum
		t.ToleratesFailover = !t.Quorum
	case d != nil:
		t = TraitsOf(d)
	default:
		if d, err := LookupDesign(s.Design); err == nil {
			t = TraitsOf(d)
		}
	}
	if s.Options.Deadline {
		t.Validity = true
	}
	if s.Options.WallClock {
		t.ReadsWall = true
	}
	if s.Options.Extend {
		t.Renews = true
	}
	return t
}
