package model

import (
	"slices"
	"strings"
	"time"

	"locksim/clock"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/network"
	"locksim/sim"
)

// Fencing selects how the protected resource checks tokens.
type Fencing string

// The resource variants of the catalogue.
const (
	// FenceStrict accepts a write only if token > last accepted token.
	FenceStrict Fencing = "strict"
	// FenceNonstrict accepts token >= last (Redisson's docs): the mutant
	// that token reuse breaks.
	FenceNonstrict Fencing = "nonstrict"
	// FenceOff writes unconditionally.
	FenceOff Fencing = "off"
	// FenceStrictReads is strict, and reads carry the token too: the
	// resource remembers the highest token it has seen on any operation
	// and rejects a read or write below it (the storage of Kleppmann's
	// fencing argument). Write-only fencing cannot stop a stale holder's
	// write that lands before the new holder writes, after the new holder
	// read: a lost update in a read-modify-write.
	FenceStrictReads Fencing = "strict-reads"
	// FenceVersion checks a row version instead of a token (optimistic
	// locking, `UPDATE ... WHERE id=? AND version=?`): a read returns the value and
	// the row's version, and a write applies only if it carries the
	// version the row has now (compare-and-set), which it then bumps. It
	// keeps a read-modify-write from overwriting a write it did not read,
	// but it is not a lock: a stale holder whose read saw the current
	// version writes as well as the rightful holder, and whichever writes
	// second is refused. Tokens are not judged.
	FenceVersion Fencing = "version"
	// FenceLockValue uses the lock's random value as a check-and-set
	// token, as antirez proposed in "Is Redlock safe?" (2016): a read
	// carries the reader's lock value and marks it as the resource's
	// holder, and a write applies only with the marked value. Random
	// values have no order, so the resource cannot tell a stale holder
	// from a new one: whoever read last owns the mark (Kleppmann's reply).
	// Tokens are not judged.
	FenceLockValue Fencing = "lock-value"
)

// Fencings lists the resource variants.
var Fencings = []Fencing{FenceStrict, FenceNonstrict, FenceOff, FenceStrictReads, FenceVersion, FenceLockValue}

// Tokens reports whether the variant judges fencing tokens (strict,
// nonstrict, strict-reads): only then does an acquisition need a token and
// the fencing invariant apply.
func (f Fencing) Tokens() bool {
	return f == FenceStrict || f == FenceNonstrict || f == FenceStrictReads
}

