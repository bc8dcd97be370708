package history

import "time"

// SectionEnd says what ended a critical section.
type SectionEnd string

// The ways a critical section ends.
const (
	EndReleased   SectionEnd = "released"       // the client invoked release
	EndDeadline   SectionEnd = "lease ran out"  // the client's own deadline passed on its monotonic clock
	EndCrashed    SectionEnd = "crashed"        // the process crashed
	EndTaskEnded  SectionEnd = "task ended"     // the task that acquired returned
	EndReacquired SectionEnd = "acquired again" // a new acquisition replaced it
	EndHistory    SectionEnd = ""               // still open when the history ended
)

// NoDeadline is Section.Deadline for a client that trusts its lease until
// it releases (no validity computed).
const NoDeadline time.Duration = -1

// Section is a client's critical section: from the acquired event with
// hold count 1 to the first of: release invoked (holds left 0), the
// client's crash, the end of the task that acquired, a new acquisition, the
// instant the lease the client believes it has runs out on its own
// monotonic clock, or the end of the history. The client believes it holds
// the lock exactly over [From, To). A belief that ran out and was revived by
// a successful renewal is a second section of the same hold (Revived).
// CONTRIBUTING.md, "The critical section", says the same in words.
type Section struct {
	Client, Task string
	// Acq is the acquired event that opened the section, or for a
	// Revived one the renew event that revived it; Start its
	// acquire-start, -1 if none.
	Acq, Start int
	From, To   time.Duration
	End        SectionEnd
	// EndPos is the event that ended it: the release, crash, task-end or
	// acquired event, or for EndDeadline the acquired or renew event that
	// set the deadline; -1 when the history ended first.
	EndPos int
	// Deadline is the true instant the believed lease runs out, after the
	// renewals that came back before it; NoDeadline when the client trusts
	// the lease until release.
	Deadline time.Duration
	// DeadlinePos is the acquired or renew event that set Deadline, -1.
	DeadlinePos int
	Key, Value  string
	Token       int64
	// Nodes are the distinct nodes that granted the lock (the acquired
	// event's Peer), in order; Grants every (node, key) it was granted.
	Nodes  []string
	Grants []Grant
	// Shared is a shared hold (a read lock): other shared holds may
	// overlap it. Wall: the client budgets its lease on its wall clock.
	Shared, Wall bool
	// Revived: the client's belief had run out, then its library reported
	// a successful extension (a renew event with N 1 and a lease left),
	// and the client held the lock again from that renewal (Acq).
	Revived bool

	// belief and beliefs are the acquired and successful renew events
	// with a lease, in order: the first (-1 for none), then the rest.
	belief   int
	beliefs  []int
	closeAt  time.Duration
	closePos int
	closeHow SectionEnd
}

// addBelief adds the acquired or renew event at pos to s's beliefs.
func (s *Section) addBelief(pos int) {
	if s.belief < 0 {
		s.belief = pos
		return
	}
	s.beliefs = append(s.beliefs, pos)
}

// Grant is one key a node granted a lease on.
type Grant struct{ Node, Key string }

// Acquisition is one acquired event: a section's start, or a nested hold.
type Acquisition struct {
	Pos    int
	Start  int // its acquire-start, -1 for a nested hold
	Client string
	Value  string
	Token  int64
	Count  int64 // the hold count it left
	Shared bool  // a shared hold (Acquired.Shared)
}

// AttemptEnd says how an acquisition attempt ended.
type AttemptEnd string

// The ways an attempt ends.
const (
	AttemptAcquired AttemptEnd = "acquired"
	AttemptFailed   AttemptEnd = "gave up"
	AttemptCrashed  AttemptEnd = "crashed"
	AttemptStopped  AttemptEnd = "task ended"
	AttemptOpen     AttemptEnd = "" // still trying when the history ended
)

// Attempt is one acquisition, from acquire-start to its outcome.
type Attempt struct {
	Client, Task string
	Start        int // acquire-start
	EndPos       int // the event that ended it, -1 if open
	End          AttemptEnd
	Key, Value   string
	// Arrived is the first command carrying this attempt's lock value that
	// a node executed (its exec event): when the request reached Redis,
	// the order a fair lock's queue follows; -1 if none did. Granted is
	// the command that first made a key on a node hold the attempt's value
	// (its exec event): where a node granted it, whether or not the client
	// learnt it (a lost reply, a pause past the lease); -1 if no node
	// did.
	Arrived, Granted int
}

// Left returns the position at which the attempt stopped waiting: where
// the node granted it (or its acquired event), where it gave up, crashed
// or its task ended; len(h) when it was still waiting at the end.
func (a Attempt) Left(historyLen int) int {
	switch {
	case a.Granted >= 0:
		return a.Granted
	case a.EndPos >= 0:
		return a.EndPos
	}
	return historyLen
}

// Down is a node's down interval. Restored holds, by key, the values the
// node came back with (its persistence kept them); a key absent from it
// came back empty. For an open interval (the node never restarted)
// Restored is nil.
type Down struct {
	Span
	Restored map[string]string
	// Ready is the last event of the restart (the node-up or its last
	// restored key): from the next event on the node serves what it kept.
	Ready int
}

// KeyChange is one change of a key's value on a node.
type KeyChange struct {
	Pos int
	// Was and Value are the values before and after; "" is absent.
	Was, Value string
	// Cause is what changed it: "expired", or the key event's note (a
	// command name, "node crashed", "restart", "replication", ...).
	Cause string
	// By is the client whose command the node was executing, "" if none;
	// Cmd that command's name; ExecPos the exec event, -1.
	By, Cmd string
	ExecPos int
}

// Promotion is a failover: the sentinel made Node the primary of Group in
// place of Old.
type Promotion struct {
	Pos              int
	Group, Node, Old string
}

// Partition is a network partition, from its start to its heal (or the
// end it announced, or the end of the history).
type Partition struct {
	Span
	// Sides is the partition's note: "A | B", "(one-way)" if only A->B.
	Sides string
	// Forever is set for a partition that was never to heal.
	Forever bool
}

// Read is a client's read of the resource.
type Read struct {
	Client  string
	Sent    int // the READ call
	Served  int // the res-read, -1 if it never reached the resource
	Refused bool
	N       int64 // the value served
}

// Write is a client's write of the resource, from the moment the client
// prepared it to the resource's answer.
type Write struct {
	Client string
	// Prepared is the client's write event, -1 if none; Sent the WRITE
	// call; Applied the res-write, -1 if it never reached the resource.
	Prepared, Sent, Applied int
	Accepted                bool
	Token                   int64
	Value                   string // the writer's lock value
	N                       int64  // the value written
}
