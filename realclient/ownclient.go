package realclient

import "io"

// Turn makes a command of a Redis client of your own (an older go-redis,
// another client library, dialing through Env.Dialer) wait for its turn,
// as every command of Env.Clients and NewFailoverClient does through their
// go-redis hook: call it first in your client's command hook, before the
// client takes a connection from its pool, with the client's group ("m1")
// and the command's arguments as text (a pipeline's, all of them). Without
// it, goroutines woken together race for the client's pool under the Go
// scheduler, and the history is no longer a function of the seed. It also
// records the calling stack's modules (Result.Modules). Call it only from
// the process's own goroutines.
func (e Env) Turn(group string, args []string) {
	e.p.d.modules.note()
	e.p.turn(group, args)
}

// Own hands a client of your own, built in Setup, to the harness: it is
// closed when the process's program ends (a crash, the run's end), as
// Env.Clients are, so that its goroutines end with the run; poolSize is
// its connection pool's size (0 for 10), which tells the harness when the
// client may wait on a timer of a process-wide pool. Call it from Setup.
func (e Env) Own(c io.Closer, poolSize int) {
	e.p.notePoolSize(poolSize)
	e.p.closeAtExit(c)
}