// FencingNames lists the variants for messages: "strict, nonstrict, off,
// strict-reads, version or lock-value".
func FencingNames() string {
	var b strings.Builder
	for i, f := range Fencings {
		switch {
		case i == len(Fencings)-1:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(string(f))
	}
	return b.String()
}

// Options tune a lock design. Zero values take the defaults noted.
type Options struct {
	// TTL is the lease, in ms on the Redis node's clock. Default 1s.
	TTL time.Duration
	// Deadline adds a client deadline to designs that do not
	// compute validity (all but redlock): the lease is budgeted on the
	// client's monotonic clock from before the acquire request, minus
	// Margin; the client does not enter or write when it has run out or
	// the outcome is unknown.
	Deadline bool
	// Margin is the safety margin of the deadline option. Default 2% of
	// TTL + 2ms, as redlock's drift allowance.
	Margin time.Duration
	// AcquireWait bounds one acquisition attempt in client monotonic time.
	// Default 3 * TTL.
	AcquireWait time.Duration
	// RetryMin and RetryMax bound the exponential backoff between tries,
	// each sleep drawn from [backoff/2, backoff]. Defaults 5ms and 100ms.
	RetryMin, RetryMax time.Duration
	// RetryJitter adds up to this much more, drawn per retry, to each
	// backoff sleep (option retry-jitter): a client that spreads its
	// retries further. Default 0, none.
	RetryJitter time.Duration `json:",omitempty"`
	// CallTimeout is the per-command timeout. Default 200ms; redlock uses
	// NodeTimeout.
	CallTimeout time.Duration
	// NodeTimeout is redlock's per-node timeout, much smaller than TTL.
	// Default 50ms.
	NodeTimeout time.Duration
	// DriftFactor is redlock's clock drift allowance. Default 0.01.
	DriftFactor float64
	// Quorum overrides the redlock majority (default N/2+1).
	Quorum int
	// WaitReplicas and WaitTimeout are wait-replica's WAIT arguments.
	// Defaults 1 and 100ms.
	WaitReplicas int
	WaitTimeout  time.Duration
	// WaitAccept is the fewest acknowledgements WAIT must report for
	// wait-replica to hold the lock, at most WaitReplicas; 0 means
	// WaitReplicas. Redisson asks WAIT for every replica and fails only when
	// none acknowledged (redisson#5256): WaitReplicas N, WaitAccept 1.
	WaitAccept int `json:",omitempty"`
	// IgnoreWait makes wait-replica send WAIT and hold the lock whatever
	// count it returns (option wait-check=false; an error or a timeout
	// still fails): Redisson before the fix of redisson#3994.
	IgnoreWait bool `json:",omitempty"`
	// LuaMasters is how many masters a Lua design runs on: 0 means all
	// (a majority quorum when more than one); 1 runs it on m1 only, as a
	// single-primary lock inside a multi-master scenario.
	LuaMasters int
	// Extend runs a watchdog for designs that extend only on request
	// (redlock's Extend), every RenewEvery.
	Extend bool
	// RenewEvery is the watchdog period. Default TTL/3.
	RenewEvery time.Duration
	// QueueWait is how long a fair lock keeps a waiter's place in its
	// queue past the waiter ahead of it (Redisson's threadWaitTime, which
	// tryLock(wait, ...) sets to its wait): a waiter that does not come
	// back in time loses its place. Default AcquireWait.
	QueueWait time.Duration
	// WallClock measures the acquire wait, and with Deadline the lease
	// budget, on the client's wall clock instead of its monotonic clock,
	// as Java code timing it with System.currentTimeMillis() does: a
	// step of the client's wall clock (NTP) moves both. A backward step
	// makes the client trust a lease that ran out. Designs that compute
	// their own validity (redlock) keep their own clock.
	WallClock bool
	// AcquireBound is a real client's availability claim
	// (realclient.WithAcquireBound): on three or more masters with a
	// quorum below their number, while at most masters-quorum of them
	// are down, slow or cut off and no other fault acts, a wanted lock
	// nobody holds is acquired within it (invariant.Available); on one
	// master with replicas under Sentinel, within it of the onset of a
	// fault Sentinel repairs by a failover (Spec.failoverClaim).
	// Catalogue designs derive their bound from their options and ignore
	// it; a real client without it is not judged on availability.
	AcquireBound time.Duration `json:",omitempty"`
}

// Workload is what every client does: Cycles times (or until Duration of
// its own monotonic time has passed), acquire, read the resource, work,
// write value+1, release.
type Workload struct {
	// Cycles per client; 0 means until Duration. Default 1 if both zero.
	Cycles int
	// Duration bounds the loop on the client's monotonic clock.
	Duration time.Duration
	// Work is how long the critical section works between read and write.
	// Default 50ms.
	Work time.Duration
	// Think is the pause between cycles. Default 0.
	Think time.Duration
	// Reentry makes reentrant-hash acquire the lock this many extra times
	// inside the critical section (nested acquire/release).
	Reentry int
	// Readers is how many clients, the last ones, only read under a shared
	// hold (a read lock) for a design that takes shared holds
	// (Traits.Shared); the others write. 0 means half the clients,
	// rounded down; more than the clients means all. Other designs ignore
	// it: every client writes.
	Readers int
	// Start staggers the clients: client i starts at i*Start. Default 0.
	Start time.Duration
}

// Topology is the Redis deployment.
type Topology struct {
	// Masters is the number of independent groups (redlock N). Default 1,
	// or 5 for redlock.
	Masters int
	// Replicas per group. Default 0, or 1 for wait-replica.
	Replicas int
	// Persistence of every node. Default none.
	Persistence sim.Persistence
	// Sentinel failover for groups with replicas.
	Sentinel sim.SentinelConfig
	// NodeClocks and ClientClocks give individual clocks by name.
	NodeClocks   map[string]clock.Config
	ClientClocks map[string]clock.Config
	// Priorities sets replica priorities by node name.
	Priorities map[string]int
	// MinReplicasToWrite is Redis's min-replicas-to-write on every node: a
	// primary with fewer replicas acknowledged within MinReplicasMaxLag
	// refuses writes (NOREPLICAS), which bounds what a minority-side
	// primary accepts (sim.NodeConfig). 0, the default, is off; at most
	// Replicas.
	MinReplicasToWrite int `json:",omitempty"`
	// MinReplicasMaxLag is Redis's min-replicas-max-lag, in whole seconds
	// as Redis takes it. Default 10s (Redis's) with MinReplicasToWrite;
	// only with it.
	MinReplicasMaxLag time.Duration `json:",omitempty"`
	// Server is the Redis or Valkey release the nodes model
	// (sim.ParseVersion: "redis-7.0", "redis-8.4", "valkey-9.0"). ""
	// takes the first modelled release that has what the design needs
	// (Traits.Needs): redis-7.0 for every design but set-ifeq, which
	// takes redis-8.4.
	Server string `json:",omitempty"`
	// Cluster makes the Masters groups the shards of one Redis Cluster
	// (sim.ClusterConfig): the design's calls to its master go to the
	// node serving the lock key's slot and follow MOVED and ASK. Default
	// Masters is then 3 (Redis Cluster's minimum). It takes designs that
	// lock on one master only (not redlock or multi-lock), no sentinel,
	// and no design that deploys its own nodes.
	Cluster bool `json:",omitempty"`
	// ClusterNodeTimeout is the cluster's cluster-node-timeout
	// (sim.ClusterConfig.NodeTimeout); 0 takes Redis's 15s. Only with
	// Cluster.
	ClusterNodeTimeout time.Duration `json:",omitempty"`
	// MaxMemory is Redis's maxmemory on every node, in bytes of the
	// documented formula (sim/evict.go); 0, the default, is no limit.
	MaxMemory int64 `json:",omitempty"`
	// Policy is every node's maxmemory-policy; "" is noeviction.
	Policy sim.EvictionPolicy `json:",omitempty"`
	// Fill is another application filling every primary's memory
	// (sim.FillConfig); off when Fill.Every is 0.
	Fill sim.FillConfig `json:",omitempty"`
}

// Spec is one run: a design under a topology, workload and fault schedule.
type Spec struct {
	// Design is a catalogue ID or a registered custom design.
	Design string
	// Custom, if set, is used instead of looking Design up. It is Go code,
	// so a saved case with a custom design replays only from Go.
	Custom Design `json:"-"`
	// Lua, if set, is a user's design as Lua scripts (Design "lua").
	Lua      *LuaScripts `json:",omitempty"`
	Options  Options
	Fencing  Fencing
	Workload Workload
	Topology Topology
	// Clients are the client names. Default A, B.
	Clients []string
	Network network.Config
	Faults  []sim.Fault
	// Until ends the run at this true time; 0 means when all clients are
	// done. Limits bound the run (defaults from sim).
	Until  time.Duration
	Limits sim.Limits
	// Interleave orders the events due at the same instant: "" or
	// "fixed" (the order they were scheduled in), "random", "pct:D" or
	// "pct:D/H" (sim.ParseInterleave). Saved with a case, so a case found
	// under an interleaving replays under it.
	Interleave string `json:",omitempty"`
}

// Result is a finished run: the history and what the checkers found.
type Result struct {
	Spec       Spec
	Seed       uint64
	History    sim.History
	Violations []invariant.Violation
	// Err is set when the run itself stopped early (a limit, a design
	// error): such a run has no verdicts, and Violations is empty.
	Err error
	// Counted, if set, are the only invariants the caller asked about
	// (CountOnly): the others' violations are still in Violations, for the
	// reader, but do not make the run fail.
	Counted []invariant.ID
	// FaultOutcomes says, for each of Spec.Faults in order, whether it
	// took effect (sim.World.FaultOutcomes); nil for a run without faults.
	// A driver that runs the world itself (package realclient) sets it
	// from the world after Finish.
	FaultOutcomes []sim.FaultOutcome
	// Modules names the library code a real client's run linked
	// ("github.com/go-redsync/redsync/v4 v4.18.1", or a package "(replaced
	// or local ...)"), as package realclient read it from the clients'
	// stacks; nil for a design's run.
	Modules []string
	// Interleave is what the same-instant scheduler saw (choice points,
	// competing lanes); zero under the fixed order.
	Interleave sim.InterleaveStats `json:"-"`
}

// Unfired returns the indexes (into Spec.Faults) of the faults that never
// took effect, in order.
func (r *Result) Unfired() []int { return unfired(r.FaultOutcomes) }

func unfired(os []sim.FaultOutcome) []int {
	var out []int
	for i, o := range os {
		if !o.Fired() {
			out = append(out, i)
		}
	}
	return out
}

// NoFaultFired reports whether the run was given faults and none of them
// took effect, with no counted violation: it judged the design without
// the faults it was asked about (a trigger that never happened), so its
// verdicts are no evidence about them. run and replay exit 2 for it, as
// check refuses a campaign whose drawn faults never took effect.
func (r *Result) NoFaultFired() bool {
	n := len(r.Spec.Faults)
	return r.Err == nil && n > 0 && len(r.Unfired()) == n && len(r.Failures()) == 0
}

// Vacuous reports whether the run judged nothing: it finished, found no
// counted violation, and no client ever acquired the lock (a run cut short before
// the first grant, a lock that nobody reached).
func (r *Result) Vacuous() bool {
	if r.Err != nil || len(r.Failures()) > 0 {
		return false
	}
	for i := range r.History {
		if r.History[i].Kind == history.KindAcquired {
			return false
		}
	}
	return true
}

// Undecided reports whether the run judged every counted invariant it
// judges at all without a verdict (liveness with a fault that never
// healed, or a history that ended before the bound) and broke none: a
// "held" from it would be no evidence.
func (r *Result) Undecided() bool {
	if r.Err != nil || len(r.Failures()) > 0 || len(r.History) == 0 {
		return false
	}
	cfg := r.Spec.CheckConfig()
	counted := r.Counted
	if len(counted) == 0 {
		counted = invariant.All
	}
	decided := false
	for _, id := range counted {
		if judged, _ := cfg.Judged(id); judged && id != invariant.Liveness {
			decided = true
		}
	}
	return !decided && len(UndecidedOf(history.New(r.History), cfg, r.Violations)) > 0
}

// CountOnly makes only the listed invariants count as a failure (none
// listed: all count). Violations of the others stay, marked as not counted
// in reports.
func (r *Result) CountOnly(ids []invariant.ID) {
	if len(ids) > 0 {
		r.Counted = ids
	}
}

// IsCounted reports whether violations of id make the run fail.
func (r *Result) IsCounted(id invariant.ID) bool {
	return len(r.Counted) == 0 || slices.Contains(r.Counted, id)
}

// Failures returns the violations that count (see CountOnly).
func (r *Result) Failures() []invariant.Violation { return invariant.Only(r.Violations, r.Counted) }

// FencingAbout says what each resource variant accepts, for listings.
var FencingAbout = map[Fencing]string{
	FenceStrict:      "a write only with a token above the last accepted one",
	FenceNonstrict:   "a token at or above the last (Redisson's docs): token reuse breaks it",
	FenceOff:         "every write (no fencing)",
	FenceStrictReads: "strict, and reads carry the token too: a stale read-modify-write is refused",
	FenceVersion:     "a write only with the row version its writer read (compare-and-set, optimistic locking): no token, not a lock",
	FenceLockValue:   "a write only with the lock value the last read marked (antirez's check-and-set on the random value): no order, the last reader wins",
}
