// Package script runs Redis Lua scripts for one simulated Redis node (a
// miniredis instance) on a reused gopher-lua state.
//
// States outlive engines: Engine.Release hands the state to a process-wide
// pool for the next engine (a simulated run releases its nodes' states when
// it ends), and compiled main chunks are cached per process by source.
// Building a state costs more than a short simulated run.
//
// miniredis's own EVAL builds a fresh Lua interpreter per call (~100 µs or
// more, ~180 KB). An Engine compiles each script once, keeps one sandboxed
// interpreter per node, and sends redis.call through miniredis's exported
// dispatch path, so a lock-release script costs a few µs and about a dozen
// allocations while giving the same replies and error texts as miniredis's
// EVAL (checked by differential tests against miniredis and, where
// redis-server is installed, against real Redis 7), except where Lua's own
// behaviour decides a script's result: there it follows Redis 7 (below).
//
// # Usage
//
//	m := miniredis.NewMiniRedis()
//	m.Seed(1)
//	m.SetTime(epoch)
//	m.ClockTTL(true)
//	e, err := script.NewEngine(m, script.Options{Seed: nodeSeed})
//	if err != nil { ... }
//	c := e.NewConn()                // one per simulated client connection
//	m.SetTime(nodeClockNow)         // before every Do
//	c.Do("SET", "lock", "tok", "NX", "PX", "30000")
//	r := c.Do("EVAL", release, "1", "lock", "tok") // resp.IntReply(1)
//	e.Flush()                       // the node restarted empty: scripts are gone
//	e.Release()                     // done with the node: pool the Lua state
//
// Conn.Do takes any command: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT
// LOAD|EXISTS|FLUSH run on the fast path; MULTI/EXEC/DISCARD are handled by
// the Conn so that scripts can be queued (plain commands between scripts
// still run inside miniredis's own MULTI/EXEC, which also checks WATCH);
// everything else goes to miniredis unchanged. Options.Slow sends every
// command to miniredis, its EVAL included.
//
// # Invariants
//
//   - Deterministic: no wall clock, no goroutines, no global randomness.
//     Lua's math.random draws from one PCG per engine seeded with
//     (Options.Seed, 0), not reseeded between scripts (as in Redis 7).
//     NewEngine calls m.Dial() once if m has no server yet; that is the only
//     goroutine (miniredis's, short-lived) the package causes.
//   - Bounded: a run executes at most Options.MaxInstructions Lua VM
//     instructions (default 10M) and allocates at most Options.MaxMemory
//     bytes (default 64 MiB), counted by a context that gopher-lua polls
//     before every instruction and by the library functions written in Go,
//     which charge before they allocate or work (budget.go, charge.go,
//     libs.go); coroutines share the budget. Both are counts, never time.
//   - Isolated: a run cannot leave anything for the next run or another
//     node. An engine has one interpreter at a time; a pooled interpreter
//     serves one engine after another, and its Go functions (redis.*,
//     math.random) reach the engine that holds it now. Globals live in a per-run
//     environment in front of read-only shared globals; library tables
//     (redis, string, math, table, coroutine, cjson) are read-only
//     proxies (also against rawset and table.insert/remove/sort); the
//     string metatable and every metatable are protected; getfenv, setfenv,
//     debug, require, module, package, dofile and loadfile are absent.
//     KEYS and ARGV tables are reused only while no script modified them
//     (a key a script set and deleted keeps its slot, so a later script of
//     the same engine may see pairs() visit keys in another order; the
//     run's seed decides it, and a released state starts those tables
//     afresh for its next engine).
//   - A Go panic inside a run becomes an error reply and the interpreter is
//     rebuilt before the next script.
//   - An Engine and its Conns are not safe for concurrent use.
//
// # Limits
//
// No script, however written, makes a run exceed a bound on memory or
// time: every limit is a count (instructions, bytes, depth), never a
// clock, so the same script fails the same way on every machine and every
// run. Each error names its limit ("(limits: max-script-bytes)"); a lock
// design's scripts are hundreds of bytes and a few dozen instructions, far
// below all of them. Together with package sim's node limits:
//
//	limit                    default        what it counts                          where
//	max-script-instructions  10,000,000     VM instructions, plus library work:     Options.MaxInstructions
//	                                        1 per 16 bytes produced or scanned,
//	                                        per slot moved, per pattern step
//	max-script-bytes         64 MiB         bytes a script run allocates,           Options.MaxMemory
//	                                        garbage included (strings, tables,
//	                                        closures, coroutines, replies)
//	max-script-source-bytes  64 KiB         a script's source (EVAL, SCRIPT LOAD,   MaxScriptBytes
//	                                        loadstring, load)
//	max-script-syntax-depth  200            Lua 5.1's syntax levels (blocks and     syntaxlevels.go
//	                                        subexpressions), as Redis 7 counts
//	max-script-tree-depth    1000           nesting of gopher-lua's syntax tree     compilecheck.go
//	                                        (left-associative chains)
//	max-script-constants     2^24           a function's constant lookups at        compilecheck.go
//	                                        compile time (uses x distinct)
//	max-script-cache-bytes   4 MiB          script source a node keeps for EVALSHA  engine.go
//	patterns                 32 captures,   Lua's LUA_MAXCAPTURES and Lua 5.2's     luapattern
//	                         200 nested     MAXCCALLS
//	cjson depth              1000           encode and decode nesting, as Redis     cjson.go
//	reply depth              256            a script's returned tables              convert.go
//	max-value-bytes          1 MiB          each string a node stores               sim.MaxValueBytes
//	max-keyspace-bytes       16 MiB         a node's keyspace, all databases        sim.MaxKeyspaceBytes
//
// Peak memory of the worst script (bombs_test.go measures each): the
// memory budget, plus up to about twice it in garbage before Go's
// collector runs, plus what the budget does not see (a boxed number per
// arithmetic instruction, ~24 bytes, dropped at once). No bomb in the
// tests allocates more than ~120 MB in all.
//
// # Differences from real Redis 7
//
// The fast path reproduces miniredis's EVAL, so miniredis's differences
// from Redis remain:
//
//   - Errors raised in scripts read "ERR Error compiling script (new
//     function): :LINE: MESSAGE stack traceback: ..." (Redis: "ERR
//     user_script:LINE: MESSAGE script: SHA, on @user_script:LINE.");
//     compile errors read "<string> at EOF: syntax error" and the like.
//   - Creating a global raises "Script attempted to create global variable
//     'x'" (Redis: "Attempt to modify a readonly table"); assigning an
//     existing global (KEYS = ..., redis = nil) is allowed for the rest of
//     that run, where Redis refuses it.
//   - EVAL caches a script only if it ran without error; EVALSHA and SCRIPT
//     EXISTS compare SHAs case-sensitively.
//   - redis.call and redis.pcall each have their own selected DB within a
//     run (a SELECT through one does not move the other).
//   - Libraries are gopher-lua's plus cjson (no bit, struct, cmsgpack,
//     gcinfo, table.foreach, table.foreachi, table.setn); server, print
//     and newproxy exist (Redis 7.0 has none of them); print, redis.log
//     and collectgarbage do nothing.
//   - HGETALL, HKEYS, HVALS and SMEMBERS reply sorted (miniredis); Redis
//     7.0 replies a small hash in insertion order and a set that is not
//     all integers in its hash table's order, which changes with every
//     server start.
//   - An error caught by pcall carries gopher-lua's position (":1: ...",
//     Redis: none for errors raised by library functions).
//
// Where miniredis and Redis 7 disagree, the fast path follows Redis when
// that is needed for isolation or termination, or where Lua itself
// decides what a script computes (measured against redis-server 7.0.15,
// realredis_lua_test.go):
//
//   - Numbers convert as in Lua 5.1 (numbers.go): "%.14g" in tostring,
//     `..` (compile rewrites each operand that may be a number into a call
//     of a hidden global), table.concat, the string functions and
//     cjson.encode, so 10/3 is 3.3333333333333, 1e15 is 1e+15, 1/0 is
//     inf; redis.call passes "%.17g" (0.1 is 0.10000000000000001);
//     tonumber is luaO_str2d and strtoul (1e1, -0x10, 0x1p4, inf, past
//     2^63).
//   - string.format is Lua 5.1's (format.go): missing or mistyped
//     arguments, unknown conversions and widths over 99 raise Lua's
//     errors; %s of a table is an error, as in Redis.
//   - cjson.encode is lua-cjson's (cjson.go); table.sort is Lua 5.1's
//     quicksort (sort.go), with its "invalid order function for sorting".
//   - A returned table is read as Redis 7.0 reads it (convert.go): err and
//     ok only when strings ({err=1} is an empty array), then double,
//     big_number, verbatim_string, map and set.
//   - No os (miniredis has os.clock, always 42). Error messages are not
//     run through fmt again (miniredis turns "100%" into "100%!(NOVERB)").
//   - A chunk deeper than Lua 5.1's 200 syntax levels is refused with
//     "chunk has too many syntax levels" (syntaxlevels.go).
//   - Writing a library table (redis.call = nil) raises "Attempt to modify
//     a readonly table" (miniredis allows it).
//   - getfenv, setfenv, require, module, package, dofile, loadfile are
//     absent (miniredis exposes them).
//   - WAIT, QUIT, blocking commands (BLPOP, BRPOP, BRPOPLPUSH, BLMOVE,
//     BZPOPMIN, BZPOPMAX, BZMPOP) and XREAD/XREADGROUP with BLOCK get "This
//     Redis command is not allowed from script" (miniredis: WAIT returns 0,
//     QUIT runs, and a blocking pop on an empty key hangs).
//   - A returned function, thread or userdata is a nil reply and a status
//     inside a redis.call array reply becomes {ok=...} (miniredis panics).
//
// And where neither applies:
//
//   - Tables, functions, threads and userdata print as a per-run id in
//     order of first print ("table: 0x0001", then "function: 0x0002"),
//     restarting with every script run, in tostring and error objects
//     (error({})); Redis and miniredis print
//     heap addresses, which differ from run to run.
//   - A script that exceeds its instruction budget fails with "ERR Error
//     running script (call to f_SHA): script exceeded the instruction
//     budget of N (limits: max-script-instructions)". Real Redis keeps
//     running it, answers BUSY to other clients and needs SCRIPT KILL.
//     Library functions written in Go count their work too: one
//     instruction per 16 bytes they produce or scan, per slot they move
//     (table.insert), per comparison (table.sort), per step of the pattern
//     matcher (string.find, match, gmatch, gsub run on package luapattern,
//     gopher-lua's matcher with a step budget); so do instructions whose
//     cost grows with their operands (#t over trailing nils, next over
//     deleted keys, comparing or hashing long strings).
//   - Patterns: at most 32 captures ("too many captures", as Lua) and at
//     most 200 nested items on a match's path, a capture, `?` or the
//     continuation of a `*` or `-` ("pattern too complex", as Lua 5.2;
//     Redis's Lua 5.1 recurses in C without a bound).
//   - A result table nested deeper than 256 levels (or holding itself)
//     gives "ERR reached lua stack limit".
//   - pairs and next see nothing in library tables (they are proxies), and
//     the globals' metatable is protected: getmetatable(_G) is false and
//     setmetatable(_G, ...) fails (miniredis allows both).
//   - A script that allocates more than its memory budget fails with "ERR
//     Error running script (call to f_SHA): script exceeded the memory
//     budget of N bytes (limits: max-script-bytes)". The count is of bytes
//     allocated, garbage included: appending to a string in a loop costs
//     the sum of its prefixes. Real Redis grows its Lua heap without bound.
//   - Compiling is bounded before gopher-lua's compiler (which is not
//     linear) runs, for EVAL, SCRIPT LOAD, loadstring and load: a source
//     of at most 64 KiB (max-script-source-bytes), at most Lua 5.1's 200
//     syntax levels (max-script-syntax-depth, as Redis), a syntax tree at
//     most 1000 deep (max-script-tree-depth: a + b + c ... of more than
//     1000 terms, which Redis accepts), and per function at most 2^24 constant lookups, uses times distinct
//     constants (max-script-constants). A node keeps at most 4 MiB of
//     script source for EVALSHA: SCRIPT LOAD beyond is refused, EVAL
//     beyond runs without caching (max-script-cache-bytes).
//   - cjson.encode refuses nesting deeper than 1000 with Redis's "Cannot
//     serialise, excessive nesting (1001)" (miniredis recurses on the Go
//     stack until the process dies); an object's members come in
//     gopher-lua's table order (Redis: its hash order).
//     cjson.decode follows lua-cjson: invalid JSON raises its error
//     ("Expected value but found invalid token at character 1"; miniredis
//     returns nil and a Go message), nesting beyond 1000 raises "Found too
//     many nested data structures (1001) at character N", and numbers are
//     read as strtod reads them (hex, inf, nan); values are miniredis's
//     (null is nil, so [1,null,2] decodes as {1,2}; Redis gives
//     cjson.null), with object keys inserted in document order (miniredis:
//     Go map order, which no seed controls).
//   - Outside MULTI, Conn.Do answers blocking commands, SUBSCRIBE and
//     PSUBSCRIBE with an error instead of blocking or starting goroutines
//     in miniredis; model waiting in the simulation.
//   - No AUTH (the script peers are never authenticated, so do not use
//     m.RequireAuth) and RESP2 only (no HELLO 3).
//   - A panic inside a miniredis command handler that holds miniredis's
//     lock (SSCAN with a negative cursor, for one) leaves the instance
//     locked; nothing outside miniredis can undo that. Package sim checks
//     the lock after every command and stops the run with an error, and
//     never recycles a locked instance.
package script
