package sim

import (
	"math"
	"strconv"
	"strings"
)

// Rules of Redis 7 that miniredis v2.40.0 does not follow, applied in
// preHook so that they hold for client commands, Lua scripts and MULTI
// alike (checked against redis-server 7.0.15 by the differential tests):
//
//   - which commands are writes: a replica refuses exactly those (Redis's
//     "write" flag), and serves PING, ECHO, EVAL and the other commands
//     without it; a write from a script run on a replica gets READONLY;
//   - SET's options: NX with XX, KEEPTTL with an expiry, and a missing
//     option value are syntax errors; EX twice is allowed (the last wins);
//   - expiry arguments of SET, SETEX, PSETEX, GETEX, EXPIRE, PEXPIRE,
//     EXPIREAT and PEXPIREAT: a value that is not a strict integer ("+5",
//     "05"), and one whose absolute time in milliseconds overflows, are
//     refused with Redis's texts ("ERR invalid expire time in 'set'
//     command"; miniredis says "in set", or accepts an overflowed time);
//   - an expiry more than maxTTLMillis (292 years) away, which Redis keeps
//     but which overflows miniredis's time.Duration (the key would expire
//     at once), is set maxTTLMillis away instead; TTL then reports that.

// writeCommands are the commands miniredis implements that carry Redis 7's
// "write" flag (TestWriteCommandsComplete classifies every other one).
var writeCommands = setOf(
	"APPEND", "BITOP", "BLMOVE", "BLPOP", "BRPOP", "BRPOPLPUSH", "BZMPOP", "BZPOPMAX", "BZPOPMIN",
	"COPY", "DECR", "DECRBY", "DEL", "DELEX", "DELIFEQ", "EXPIRE", "EXPIREAT", "FLUSHALL", "FLUSHDB",
	"GEOADD", "GEORADIUS", "GEORADIUSBYMEMBER", "GETDEL", "GETEX", "GETSET",
	"HDEL", "HEXPIRE", "HINCRBY", "HINCRBYFLOAT", "HMSET", "HPERSIST", "HSET", "HSETEX", "HSETNX",
	"INCR", "INCRBY", "INCRBYFLOAT", "LINSERT", "LMOVE", "LMPOP", "LPOP", "LPUSH", "LPUSHX",
	"LREM", "LSET", "LTRIM", "MOVE", "MSET", "MSETNX", "PERSIST", "PEXPIRE", "PEXPIREAT",
	"PFADD", "PFMERGE", "PSETEX", "RENAME", "RENAMENX", "RESTORE", "RPOP", "RPOPLPUSH", "RPUSH",
	"RPUSHX", "SADD", "SDIFFSTORE", "SET", "SETBIT", "SETEX", "SETNX", "SETRANGE", "SINTERSTORE",
	"SMOVE", "SPOP", "SREM", "SUNIONSTORE", "SWAPDB", "UNLINK",
	"XACK", "XADD", "XAUTOCLAIM", "XCLAIM", "XDEL", "XGROUP", "XREADGROUP", "XTRIM",
	"ZADD", "ZINCRBY", "ZINTERSTORE", "ZMPOP", "ZPOPMAX", "ZPOPMIN", "ZREM", "ZREMRANGEBYLEX",
	"ZREMRANGEBYRANK", "ZREMRANGEBYSCORE", "ZUNIONSTORE",
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// isWriteCommand reports whether cmd (upper case) writes, as Redis 7 flags it.
func isWriteCommand(cmd string) bool { return writeCommands[cmd] }

// maxTTLMillis is the longest TTL miniredis can hold, in milliseconds
// (math.MaxInt64 nanoseconds, about 292 years).
const maxTTLMillis = math.MaxInt64 / int64(1e6)

const (
	msgReadOnlyReplica = "READONLY You can't write against a read only replica."
	msgSyntaxError     = "ERR syntax error"
	msgNotInteger      = "ERR value is not an integer or out of range"
)

func msgInvalidExpire(cmd string) string {
	return "ERR invalid expire time in '" + strings.ToLower(cmd) + "' command"
}

// parseRedisInt is Redis's string2ll: an optional '-', then "0" or digits
// without a leading zero, within int64.
func parseRedisInt(s string) (int64, bool) {
	d := s
	if strings.HasPrefix(d, "-") {
		d = d[1:]
	}
	if d == "" || (d[0] == '0' && (len(d) > 1 || len(s) > 1)) { // "05" and "-0" are refused
		return 0, false
	}
	var v uint64
	for i := 0; i < len(d); i++ {
		c := d[i]
		if c < '0' || c > '9' || v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if s[0] == '-' {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// expireOpt is a parsed expiry option of SET or GETEX.
type expireOpt struct {
	name  string // EX, PX, EXAT or PXAT
	value string
}

// setArgs is SET's or GETEX's options as Redis 7 parses them
// (parseExtendedStringArgumentsOrReply).
type setArgs struct {
	nx, xx, get, keepTTL, persist bool
	cond                          condition // IFEQ ... (a newer release; versioned.go)
	expiry                        expireOpt // the last one, which counts
	expiries                      int       // how many were given
}

// parseSetOptions parses opts (after the key, and the value for SET) the
// way release v does for SET (isSet) or GETEX; ok is false for a syntax
// error. SET's comparison options (IFEQ ...) are options only in the
// releases that have them; NX, XX and they exclude one another.
func parseSetOptions(opts []string, isSet bool, v Version) (a setArgs, ok bool) {
	for j := 0; j < len(opts); j++ {
		opt := strings.ToUpper(opts[j])
		hasNext := j+1 < len(opts)
		exp := a.expiry.name
		free := !a.nx && !a.xx && a.cond.kind == "" // no existence or comparison condition yet
		switch {
		case opt == "NX" && !a.xx && a.cond.kind == "" && isSet: // NX twice is allowed
			a.nx = true
		case opt == "XX" && !a.nx && a.cond.kind == "" && isSet:
			a.xx = true
		case setConditions[opt] && free && isSet && hasNext && v.Has("SET "+opt):
			a.cond = condition{opt, opts[j+1]}
			j++
		case opt == "GET" && isSet:
			a.get = true
		case opt == "KEEPTTL" && !a.persist && exp == "" && isSet:
			a.keepTTL = true
		case opt == "PERSIST" && !isSet && exp == "" && !a.keepTTL:
			a.persist = true
		case (opt == "EX" || opt == "PX" || opt == "EXAT" || opt == "PXAT") &&
			!a.keepTTL && !a.persist && (exp == "" || exp == opt) && hasNext:
			a.expiry = expireOpt{opt, opts[j+1]}
			a.expiries++
			j++
		default:
			return a, false
		}
	}
	return a, true
}

// expireMillis is Redis's getExpireMillisecondsOrReply: the absolute expiry
// in milliseconds, or the error text.
func expireMillis(cmd string, e expireOpt, nowMs int64) (int64, string) {
	v, ok := parseRedisInt(e.value)
	if !ok {
		return 0, msgNotInteger
	}
	seconds := e.name == "EX" || e.name == "EXAT"
	if v <= 0 || (seconds && v > math.MaxInt64/1000) {
		return 0, msgInvalidExpire(cmd)
	}
	if seconds {
		v *= 1000
	}
	if e.name == "EX" || e.name == "PX" {
		if v > math.MaxInt64-nowMs {
			return 0, msgInvalidExpire(cmd)
		}
		v += nowMs
	}
	return v, ""
}

// checkRedisRules applies the rules above to cmd and args (after the
// name). It returns an error text to reply with, or replacement arguments
// (with the name) that miniredis reads as Redis reads args, or neither;
// isCond reports a valid SET with a comparison option, which the node
// runs itself (conditionalSet) with the options it stored in *cond.
func (n *node) checkRedisRules(ci *cmdInfo, cmd string, args []string, cond *setArgs) (errText string, replace []string, isCond bool) {
	errText, replace = n.redisRules(ci, cmd, args, cond)
	return errText, replace, errText == "" && cond.cond.kind != ""
}

func (n *node) redisRules(ci *cmdInfo, cmd string, args []string, cond *setArgs) (errText string, replace []string) {
	if n.role == roleReplica && ci.write {
		return msgReadOnlyReplica, nil
	}
	if ci.write && n.refusesWrites() {
		return msgNoReplicas, nil // min-replicas-to-write (minreplicas.go)
	}
	nowMs := n.w.wall(n.clock).UnixMilli()
	switch cmd {
	case "SET", "GETEX":
		isSet := cmd == "SET"
		fixed := 1
		if isSet {
			fixed = 2
		}
		if len(args) < fixed {
			return "", nil // miniredis's arity error
		}
		a, ok := parseSetOptions(args[fixed:], isSet, n.w.version)
		if !ok {
			return msgSyntaxError, nil
		}
		if a.cond.kind != "" {
			*cond = a
		}
		if a.expiries == 0 {
			return "", nil
		}
		e := a.expiry
		at, msg := expireMillis(cmd, e, nowMs)
		if msg != "" {
			return msg, nil
		}
		tooFar := at-nowMs > maxTTLMillis
		if a.expiries > 1 || tooFar { // miniredis refuses a repeated option
			out := append([]string{cmd}, args[:fixed]...)
			for _, o := range args[fixed:] {
				if u := strings.ToUpper(o); u == "NX" || u == "XX" || u == "GET" || u == "KEEPTTL" || u == "PERSIST" {
					out = append(out, o)
				}
			}
			if tooFar {
				return "", append(out, "PX", strconv.FormatInt(maxTTLMillis, 10))
			}
			return "", append(out, e.name, e.value)
		}
	case "SETEX", "PSETEX":
		if len(args) != 3 {
			return "", nil
		}
		name := "EX"
		if cmd == "PSETEX" {
			name = "PX"
		}
		at, msg := expireMillis(cmd, expireOpt{name, args[1]}, nowMs)
		if msg != "" {
			return msg, nil
		}
		if at-nowMs > maxTTLMillis {
			return "", []string{"PSETEX", args[0], strconv.FormatInt(maxTTLMillis, 10), args[2]}
		}
	case "EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT":
		if len(args) < 2 {
			return "", nil
		}
		v, ok := parseRedisInt(args[1])
		if !ok {
			return msgNotInteger, nil // miniredis reads "+5" and "05" as 5
		}
		var base int64
		if cmd == "EXPIRE" || cmd == "PEXPIRE" {
			base = nowMs
		}
		if cmd == "EXPIRE" || cmd == "EXPIREAT" {
			if v > math.MaxInt64/1000 || v < math.MinInt64/1000 {
				return msgInvalidExpire(cmd), nil
			}
			v *= 1000
		}
		if v > math.MaxInt64-base {
			return msgInvalidExpire(cmd), nil
		}
		if v+base-nowMs > maxTTLMillis {
			return "", append([]string{"PEXPIRE", args[0], strconv.FormatInt(maxTTLMillis, 10)}, args[2:]...)
		}
	}
	return "", nil
}
