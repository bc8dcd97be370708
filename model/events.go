package model

// Event kinds recorded by the designs, the workload and the resource, on
// top of the simulator's own kinds (sim.Kind*). Checkers and reports read
// only these and the sim kinds.
const (
	// KindAcquireStart: a client starts acquiring (Key, Value: the random
	// value of this acquisition). Dur is its wait bound.
	KindAcquireStart = "acquire-start"
	// KindAcquired: the client believes it holds the lock from now on; its
	// critical section starts. Key, Value (this acquisition's random
	// value), Token (fencing token, 0 if none), Dur (the lease the client
	// believes it has left, on its monotonic clock, from Local; 0 when the
	// design trusts the lease until release), Peer (the
	// node(s) that granted it, comma-separated), N (reentrant hold count).
	KindAcquired = "acquired"
	// KindAcquireFailed: acquisition gave up (Note: why).
	KindAcquireFailed = "acquire-failed"
	// KindLeaseLost: the client's deadline check found the lease expired
	// or unknown, and it did not enter / did not write (Note: why).
	KindLeaseLost = "lease-lost"
	// KindRead: the client read the resource (N: value).
	KindRead = "read"
	// KindWrite: the client sends its write (N: new value, Token, Value).
	KindWrite = "write"
	// KindRelease: the client invokes release; its critical section ends
	// here (Key, Value, N: hold count left for reentrant locks).
	KindRelease = "release"
	// KindReleaseSend: the client is about to send the command that gives
	// the key back, after its own checks (Client.Releasing).
	KindReleaseSend = "release-send"
	// KindReleased: release finished (Reply: what the node said).
	KindReleased = "released"
	// KindRenew: a watchdog renewal returned (N: 1 renewed, 0 not; Value;
	// Dur: the lease the client believes it has left, as for acquired).
	KindRenew = "renew"
	// KindWatchdogStop: the watchdog stopped (Note: why).
	KindWatchdogStop = "watchdog-stop"

	// KindResRead: the resource served a read (Peer: client, N: value).
	KindResRead = "res-read"
	// KindResWrite: the resource applied or rejected a write (Peer:
	// client, Token, Value: the writer's lock value, N: rows affected 1 or
	// 0, Note: the new state or why it was rejected).
	KindResWrite = "res-write"
)
