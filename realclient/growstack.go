//go:build amd64 || arm64

package realclient

// growStack grows the calling goroutine's stack, in one copy while the
// stack is still shallow, to what a go-redis command through the
// simulated connection needs (about 16 KB), instead of the runtime
// doubling it two or three times deep inside the command, each time
// copying and adjusting every frame. gateHook calls it before each
// command: a library that runs each command on a goroutine of its own
// (redsync, one per node and call) started every command at the
// runtime's initial stack size, and the growth was a tenth of a run's
// CPU on five nodes. It changes no behaviour. Assembly on amd64 and
// arm64 (a frame nothing writes to); elsewhere growstack_other.go.
func growStack()
