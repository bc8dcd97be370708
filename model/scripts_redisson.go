package model

// The Lua scripts of Redisson's fair lock and read-write lock (Redisson's
// getFairLock, getReadLock and getWriteLock), written in our own
// words after the algorithms of RedissonFairLock, RedissonReadLock and
// RedissonWriteLock (Redisson 3.x; without the unlock-latch key that
// Redisson 3.2x adds to make a retried unlock idempotent). KEYS and ARGV
// conventions and replies are given per script. Owners are hash fields
// holding hold counts, as in RLock (scriptReentrantAcquire); times are ms.
const (
	// scriptFairPurge drops the waiters at the head of the queue whose
	// place ran out (score <= now): the prelude of every fair-lock script.
	// KEYS[2] the queue (a list of owners), KEYS[3] each waiter's deadline
	// (a sorted set, scores in the client's wall-clock ms); now is ARGV[4].
	// A head without a deadline stays, as in Redisson.
	scriptFairPurge = "local now = tonumber(ARGV[4]); " +
		"while true do " +
		"local head = redis.call('lindex', KEYS[2], 0); " +
		"if not head then break end; " +
		"local t = redis.call('zscore', KEYS[3], head); " +
		"if (not t) or tonumber(t) > now then break end; " +
		"redis.call('lpop', KEYS[2]); redis.call('zrem', KEYS[3], head); " +
		"end; "

	// scriptFairAcquire: KEYS[1] lock, KEYS[2] queue, KEYS[3] deadlines;
	// ARGV[1] lease ms, ARGV[2] owner, ARGV[3] queue wait ms, ARGV[4] the
	// client's wall clock in ms (System.currentTimeMillis()). nil: taken
	// (the lock was free and the queue empty or headed by the owner; every
	// waiter left moves up, its deadline one wait earlier) or taken once
	// more by its owner; else the ms the caller should wait: the lock's
	// PTTL for a queued waiter, and for a new one the time until the
	// waiter ahead's place runs out (or the lease), as its own place lasts
	// that long plus the queue wait.
	scriptFairAcquire = scriptFairPurge +
		"if redis.call('exists', KEYS[1]) == 0 then " +
		"local head = redis.call('lindex', KEYS[2], 0); " +
		"if (not head) or head == ARGV[2] then " +
		"if head then redis.call('lpop', KEYS[2]) end; " +
		"redis.call('zrem', KEYS[3], ARGV[2]); " +
		"for _, w in ipairs(redis.call('zrange', KEYS[3], 0, -1)) do redis.call('zincrby', KEYS[3], -tonumber(ARGV[3]), w) end; " +
		"redis.call('hset', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); " +
		"return nil; " +
		"end; " +
		"end; " +
		"if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then " +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; " +
		"end; " +
		"if redis.call('zscore', KEYS[3], ARGV[2]) then return math.max(0, redis.call('pttl', KEYS[1])) end; " +
		"local tail = redis.call('lindex', KEYS[2], -1); " +
		"local t = tail and redis.call('zscore', KEYS[3], tail); " +
		"local ahead; " +
		"if t then ahead = tonumber(t) - now else ahead = redis.call('pttl', KEYS[1]) end; " +
		"redis.call('zadd', KEYS[3], ahead + tonumber(ARGV[3]) + now, ARGV[2]); " +
		"redis.call('rpush', KEYS[2], ARGV[2]); " +
		"return math.max(0, ahead);"

	// scriptFairRelease: KEYS[1] lock, KEYS[2] queue, KEYS[3] deadlines,
	// KEYS[4] the channel prefix (a waiter listens on prefix:owner);
	// ARGV[1] message, ARGV[2] lease ms, ARGV[3] owner, ARGV[4] now ms.
	// nil not ours, 0 still held (count > 0), 1 released: the first waiter
	// in the queue is told.
	scriptFairRelease = scriptFairPurge +
		"local function wake() local head = redis.call('lindex', KEYS[2], 0); " +
		"if head then redis.call('publish', KEYS[4] .. ':' .. head, ARGV[1]) end end; " +
		"if redis.call('exists', KEYS[1]) == 0 then wake(); return 1 end; " +
		"if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then return nil end; " +
		"if redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then redis.call('pexpire', KEYS[1], ARGV[2]); return 0 end; " +
		"redis.call('del', KEYS[1]); wake(); return 1;"

	// scriptFairAbandon (acquireFailed): KEYS[1] queue, KEYS[2] deadlines;
	// ARGV[1] owner, ARGV[2] queue wait ms. The owner leaves the queue and
	// every waiter behind it moves up, its deadline one wait earlier.
	scriptFairAbandon = "local behind = false; " +
		"for _, w in ipairs(redis.call('lrange', KEYS[1], 0, -1)) do " +
		"if behind then redis.call('zincrby', KEYS[2], -tonumber(ARGV[2]), w) end; " +
		"if w == ARGV[1] then behind = true end; " +
		"end; " +
		"redis.call('zrem', KEYS[2], ARGV[1]); redis.call('lrem', KEYS[1], 0, ARGV[1]); return 1;"

	// scriptReadAcquire: KEYS[1] lock (a hash: mode, and owner -> holds),
	// KEYS[2] the prefix of this owner's hold keys ({lock}:owner:
	// rwlock_timeout, one key per hold, each with the lease); ARGV[1]
	// lease ms, ARGV[2] owner, ARGV[3] the owner's write field. nil: a read
	// hold taken (the lock free, read, or written by this owner), the lock
	// kept as long as its longest hold; else the PTTL of the writer's hold.
	scriptReadAcquire = "local mode = redis.call('hget', KEYS[1], 'mode'); " +
		"if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[3]) == 0 then return redis.call('pttl', KEYS[1]) end; " +
		"if not mode then redis.call('hset', KEYS[1], 'mode', 'read') end; " +
		"local n = redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('set', KEYS[2] .. ':' .. n, 1, 'px', ARGV[1]); " +
		"redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[1]))); " +
		"return nil;"

	// scriptReadRelease: KEYS[1] lock, KEYS[2] channel, KEYS[3] this
	// owner's hold-key prefix, KEYS[4] the lock's key prefix ({lock});
	// ARGV[1] message, ARGV[2] owner. nil not ours, 0 other holds remain
	// (the lock lives as long as the longest of their hold keys, or a
	// writer holds it), 1 the lock released and the waiters told.
	scriptReadRelease = "local mode = redis.call('hget', KEYS[1], 'mode'); " +
		"if not mode then redis.call('publish', KEYS[2], ARGV[1]); return nil end; " +
		"if redis.call('hexists', KEYS[1], ARGV[2]) == 0 then return nil end; " +
		"local n = redis.call('hincrby', KEYS[1], ARGV[2], -1); " +
		"if n == 0 then redis.call('hdel', KEYS[1], ARGV[2]) end; " +
		"redis.call('del', KEYS[3] .. ':' .. (n + 1)); " +
		"if redis.call('hlen', KEYS[1]) > 1 then " +
		"local longest = -3; " +
		"for _, f in ipairs(redis.call('hkeys', KEYS[1])) do " +
		"local c = tonumber(redis.call('hget', KEYS[1], f)); " +
		"if c then for i = c, 1, -1 do longest = math.max(longest, redis.call('pttl', KEYS[4] .. ':' .. f .. ':rwlock_timeout:' .. i)) end end; " +
		"end; " +
		"if longest > 0 then redis.call('pexpire', KEYS[1], longest); return 0 end; " +
		"if mode == 'write' then return 0 end; " +
		"end; " +
		"redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1;"

	// scriptReadRenew: KEYS[1] lock, KEYS[2] the lock's key prefix;
	// ARGV[1] lease ms, ARGV[2] owner. 1: the owner's hold keys and the
	// lock extended to the lease; 0 not ours.
	scriptReadRenew = "local c = tonumber(redis.call('hget', KEYS[1], ARGV[2])); " +
		"if not c then return 0 end; " +
		"for i = c, 1, -1 do redis.call('pexpire', KEYS[2] .. ':' .. ARGV[2] .. ':rwlock_timeout:' .. i, ARGV[1]) end; " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); return 1;"

	// scriptWriteAcquire: KEYS[1] lock; ARGV[1] lease ms, ARGV[2] the
	// owner's write field. nil: the write hold taken (the lock free) or
	// taken once more by its owner (the lease added to what is left);
	// else the lock's PTTL (readers or another writer hold it).
	scriptWriteAcquire = "local mode = redis.call('hget', KEYS[1], 'mode'); " +
		"if not mode then " +
		"redis.call('hset', KEYS[1], 'mode', 'write'); redis.call('hset', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], ARGV[1]); return nil; " +
		"end; " +
		"if mode == 'write' and redis.call('hexists', KEYS[1], ARGV[2]) == 1 then " +
		"redis.call('hincrby', KEYS[1], ARGV[2], 1); " +
		"redis.call('pexpire', KEYS[1], redis.call('pttl', KEYS[1]) + tonumber(ARGV[1])); return nil; " +
		"end; " +
		"return redis.call('pttl', KEYS[1]);"

	// scriptWriteRelease: KEYS[1] lock, KEYS[2] channel; ARGV[1] message,
	// ARGV[2] lease ms, ARGV[3] the owner's write field. nil not ours, 0
	// still held (count > 0), 1 released: the lock deleted and the
	// waiters told, or left in read mode when the owner also reads.
	scriptWriteRelease = "local mode = redis.call('hget', KEYS[1], 'mode'); " +
		"if not mode then redis.call('publish', KEYS[2], ARGV[1]); return nil end; " +
		"if mode ~= 'write' or redis.call('hexists', KEYS[1], ARGV[3]) == 0 then return nil end; " +
		"if redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then redis.call('pexpire', KEYS[1], ARGV[2]); return 0 end; " +
		"redis.call('hdel', KEYS[1], ARGV[3]); " +
		"if redis.call('hlen', KEYS[1]) == 1 then redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); " +
		"else redis.call('hset', KEYS[1], 'mode', 'read') end; " +
		"return 1;"
)
