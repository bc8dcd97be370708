package sim

import "strings"

// ClusterSlots is the number of hash slots of a Redis Cluster.
const ClusterSlots = 16384

// crc16Table is CRC-16/XMODEM (polynomial 0x1021, initial value 0, no
// reflection, no final xor), the checksum the Redis Cluster specification
// names for key hashing; its check value for "123456789" is 0x31C3.
var crc16Table = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// crc16 returns the CRC-16/XMODEM of s.
func crc16(s string) uint16 {
	var c uint16
	for i := 0; i < len(s); i++ {
		c = c<<8 ^ crc16Table[byte(c>>8)^s[i]]
	}
	return c
}

// KeySlot returns the hash slot of key as Redis Cluster computes it:
// CRC16(key) mod 16384, where a key holding a hash tag, a non-empty
// substring between its first '{' and the first '}' after it, hashes only
// that substring ("{user1000}.following" hashes "user1000"; "foo{}{bar}"
// hashes the whole key).
func KeySlot(key string) int {
	if s := strings.IndexByte(key, '{'); s >= 0 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	return int(crc16(key)) & (ClusterSlots - 1)
}

// keySpec says where a command's keys are, as Redis's command table does:
// arguments first..last (a negative last counts from the end, -1 being the
// last argument) every step; numkeys > 0 means the key count is argument
// numkeys and the keys follow it (EVAL).
type keySpec struct {
	first, last, step, numkeys int
}

// clusterKeySpecs are the commands a cluster node routes by key. A command
// in neither this table nor clusterKeyless is refused on a cluster node
// (clusterCommandKeys): serving it anywhere could hide a redirect a real
// cluster gives.
var clusterKeySpecs = func() map[string]keySpec {
	m := map[string]keySpec{}
	one := keySpec{first: 1, last: 1, step: 1}
	for _, c := range strings.Fields(`GET SET SETNX SETEX PSETEX GETSET GETDEL GETEX APPEND STRLEN
		INCR DECR INCRBY DECRBY INCRBYFLOAT GETRANGE SETRANGE
		EXPIRE PEXPIRE EXPIREAT PEXPIREAT EXPIRETIME PEXPIRETIME TTL PTTL PERSIST TYPE DUMP RESTORE
		HSET HSETNX HGET HMSET HMGET HDEL HGETALL HKEYS HVALS HLEN HEXISTS HINCRBY HINCRBYFLOAT HSTRLEN HSCAN
		HEXPIRE HPEXPIRE HEXPIREAT HPEXPIREAT HTTL HPTTL HPERSIST HEXPIRETIME HPEXPIRETIME HGETDEL HGETEX HSETEX
		LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LRANGE LINDEX LSET LREM LTRIM LINSERT LPOS
		SADD SREM SMEMBERS SISMEMBER SMISMEMBER SCARD SPOP SRANDMEMBER SSCAN
		ZADD ZREM ZSCORE ZMSCORE ZCARD ZCOUNT ZINCRBY ZRANGE ZRANGEBYSCORE ZREVRANGE ZREVRANGEBYSCORE
		ZRANK ZREVRANK ZREMRANGEBYSCORE ZREMRANGEBYRANK ZPOPMIN ZPOPMAX ZSCAN
		XADD XLEN XRANGE XREVRANGE XDEL XTRIM
		DELEX DIGEST DELIFEQ`) {
		m[c] = one
	}
	all := keySpec{first: 1, last: -1, step: 1}
	for _, c := range strings.Fields(`DEL UNLINK EXISTS TOUCH MGET WATCH SINTER SUNION SDIFF`) {
		m[c] = all
	}
	m["MSET"] = keySpec{first: 1, last: -1, step: 2}
	m["MSETNX"] = keySpec{first: 1, last: -1, step: 2}
	m["RENAME"] = keySpec{first: 1, last: 2, step: 1}
	m["RENAMENX"] = keySpec{first: 1, last: 2, step: 1}
	m["SMOVE"] = keySpec{first: 1, last: 2, step: 1}
	m["RPOPLPUSH"] = keySpec{first: 1, last: 2, step: 1}
	m["LMOVE"] = keySpec{first: 1, last: 2, step: 1}
	for _, c := range []string{"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"} {
		m[c] = keySpec{numkeys: 2}
	}
	return m
}()

// clusterKeyless are the commands a cluster node serves whatever its slots:
// they name no key.
var clusterKeyless = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`PING ECHO TIME CLUSTER ASKING READONLY READWRITE MULTI EXEC DISCARD
		UNWATCH SCRIPT CLIENT HELLO QUIT RESET DBSIZE FLUSHALL FLUSHDB KEYS SCAN WAIT PUBLISH SUBSCRIBE
		UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBSUB COMMAND INFO RANDOMKEY SELECT AUTH CONFIG LASTSAVE
		FUNCTION SAVE BGSAVE SWAPDB`) {
		m[c] = true
	}
	return m
}()

// clusterCommandKeys returns the keys of a command (args[0] upper case in
// cmd) and whether the node knows where its keys are.
func clusterCommandKeys(cmd string, args []string) (keys []string, known bool) {
	if clusterKeyless[cmd] {
		return nil, true
	}
	ks, ok := clusterKeySpecs[cmd]
	if !ok {
		return nil, false
	}
	if ks.numkeys > 0 {
		if len(args) <= ks.numkeys {
			return nil, true // miniredis gives the arity error
		}
		n := 0
		for _, ch := range args[ks.numkeys] {
			if ch < '0' || ch > '9' || n > len(args) {
				return nil, true // not a count: miniredis's error
			}
			n = n*10 + int(ch-'0')
		}
		end := ks.numkeys + 1 + n
		if end > len(args) {
			return nil, true
		}
		return args[ks.numkeys+1 : end], true
	}
	last := ks.last
	if last < 0 {
		last = len(args) + last
	}
	for i := ks.first; i <= last && i < len(args); i += ks.step {
		keys = append(keys, args[i])
	}
	return keys, true
}
