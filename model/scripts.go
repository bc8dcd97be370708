package model

// The Lua scripts of the catalogue designs, verbatim from their sources
// (seed articles 000, 001, 003, 004; Redisson's RedissonLock). KEYS and
// ARGV conventions are given per script.
const (
	// scriptRelease: KEYS[1] lock key, ARGV[1] value. 1 deleted, 0 not ours.
	scriptRelease = "if redis.call('GET',KEYS[1])==ARGV[1] then return redis.call('DEL',KEYS[1]) else return 0 end"
	// scriptRenew: KEYS[1] lock key, ARGV[1] value, ARGV[2] ttl ms.
	// 1 renewed, 0 not ours.
	scriptRenew = "if redis.call('GET',KEYS[1])==ARGV[1] then return redis.call('PEXPIRE',KEYS[1],ARGV[2]) else return 0 end"
	// scriptFencedAcquire: KEYS[1] lock key, KEYS[2] token counter,
	// ARGV[1] value, ARGV[2] ttl ms. The new token, or 0 if held.
	scriptFencedAcquire = "if redis.call('SET',KEYS[1],ARGV[1],'NX','PX',ARGV[2]) then return redis.call('INCR',KEYS[2]) else return 0 end"
	// scriptReentrantAcquire (Redisson tryLockInnerAsync): KEYS[1] lock
	// key, ARGV[1] ttl ms, ARGV[2] owner. nil acquired, else the PTTL.
	scriptReentrantAcquire = "if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil; end; return redis.call('pttl', KEYS[1]);"
	// scriptReentrantRelease (Redisson unlockInnerAsync): KEYS[1] lock
	// key, KEYS[2] channel, ARGV[1] message, ARGV[2] ttl ms, ARGV[3]
	// owner. nil not ours, 0 still held (count > 0), 1 released and
	// published.
	scriptReentrantRelease = "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end; local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0; else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1; end; return nil;"
	// scriptReentrantRenew (Redisson renewExpirationAsync): KEYS[1] lock
	// key, ARGV[1] ttl ms, ARGV[2] owner. 1 renewed, 0 not ours.
	scriptReentrantRenew = "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('pexpire', KEYS[1], ARGV[1]); return 1; end; return 0;"
)
