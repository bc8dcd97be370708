package sim

import (
	"bufio"
	"io"
	"sync"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
	"github.com/pkg/errors"
)

// instancePool recycles miniredis instances across runs and restarts:
// creating one registers its ~200 commands, about a quarter of a short
// run. poolInstances is off only in the test that compares a recycled
// instance with a fresh one.
var (
	instancePool  sync.Pool // of *miniredis.Miniredis
	poolInstances = true
)

// discardBufLen sizes the writer of the throwaway peer that flushes a
// recycled instance's scripts: its one reply is discarded, so 64 bytes do
// instead of bufio's 4 KB default (half the bytes a check run's nodes
// allocated per run went to two such buffers).
const discardBufLen = 64

// takeInstance returns an empty miniredis instance with a server and no
// listener, recycled when one is pooled.
//
// What a recycled instance could carry over, and why it does not:
//   - keys in any DB: FlushAll;
//   - scripts loaded through miniredis's own SCRIPT/EVAL (the node's
//     script engine owns those commands, so this is belt and braces):
//     SCRIPT FLUSH;
//   - the generator: reseeded before any draw (node.preHook);
//   - the clock and the TTL baseline: the caller sets the time, then
//     ClockTTL resets the baseline, as on a fresh instance;
//   - the server's connection and command counters: only INFO shows
//     them, and the node refuses INFO;
//   - the pre-hook: the caller sets its own.
//
// Per-connection state (selected DB, MULTI, WATCH, client name) lives in
// the peers, which belong to each run's script engine.
//
// Package realclient runs worlds inside testing/synctest bubbles, so an
// instance must not keep a channel, timer or WaitGroup one bubble made:
// a fresh instance's Dial makes a pipe and a goroutine that end at once,
// and its WaitGroup is never used again; the blocking commands and
// SUBSCRIBE, which would make them, never reach miniredis outside MULTI
// (script.Conn.Do). TestWorldInBubbleRecycled checks it.
func takeInstance() (*miniredis.Miniredis, error) {
	if poolInstances {
		if m, ok := instancePool.Get().(*miniredis.Miniredis); ok {
			m.FlushAll() // its pre-hook was cleared when it was put back
			m.Server().Dispatch(server.NewPeer(bufio.NewWriterSize(io.Discard, discardBufLen)), []string{"SCRIPT", "FLUSH"})
			return m, nil
		}
	}
	m := miniredis.NewMiniRedis()
	conn, err := m.Dial() // creates the server without a listener
	if err != nil {
		return nil, errors.Wrap(err, "start miniredis")
	}
	conn.Close()
	return m, nil
}

// putInstance hands an instance back for another node or run, unless it
// is left locked: a few miniredis handlers panic while holding its lock
// (withTx unlocks without defer; e.g. SSCAN with a negative cursor), the
// script engine recovers the panic, and the instance is unusable from
// then on. It is dropped instead of hanging whoever took it next.
func putInstance(m *miniredis.Miniredis) {
	if !poolInstances || m == nil {
		return
	}
	if !m.TryLock() {
		return
	}
	m.Unlock()
	m.Server().SetPreHook(nil) // drop the node it points into
	instancePool.Put(m)
}
