package script

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"math/rand/v2"
	"strconv"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
	"github.com/pkg/errors"
	lua "github.com/yuin/gopher-lua"

	"locksim/sim/resp"
)

// DefaultMaxInstructions is the instruction budget of one script run when
// Options.MaxInstructions is 0.
const DefaultMaxInstructions = 10_000_000

// DefaultMaxMemory is the memory budget of one script run, in bytes, when
// Options.MaxMemory is 0: 64 MiB.
const DefaultMaxMemory = 64 << 20

// maxEngineScriptBytes bounds, in source bytes, the scripts a node keeps
// for EVALSHA (SCRIPT LOAD beyond it is refused) and its compile cache.
const maxEngineScriptBytes = 4 << 20

// maxCompiled bounds the compile cache (scripts by source). Scripts loaded
// with SCRIPT LOAD or a successful EVAL stay reachable by SHA regardless.
const maxCompiled = 4096

// Options configure an Engine. The zero value is valid.
type Options struct {
	// MaxInstructions bounds one script run, in Lua VM instructions (a
	// deterministic budget, not wall time), shared by the script and its
	// coroutines. 0 means DefaultMaxInstructions.
	MaxInstructions int64
	// MaxMemory bounds one script run, in bytes allocated by the script
	// and its coroutines: strings, tables, closures, coroutines, replies
	// of redis.call, cjson results. The count only grows during a run
	// (garbage is not given back), so building a string by appending to
	// it costs the sum of all its prefixes. 0 means DefaultMaxMemory.
	MaxMemory int64
	// Slow makes the engine delegate every command, scripts included, to
	// miniredis's own dispatch (its EVAL builds a fresh interpreter per call
	// and has no instruction budget). For differential tests and as a
	// fallback.
	Slow bool
	// Seed seeds the engine's math.random generator (a math/rand/v2 PCG
	// with seeds (Seed, 0)). The generator is shared by all scripts of the
	// engine and is not reseeded per run, as in Redis 7; math.randomseed(n)
	// reseeds it with (n, 0).
	Seed uint64
	// RunsAlone, if set, reports whether a command is one the caller's
	// pre-hook runs itself rather than miniredis (a command or option of a
	// newer server release, package sim's versioned.go). Queued in MULTI,
	// such a command is validated by the hook (Engine.Validating), and at
	// EXEC it runs on its own between miniredis's MULTI/EXEC segments, as
	// a script does, so that it runs after the commands queued before it.
	RunsAlone func(args []string) bool
}

// Engine owns the scripts and the reused Lua state of ONE simulated Redis
// node. It is not safe for concurrent use: one goroutine drives a node.
type Engine struct {
	srv             *server.Server
	slow            bool
	runsAlone       func(args []string) bool
	maxInstructions int64
	maxMemory       int64 // bytes per script run

	// All peers write into buf through w; every dispatch flushes, parses
	// and resets it before the next one.
	buf bytes.Buffer
	w   *bufio.Writer

	// valPeer is kept inside MULTI with an empty queue; it validates
	// commands queued on a Conn as miniredis would at queue time.
	valPeer *server.Peer
	// callPeer and pcallPeer run redis.call and redis.pcall: miniredis
	// gives the two functions separate nested contexts per run.
	callPeer, pcallPeer scriptPeer

	bySource      map[string]*script // compile cache
	bySourceBytes int                // source bytes in bySource
	loaded        map[string]*script // by SHA: what EVALSHA and SCRIPT EXISTS see
	loadedBytes   int                // source bytes in loaded, at most maxEngineScriptBytes

	lua *luaState // nil until the first script; dropped after a Go panic
	run runState  // the script running now
	pcg *rand.PCG
	rng *rand.Rand

	converted resp.Reply // set by convertProtected
	nameBuf   [maxCmdLen]byte
}

// scriptPeer is a peer used by scripts with the DB it has selected.
type scriptPeer struct {
	peer *server.Peer
	db   int
	run  uint64 // run id that last used the peer
}

// runState describes the current script run.
type runState struct {
	id       uint64 // increases per run, never 0 during a run
	sha      string
	readOnly bool
	db       int // the caller's selected DB
}

// script is one script source with its compiled main chunk. The chunk
// function has no upvalues and gets its environment per run, so it is
// reused across runs (and across Lua states).
type script struct {
	src string
	sha string
	fn  *lua.LFunction // nil until compiled
}

