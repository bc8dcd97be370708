// locksim lab lessons: each starts a run that breaks, asks a question, and
// its check runs the student's change on the simulator (seeds 1 to 3) and
// says whether it fixed the break. The verdict is the simulator's exit code.
var SETPX = "-- SET NX PX: the key, its owner value, and its expiry in one command.\nreturn redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])\n";
var DEL = "-- A plain DEL: deletes whoever holds the key by then.\nreturn redis.call('DEL', KEYS[1])\n";
var CAD = "-- Compare and delete, atomic in Lua: only the owner's value deletes.\nif redis.call('GET', KEYS[1]) == ARGV[1] then\n  return redis.call('DEL', KEYS[1])\nend\nreturn 0\n";
var LOCKSIM_LESSONS = [
  {
    id: "setnx-no-expiry",
    title: "1. SETNX without an expiry",
    story: "<p>The first Redis lock everybody writes: <code>SETNX lock me</code> to take it, <code>DEL lock</code> to give it back. " +
      "Here client A takes the lock and crashes before it releases it. The key has no expiry, so it stays, and B waits forever: " +
      "the <em>liveness</em> invariant breaks (a wanted lock nobody holds is never acquired again).</p>",
    question: "Change acquire.lua so that a crashed holder's lock goes away by itself. (Hint: SET has NX and PX options, and ARGV[2] is the TTL in milliseconds.)",
    setup: { scenario: "crash-before-expire", design: "lua", acquire: "-- SETNX: the key and its owner value, no expiry.\nreturn redis.call('SETNX', KEYS[1], ARGV[1])\n", release: DEL, renew: "" },
  },
  {
    id: "owner-values",
    title: "2. Owner values: whose lock does DEL delete?",
    story: "<p>Now the lock expires: <code>SET lock value NX PX ttl</code>. But the release is still a plain <code>DEL</code>. " +
      "A pauses inside its release, past its lease; the key expires, B takes the lock; then A's DEL arrives and deletes <em>B's</em> lock, " +
      "and a third holder walks in while B still works. Every holder writes a random owner value (ARGV[1]) into the key.</p>",
    question: "Change release.lua so that a client only deletes the lock if it still holds it. Do it in one atomic step (a Lua script runs atomically on Redis).",
    setup: { scenario: "stale-release", design: "lua", acquire: SETPX, release: DEL, renew: "" },
  },
  {
    id: "watchdog",
    title: "3. A lease shorter than the work: the watchdog",
    story: "<p>The lock is right now: SET NX PX and a compare-and-delete. But A's critical section runs longer than the TTL, " +
      "with no pause at all. The key expires under A while it still works, B takes the lock, and both write.</p>",
    question: "Add a renew.lua: a watchdog calls it every TTL/3 while the client holds the lock. It must extend the lease, and only if the key still holds the client's value (ARGV[1]; ARGV[2] is the TTL in ms).",
    setup: { scenario: "explicit-lease", design: "lua", acquire: SETPX, release: CAD, renew: "" },
  },
  {
    id: "fencing",
    title: "4. Fencing tokens: a pause no lock can see",
    story: "<p>A checks its lease, prepares its write, and then a stop-the-world GC pause freezes the whole process for 1.5 s, watchdog included. " +
      "The lease expires, B takes the lock and writes, and A wakes up and sends its stale write. No lock design on the client side can stop this: " +
      "the check came before the pause. Only the resource can refuse the write, if every write carries a token that grows with each grant.</p>" +
      "<p>This lesson judges the data only (the invariants stale-write and lost-update): mutual exclusion is broken by the pause whatever the lock does.</p>",
    question: "Pick a design whose lock hands out a fencing token with every grant (see the design list), so that the resource rejects A's stale write.",
    setup: { scenario: "gc-pause", design: "set-px-lua", invariants: "stale-write,lost-update" },
  },
];
// Lessons not yet written, in the order of the story.
var LOCKSIM_LESSONS_TODO = [
  "Redlock and its timing (clock-jump, restart-empty)",
  "Failover with asynchronous replication (failover-lost-write, wait-wrong-replica)",
  "A consensus lease (consensus-pause, consensus-majority)",
];
