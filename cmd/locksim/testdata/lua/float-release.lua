-- A release that also returns a sorted-set score: the simulation prints
-- 0.1 where Redis 7.0 prints %.17g, 0.10000000000000001 (a known
-- difference, docs/limits.md); replay --against-redis finds it at the
-- first release (TestReplayAgainstRedis).
redis.call('DEL', KEYS[1])
return redis.call('ZINCRBY', 'scores', '0.1', 'released')
