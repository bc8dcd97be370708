-- A plain DEL: deletes whoever holds the key by then.
return redis.call('DEL', KEYS[1])
