// Package node runs Node.js lock modules as simulated client processes of
// realclient, deterministically: node.Setup("mylock.cjs") is a
// realclient.Setup, so Check, Run, exhaustive mode and the reports work on
// JavaScript locks as on Go ones.
//
//	realclient.Check(t, node.Setup("mylock.cjs"), realclient.WithName("mylock"),
//		realclient.WithFaults(sim.FaultPause, sim.FaultCrash))
//
// The module exports setup(env) returning {acquire, release} and
// optionally extend, until and token (docs/node.md). Each simulated
// process gets a Node.js process (18 or later) started as
// `node --require bridge.cjs host.cjs module`: the bridge replaces Date,
// the timers and timers/promises, AbortSignal.timeout, performance.now and
// timeOrigin, process.hrtime, net and tls connections, DNS, Math.random and
// the crypto random functions (ESM imports of the builtins included), and
// refuses native add-ons and worker threads. The Go side delivers one
// event at a time over a pipe (a call, bytes on a socket, a connect
// outcome, the clock reaching the process's next timer); the process runs
// until nothing is runnable and reports what it wrote, the calls that
// finished and its next timer; a real resource left active between steps
// stops the run. Socket readers and the timer sleeper are goroutines of
// the realclient process (Env.Dialer, Env.Sleep) behind one gate, so the
// governor orders every event and pauses, crashes, partitions and delays
// act as on a Go client. Node processes are kept warm across runs (a new
// incarnation resets the bridge and calls setup again). Limits (Limits)
// count callbacks, bytes and steps; an error that stops the process is a
// realclient.Stop, which ends the run with it.
//
// The JavaScript side lives in js/: the bridge, the pinned libraries
// (package.json, package-lock.json; npm ci from the Makefile), the
// wrappers of redlock 4.2.0, redlock 5.0.0-beta.2, @sesamecare-oss/redlock
// 1.4.0 and redis-semaphore 5.8.0 (js/libs), the plain-DEL lock and its
// compare-and-delete twin (js/locks), and the tests' probes (js/test).
// Pairs are published npm releases with a field bug and their fix. The
// command line is realclient/cmd/locksim-node (go run ./cmd/locksim-node
// --lock FILE), which runs TestNodeUserCheck.
package node