// peerBufLen sizes the writer every peer of an engine shares: every
// dispatch flushes it into buf, and a reply longer than it goes to buf
// directly, so its size changes no reply; a lock command's replies are
// tens of bytes, and bufio's 4 KB default was an eighth of the bytes a
// check run allocated.
const peerBufLen = 256

// NewEngine wraps the miniredis instance of one node. If m has no server
// yet, NewEngine creates one without a listener (m.Dial() and closing the
// connection, which starts and ends one short-lived connection goroutine
// inside miniredis).
func NewEngine(m *miniredis.Miniredis, opts Options) (*Engine, error) {
	if m == nil {
		return nil, errors.New("nil miniredis")
	}
	if opts.MaxInstructions < 0 {
		return nil, errors.Errorf("MaxInstructions %d is negative", opts.MaxInstructions)
	}
	if opts.MaxMemory < 0 {
		return nil, errors.Errorf("MaxMemory %d is negative", opts.MaxMemory)
	}
	if m.Server() == nil {
		c, err := m.Dial()
		if err != nil {
			return nil, errors.Wrap(err, "start miniredis server")
		}
		if err := c.Close(); err != nil {
			return nil, errors.Wrap(err, "close miniredis connection")
		}
	}
	e := &Engine{
		srv:             m.Server(),
		slow:            opts.Slow,
		runsAlone:       opts.RunsAlone,
		maxInstructions: opts.MaxInstructions,
		maxMemory:       opts.MaxMemory,
		bySource:        map[string]*script{},
		loaded:          map[string]*script{},
		pcg:             rand.NewPCG(opts.Seed, 0),
	}
	if e.maxInstructions == 0 {
		e.maxInstructions = DefaultMaxInstructions
	}
	if e.maxMemory == 0 {
		e.maxMemory = DefaultMaxMemory
	}
	e.rng = rand.New(e.pcg)
	e.w = bufio.NewWriterSize(&e.buf, peerBufLen)
	e.valPeer = server.NewPeer(e.w)
	e.callPeer.peer = server.NewPeer(e.w)
	e.pcallPeer.peer = server.NewPeer(e.w)
	if r := e.dispatch(e.valPeer, []string{"MULTI"}); !isOK(r) {
		return nil, errors.Errorf("MULTI on the validation peer: %s", r)
	}
	if !e.slow {
		if _, err := e.state(); err != nil { // fail here rather than at the first script
			return nil, err
		}
	}
	return e, nil
}

// Validating reports whether p is the peer that checks a command queued in
// MULTI (see Options.RunsAlone): a pre-hook then answers QUEUED or the
// queue-time error, and runs the command only at EXEC.
func (e *Engine) Validating(p *server.Peer) bool { return p == e.valPeer }

// NewConn returns a new client connection to the node, with DB 0 selected.
func (e *Engine) NewConn() *Conn {
	return &Conn{e: e, peer: server.NewPeer(e.w)}
}

// Flush drops all cached scripts, as SCRIPT FLUSH (used when a node
// restarts empty). It also flushes miniredis's own script cache.
func (e *Engine) Flush() {
	e.loaded, e.loadedBytes = map[string]*script{}, 0
	e.bySource, e.bySourceBytes = map[string]*script{}, 0
	e.dispatch(e.callPeer.peer, []string{"SCRIPT", "FLUSH"})
}

// dispatch runs one command on peer and returns its parsed reply.
func (e *Engine) dispatch(peer *server.Peer, args []string) resp.Reply {
	e.srv.Dispatch(peer, args)
	peer.Flush()
	r, err := resp.ParseAll(e.buf.Bytes())
	e.buf.Reset()
	if err != nil {
		return resp.ErrorReply("ERR locksim: unreadable reply from miniredis: " + err.Error())
	}
	return r
}

func isStatus(r resp.Reply, s string) bool { return r.Kind == resp.Status && r.Str == s }

func isOK(r resp.Reply) bool { return isStatus(r, "OK") }

// noteSelect records a successful SELECT in *db.
func noteSelect(db *int, args []string, r resp.Reply) {
	if !isOK(r) || len(args) != 2 {
		return
	}
	if n, err := strconv.Atoi(args[1]); err == nil {
		*db = n
	}
}

func sha1Hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

func itoa(n int) string { return strconv.Itoa(n) }
