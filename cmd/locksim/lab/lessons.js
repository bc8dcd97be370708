// locksim lab lessons, in the order of the source material's story (the
// articles under the project's seeds: SETNX and its pitfalls, SET NX PX
// for atomicity, owner values and the Lua compare-and-delete, the
// watchdog, fencing tokens, Redlock, failover and WAIT, consensus). Each
// starts a run that breaks, asks a question, and its check runs the
// student's change on the simulator (seeds 1 to 3) and says whether it
// fixed the break. The verdict is the simulator's exit code, never a
// stored answer.
var SETNX = "-- SETNX: the key and its owner value, no expiry.\nreturn redis.call('SETNX', KEYS[1], ARGV[1])\n";
var SETPX = "-- SET NX PX: the key, its owner value, and its expiry in one command.\nreturn redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])\n";
var SETCONST = "-- SET NX PX with the same value for every client.\nreturn redis.call('SET', KEYS[1], 'locked', 'NX', 'PX', ARGV[2])\n";
var DEL = "-- A plain DEL: deletes whoever holds the key by then.\nreturn redis.call('DEL', KEYS[1])\n";
var CAD = "-- Compare and delete, atomic in Lua: only the owner's value deletes.\nif redis.call('GET', KEYS[1]) == ARGV[1] then\n  return redis.call('DEL', KEYS[1])\nend\nreturn 0\n";
var LOCKSIM_LESSONS = [
  {
    id: "setnx-no-expiry",
    title: "1. SETNX without an expiry",
    story: "<p>The first Redis lock everybody writes: <code>SETNX lock me</code> to take it, <code>DEL lock</code> to give it back. " +
      "Here client A takes the lock and crashes before it releases it. The key has no expiry, so it stays, and B waits forever: " +
      "the <em>liveness</em> invariant breaks (a wanted lock nobody holds is never acquired again).</p>",
    question: "Change acquire.lua so that a crashed holder's lock goes away by itself. (Hint: PEXPIRE sets an expiry, and so do SET's NX and PX options; ARGV[2] is the TTL in milliseconds.)",
    setup: { scenario: "crash-before-expire", design: "lua", acquire: SETNX, release: DEL, renew: "" },
  },
  {
    id: "ttl",
    title: "2. The TTL, in the same step as the key",
    story: "<p>The articles' next step: give the key a TTL. The design <code>setnx-expire</code> does it the way many first versions do, " +
      "in two commands: <code>SETNX lock me</code>, and when that says 1, <code>PEXPIRE lock ttl</code>. A crashes right after the SETNX reply, " +
      "before its PEXPIRE goes out. The key is there without a TTL, exactly as in lesson 1, and B never gets the lock.</p>" +
      "<p>Your script in lesson 1 did not have this problem: a Lua script runs on Redis as one step, and so does one command.</p>",
    question: "Make the key and its TTL one atomic step: pick the design lua and write an acquire.lua that sets both in one command (SET ... NX PX) or one script, or pick a built-in design that does.",
    setup: { scenario: "crash-before-expire", design: "setnx-expire", acquire: SETNX, release: DEL, renew: "" },
  },
  {
    id: "owner-values",
    title: "3. Owner values: whose lock does DEL delete?",
    story: "<p>Now the lock expires. But every client writes the same value, <code>locked</code>, and the release is a plain <code>DEL</code>. " +
      "A pauses inside its release, past its lease; the key expires, B takes the lock; then A's DEL arrives and deletes <em>B's</em> lock, " +
      "and a third holder walks in while B still works. Nothing in the key says whose it is.</p>",
    question: "Give each holder its own value (ARGV[1] is a random value per client) in acquire.lua, and change release.lua so that a client only deletes the lock while the key still holds its value. Do it in one atomic step (a Lua script runs atomically on Redis).",
    setup: { scenario: "stale-release", design: "lua", acquire: SETCONST, release: DEL, renew: "" },
  },
  {
    id: "compare-and-delete",
    title: "4. Compare and delete, in Lua",
    story: "<p>The articles' first unlock: <code>if value.equals(GET lock) then DEL lock</code>, on the client. It has owner values, " +
      "and it still deletes the next holder's lock: A's GET sees its own value, then A freezes for 1.7 s before its DEL " +
      "(design <code>set-px-getdel</code>). The lease runs out meanwhile, B takes the lock, and A's DEL deletes B's key. " +
      "The comparison was true when it was made and false when the DEL arrived.</p>",
    question: "Move the comparison to Redis: pick the design lua and write a release.lua that compares and deletes in one script, so nothing can run between the GET and the DEL.",
    setup: { scenario: "stale-release", design: "set-px-getdel", acquire: SETPX, release: DEL, renew: "" },
  },
  {
    id: "watchdog",
    title: "5. A lease shorter than the work: the watchdog",
    story: "<p>The lock is right now: SET NX PX and a compare-and-delete. But A's critical section runs longer than the TTL, " +
      "with no pause at all. The key expires under A while it still works, B takes the lock, and both write.</p>",
    question: "Add a renew.lua: a watchdog calls it every TTL/3 while the client holds the lock (the scenario's `option renew-every=D` changes that). It must extend the lease, and only if the key still holds the client's value (ARGV[1]; ARGV[2] is the TTL in ms).",
    setup: { scenario: "explicit-lease", design: "lua", acquire: SETPX, release: CAD, renew: "" },
  },
  {
    id: "fencing",
    title: "6. Fencing tokens: a pause no lock can see",
    story: "<p>A checks its lease, prepares its write, and then a stop-the-world GC pause freezes the whole process for 1.5 s, watchdog included. " +
      "The lease expires, B takes the lock and writes, and A wakes up and sends its stale write. No lock design on the client side can stop this: " +
      "the check came before the pause. Only the resource can refuse the write, if every write carries a token that grows with each grant.</p>" +
      "<p>This lesson judges the data only (the invariants stale-write and lost-update): mutual exclusion is broken by the pause whatever the lock does.</p>",
    question: "Pick a design whose lock hands out a fencing token with every grant (see the design list), so that the resource rejects A's stale write.",
    setup: { scenario: "gc-pause", design: "set-px-lua", invariants: "stale-write,lost-update" },
  },
  {
    id: "redlock",
    title: "7. Redlock and its timing",
    story: "<p>One Redis node is one failure domain, so Redlock takes the key on a majority of five independent masters, and counts the lease " +
      "from before its first SET. Here A cannot reach r4 and r5 and wins with a bare majority, r1, r2 and r3. Then r1 crashes and is back " +
      "10 ms later with no data: the topology says <code>persistence=none</code>. B asks r1, r4 and r5, finds the key on none of them, and " +
      "holds a majority of its own while A still trusts its lease.</p>" +
      "<p>Redlock's safety rests on timing and on nodes that do not forget: a restarted node must keep its keys, or stay away for longer " +
      "than the longest TTL (antirez's <em>delayed restart</em>). Afterwards open the scenario <code>clock-jump</code>: a node whose wall clock " +
      "steps forward loses the key the same way, and no Redlock setting helps there; only fencing or a consensus lease (lesson 9) does.</p>",
    question: "Change the scenario file, not the lock: make the crashed node come back with A's key (the topology's persistence= option: none, aof-everysec or aof-always), or keep it down longer than the TTL (the fault's `for` duration).",
    setup: { scenario: "restart-empty", design: "redlock" },
  },
  {
    id: "failover",
    title: "8. Failover with asynchronous replication",
    story: "<p>A single primary with a replica and Sentinel: if the primary dies, the replica takes over. But Redis replicates after it answers. " +
      "A's SET reaches the primary r1, which answers OK; the replication to r2 is slow, r1 crashes before it gets there, Sentinel promotes r2, " +
      "and r2 has never seen A's key. B acquires while A still works.</p>" +
      "<p>The articles' answer is <code>WAIT 1</code>: hold the lock only once a replica has the key.</p>",
    question: "Pick a design that waits for a replica to acknowledge the key before it counts the lock as held, or one that does not depend on a single primary at all. Then open the scenario wait-wrong-replica: with two replicas, WAIT 1 is not enough either.",
    setup: { scenario: "failover-lost-write", design: "set-px-lua" },
  },
  {
    id: "consensus",
    title: "9. A consensus lease",
    story: "<p>Lesson 7's two troubles at once: A holds Redlock on r1, r2 and r3; r1's wall clock steps 3 s forward, past the TTL, " +
      "so A's key there expires, and r2 restarts empty. Two of A's three grants are gone and B gathers r2, r4 and r5.</p>" +
      "<p>A consensus store keeps the lock in a replicated log: a grant is committed by a majority and written to disk before it is answered, " +
      "and the lease runs on the leader's monotonic clock, which a wall-clock step does not move. The same five nodes can run it " +
      "(etcd's lease over go.etcd.io/raft).</p>",
    question: "Run the same faults with a lock kept by consensus (an etcd-style lease) instead of Redlock. Then open consensus-pause: even a consensus lease needs its revision as a fencing token when the client pauses.",
    setup: { scenario: "consensus-majority", design: "redlock" },
  },
];
