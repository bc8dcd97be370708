package history

import (
	"slices"
	"sync"

	"locksim/sim"
)

// The lock protocol's event kinds, recorded by the framework that drives a
// design (package model), by designs through model.Client, and by the
// fenced resource. Kinds lists them with their fields; sim.Kinds lists the
// simulator's own.
const (
	KindAcquireStart  sim.Kind = "acquire-start"
	KindAcquired      sim.Kind = "acquired"
	KindAcquireFailed sim.Kind = "acquire-failed"
	KindLeaseLost     sim.Kind = "lease-lost"
	KindRead          sim.Kind = "read"
	KindWrite         sim.Kind = "write"
	KindRelease       sim.Kind = "release"
	KindReleaseSend   sim.Kind = "release-send"
	KindAcquireSend   sim.Kind = "acquire-send"
	KindExtendSend    sim.Kind = "extend-send"
	KindReleased      sim.Kind = "released"
	KindRenew         sim.Kind = "renew"
	KindWatchdogStop  sim.Kind = "watchdog-stop"
	KindResRead       sim.Kind = "res-read"
	KindResWrite      sim.Kind = "res-write"
)

// ResourceName is the endpoint name of the fenced resource.
const ResourceName = "resource"

// Kinds is the table of the lock protocol's event kinds: who records each
// and what its fields mean. Index reads exactly these fields.
var Kinds = []sim.KindInfo{
	info(KindAcquireStart, sim.ByClient, "a client starts one acquisition (a fresh lock value; retries keep it)",
		"Key; Value: this acquisition's lock value; Dur: how long it may wait"),
	info(KindAcquired, sim.ByClient, "the client believes it holds the lock from now on: with N 1 its critical section starts",
		"Key; Value; Token: the fencing token, 0 for none; Peer: the grants, comma-separated: a node that granted Key, "+
			"or node/key for a node that granted another key (three keys of one node); "+
			"N: the hold count (above 1: a nested hold of a reentrant lock); Dur: the lease the client believes it has left "+
			"from this instant, on its monotonic clock (Local), 0 when it trusts the lease until it releases, "+
			"below 0 when the validity its lock reported was already spent by -Dur (a real client paused before its record); "+
			"Note: flags, space-separated (HoldFlags.Note): "+flagShared+" (a shared hold, a read lock: other shared holds may overlap it; "+
			"rw-exclusion judges it, mutual-exclusion does not), "+flagWall+" (Dur and the renewals' Dur run on the client's wall clock, "+
			"which its clock-jump events step)"),
	info(KindAcquireFailed, sim.ByClient, "an acquisition gave up", "Key; Value; Note: why"),
	info(KindLeaseLost, sim.ByClient, "the client found its lease gone or unknown and did not enter, or did not write", "Key; Value; Note: why"),
	info(KindRead, sim.ByClient, "the client read the resource", "N: the value read"),
	info(KindWrite, sim.ByClient, "the client prepared its write; the request leaves at its next call (a pause can hold it back)",
		"Key; Value: its lock value; Token; N: the new value"),
	info(KindRelease, sim.ByClient, "the client invokes release",
		"Key; Value; N: holds left (0 ends the critical section; above 0 gives back one nested hold)"),
	info(KindReleaseSend, sim.ByClient, "the client is about to send the command that gives the key back, after its own checks "+
		"(a real client: before each command of its Unlock that names the key)", "Key; Value; Peer, Args: a real client's command"),
	info(KindAcquireSend, sim.ByClient, "a real client's lock request left the process during an acquisition (a command carrying the lock value that the node will run; package realclient records it right after the command)",
		"Key; Value; Peer: the node; Args"),
	info(KindExtendSend, sim.ByClient, "a real client sent a command naming the lock key while it held the lock: its library extending the lease (package realclient records it right after the command)",
		"Task: watchdog; Key; Peer: the node; Args"),
	info(KindReleased, sim.ByClient, "release finished", "Key; Value; Note: its error, if any"),
	info(KindRenew, sim.ByClient, "a watchdog renewal came back",
		"Task; Key; Value; N: 1 extended, 0 not; Dur: the lease the client believes it has left, as for acquired "+
			"(with N 1 and Dur above 0 after the client's belief had run out, the belief is revived: it holds again; "+
			"0: the client did not believe the renewal); "+
			"Note: what happened (extended; returned 0; timeout, outcome unknown; refused)"),
	info(KindWatchdogStop, sim.ByClient, "the watchdog stopped", "Task; Key; Value; Note: why"),
	info(KindResRead, sim.ByService, "the resource served or refused a read",
		"Peer: the client; Token: the read's token (fenced reads), 0 for none; N: the value; Reply: the reply ([value, version] from a version resource), an error when refused; Note: why refused"),
	info(KindResWrite, sim.ByService, "the resource applied or rejected a write",
		"Peer: the client; Token; Value: the writer's lock value; N: the value written; "+
			"Reply: \"(integer) 1\" applied, \"(integer) 0\" rejected; Note: why rejected, or for an applied write to a version resource its version and the row's next"),
}

// All returns the simulator's and the protocol's kind tables together.
func All() []sim.KindInfo { return slices.Concat(sim.Kinds, Kinds) }

// byKind indexes both tables, built once: Info is called per event.
var byKind = sync.OnceValue(func() map[sim.Kind]sim.KindInfo {
	m := map[sim.Kind]sim.KindInfo{}
	for _, i := range All() {
		m[i.Kind] = i
	}
	return m
})

// Info returns the table entry of kind k.
func Info(k sim.Kind) (sim.KindInfo, bool) {
	i, ok := byKind()[k]
	return i, ok
}

func info(k sim.Kind, by sim.Recorders, meaning, fields string) sim.KindInfo {
	return sim.KindInfo{Kind: k, Recorder: by, Meaning: meaning, Fields: fields}
}
