-- An acquire script that compiles in gopher-lua but not in Redis's Lua 5.1,
-- which has no goto: replay --against-redis finds the difference at its
-- first EVAL (TestReplayAgainstRedis).
goto set
::set::
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
