package sim

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// TestSetOptionsAsRedis: SET's options and the expiry arguments of SET,
// SETEX, PSETEX, GETEX and the EXPIRE family are read as redis-server
// 7.0.15 reads them (replies recorded from it; the differential test in
// realredis_test.go checks them against a live server).
func TestSetOptionsAsRedis(t *testing.T) {
	expire := func(cmd string) string { return "ERR invalid expire time in '" + cmd + "' command" }
	runSteps(t, oneNode(), []step{
		{args: cmdArgs("SET", "k", "v", "EX", "10", "EX", "20"), want: "OK"},
		{args: cmdArgs("PTTL", "k"), want: "(integer) 19996"}, // the last EX counts (4 ms of latency later)
		{args: cmdArgs("SET", "k", "v", "NX", "XX"), wantErr: "ERR syntax error"},
		{args: cmdArgs("SET", "k", "v", "XX", "NX"), wantErr: "ERR syntax error"},
		{args: cmdArgs("SET", "k", "v", "nx", "NX"), want: "(nil)"},
		{args: cmdArgs("SET", "k", "v", "EX", "0"), wantErr: expire("set")},
		{args: cmdArgs("SET", "k", "v", "PX", "-5"), wantErr: expire("set")},
		{args: cmdArgs("SET", "k", "v", "EX", "9223372036854776"), wantErr: expire("set")},
		{args: cmdArgs("SET", "k", "v", "EX", "9223372036854775"), wantErr: expire("set")},
		{args: cmdArgs("SET", "k", "v", "PX", "9223372036854775807"), wantErr: expire("set")},
		{args: cmdArgs("SET", "k", "v", "PX", "9223372036854775"), want: "OK"},
		{args: cmdArgs("EXISTS", "k"), want: "(integer) 1"}, // 292,000 years: miniredis expired it at once
		{args: cmdArgs("EXPIRE", "k", "922337203685477"), want: "(integer) 1"},
		{args: cmdArgs("EXISTS", "k"), want: "(integer) 1"},
		{args: cmdArgs("SET", "k", "v", "EXAT", "9223372036854776"), wantErr: expire("set")},
		{args: cmdArgs("SET", "k", "v", "KEEPTTL", "EX", "10"), wantErr: "ERR syntax error"},
		{args: cmdArgs("SET", "k", "v", "EX", "10", "KEEPTTL"), wantErr: "ERR syntax error"},
		{args: cmdArgs("SET", "k", "v", "PX", "10", "EX", "10"), wantErr: "ERR syntax error"},
		{args: cmdArgs("SET", "k", "v", "EX"), wantErr: "ERR syntax error"},
		{args: cmdArgs("SET", "k", "v", "EX", "+5"), wantErr: "ERR value is not an integer or out of range"},
		{args: cmdArgs("SET", "k", "v", "EX", "05"), wantErr: "ERR value is not an integer or out of range"},
		{args: cmdArgs("SET", "k", "v", "NX", "GET"), want: `"v"`},
		{args: cmdArgs("SET", "k", "v", "KEEPTTL", "KEEPTTL"), want: "OK"},
		{args: cmdArgs("SETEX", "k", "0", "v"), wantErr: expire("setex")},
		{args: cmdArgs("SETEX", "k", "9223372036854775", "v"), wantErr: expire("setex")},
		{args: cmdArgs("PSETEX", "k", "9223372036854775807", "v"), wantErr: expire("psetex")},
		{args: cmdArgs("GETEX", "k", "EX", "0"), wantErr: expire("getex")},
		{args: cmdArgs("GETEX", "k", "PX", "9223372036854775807"), wantErr: expire("getex")},
		{args: cmdArgs("GETEX", "k", "NX"), wantErr: "ERR syntax error"},
		{args: cmdArgs("EXPIRE", "k", "9223372036854775"), wantErr: expire("expire")},
		{args: cmdArgs("PEXPIRE", "k", "9223372036854775807"), wantErr: expire("pexpire")},
		{args: cmdArgs("EXPIREAT", "k", "9223372036854775807"), wantErr: expire("expireat")},
		{args: cmdArgs("EXPIRE", "k", "-1"), want: "(integer) 1"},
		{args: cmdArgs("EXISTS", "k"), want: "(integer) 0"},
		// The same rules for scripts.
		{args: cmdArgs("EVAL", "return redis.pcall('SET', 'k', 'v', 'NX', 'XX')", "0"), wantErr: "ERR syntax error"},
		{args: cmdArgs("EVAL", "return redis.pcall('SET', 'k', 'v', 'PX', '9223372036854775807')", "0"), wantErr: expire("set")},
	})
}

// TestReplicaServes: a replica serves reads, PING, ECHO and scripts that
// only read, as Redis 7 does, and refuses writes with READONLY, also from
// inside a script and at MULTI's queue time.
func TestReplicaServes(t *testing.T) {
	cfg := oneNode()
	cfg.Nodes = append(cfg.Nodes, NodeConfig{Name: "r2"})
	cfg.Groups = []GroupConfig{{Name: "m1", Primary: "r1", Replicas: []string{"r2"}}}
	const readOnly = "READONLY You can't write against a read only replica."
	get := "return redis.call('GET', KEYS[1])"
	runSteps(t, cfg, []step{
		{args: cmdArgs("SET", "k", "v"), want: "OK"},
		{target: "r2", args: cmdArgs("PING"), want: "PONG", sleep: 50 * time.Millisecond},
		{target: "r2", args: cmdArgs("ECHO", "hi"), want: `"hi"`},
		{target: "r2", args: cmdArgs("GET", "k"), want: `"v"`},
		{target: "r2", args: cmdArgs("ZRANGEBYSCORE", "z", "0", "1"), want: "[]"},
		{target: "r2", args: cmdArgs("EVAL", get, "1", "k"), want: `"v"`},
		{target: "r2", args: cmdArgs("EVAL_RO", get, "1", "k"), want: `"v"`},
		{target: "r2", args: cmdArgs("EVALSHA", sha1Hex(get), "1", "k"), want: `"v"`},
		{target: "r2", args: cmdArgs("EVAL", "return redis.call('SET', KEYS[1], 'x')", "1", "k"), wantErr: readOnly},
		{target: "r2", args: cmdArgs("EVAL", "return redis.pcall('DEL', KEYS[1])", "1", "k"), wantErr: readOnly},
		{target: "r2", args: cmdArgs("SET", "k", "x"), wantErr: readOnly},
		{target: "r2", args: cmdArgs("MULTI"), want: "OK"},
		{target: "r2", args: cmdArgs("GET", "k"), want: "QUEUED"},
		{target: "r2", args: cmdArgs("INCR", "n"), wantErr: readOnly},
		{target: "r2", args: cmdArgs("EXEC"), wantErr: "EXECABORT"},
		{target: "r2", args: cmdArgs("MULTI"), want: "OK"},
		{target: "r2", args: cmdArgs("GET", "k"), want: "QUEUED"},
		{target: "r2", args: cmdArgs("EXEC"), want: `["v"]`},
		{target: "r2", args: cmdArgs("GET", "k"), want: `"v"`},
	})
}

func sha1Hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

// allMiniredisCommands is every command miniredis v2.40.0 registers.
var allMiniredisCommands = strings.Fields(`CLIENT CLUSTER AUTH ECHO HELLO PING QUIT SELECT SWAPDB COPY DEL DUMP EXISTS
EXPIRE EXPIREAT EXPIRETIME PEXPIRETIME KEYS MOVE PERSIST PEXPIRE PEXPIREAT PTTL RANDOMKEY RENAME RENAMENX RESTORE
TOUCH TTL TYPE SCAN UNLINK WAIT GEOADD GEODIST GEOPOS GEORADIUS GEORADIUS_RO GEORADIUSBYMEMBER
GEORADIUSBYMEMBER_RO GEOSEARCH HDEL HEXISTS HGET HGETALL HINCRBY HINCRBYFLOAT HKEYS HLEN HMGET HMSET HSET HSETNX
HSTRLEN HVALS HSCAN HRANDFIELD HEXPIRE HPERSIST HTTL HPTTL HSETEX PFADD PFCOUNT PFMERGE BLPOP BRPOP BRPOPLPUSH
LINDEX LPOS LINSERT LLEN LMPOP LPOP LPUSH LPUSHX LRANGE LREM LSET LTRIM RPOP RPOPLPUSH RPUSH RPUSHX LMOVE BLMOVE
OBJECT SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBLISH PUBSUB EVAL EVAL_RO EVALSHA EVALSHA_RO SCRIPT COMMAND
DBSIZE FLUSHALL FLUSHDB INFO TIME MEMORY SADD SCARD SDIFF SDIFFSTORE SINTERCARD SINTER SINTERSTORE SISMEMBER
SMEMBERS SMISMEMBER SMOVE SPOP SRANDMEMBER SREM SUNION SUNIONSTORE SSCAN BZMPOP BZPOPMAX BZPOPMIN ZADD ZCARD ZCOUNT
ZINCRBY ZINTER ZINTERSTORE ZLEXCOUNT ZRANGE ZRANGEBYLEX ZRANGEBYSCORE ZRANK ZREM ZREMRANGEBYLEX ZREMRANGEBYRANK
ZREMRANGEBYSCORE ZREVRANGE ZREVRANGEBYLEX ZREVRANGEBYSCORE ZREVRANK ZSCORE ZMSCORE ZMPOP ZUNION ZUNIONSTORE ZSCAN
ZPOPMAX ZPOPMIN ZRANDMEMBER XADD XLEN XREAD XRANGE XREVRANGE XGROUP XINFO XREADGROUP XACK XDEL XPENDING XTRIM
XAUTOCLAIM XCLAIM APPEND BITCOUNT BITOP BITPOS DECRBY DECR DELEX GETBIT GETDEL GETEX GET GETRANGE GETSET
INCRBYFLOAT INCRBY INCR MGET MSET MSETNX PSETEX SETBIT SETEX SET SETNX SETRANGE STRLEN DISCARD EXEC MULTI UNWATCH
WATCH`)

// TestWriteCommandsComplete: every miniredis command is classified; the
// ones miniredis marks read-only are not writes, and the write table names
// only commands miniredis has.
func TestWriteCommandsComplete(t *testing.T) {
	m := miniredis.NewMiniRedis()
	if _, err := m.Dial(); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	srv := m.Server()
	registerNodeCommands(srv)
	for c := range nodeCommands {
		if !srv.IsRegisteredCommand(c) {
			t.Errorf("%s: a node command the server does not know (registerNodeCommands)", c)
		}
		if srv.IsReadOnlyCommand(c) == isWriteCommand(c) {
			t.Errorf("%s: the server's read-only flag and writeCommands disagree", c)
		}
	}
	for _, c := range allMiniredisCommands {
		if !srv.IsRegisteredCommand(c) {
			t.Errorf("%s: not a miniredis command (the list is out of date)", c)
		}
		if srv.IsReadOnlyCommand(c) && isWriteCommand(c) {
			t.Errorf("%s: read-only in miniredis, a write in writeCommands", c)
		}
	}
	known := setOf(append(allMiniredisCommands, "DIGEST", "DELIFEQ")...)
	for c := range writeCommands {
		if !known[c] {
			t.Errorf("%s: in writeCommands but not a miniredis command", c)
		}
	}
}
