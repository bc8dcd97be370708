package sim

import (
	"strconv"
	"strings"

	"github.com/alicebob/miniredis/v2/server"
	"github.com/zeebo/xxh3"
)

// The commands and options of newer releases (version.go), which the
// nodes implement themselves in the pre-hook, and the commands a release
// does not have, refused with the real server's reply.
//
// Semantics, from the releases' documentation (no server of those
// releases runs here; testdata/redis84.txt and valkey90.txt hold the
// documented replies, checked by TestDocumentedReleases):
//
//   - SET key value [NX | XX | IFEQ v | IFNE v | IFDEQ d | IFDNE d] [GET]
//     [expiry] (Redis 8.4, redis.io/docs/latest/commands/set/; IFEQ alone
//     in Valkey 8.1, valkey.io/commands/set/): IFEQ sets only if the key
//     holds a string equal to v and never creates it; IFNE sets unless
//     it holds v, creating a missing key; IFDEQ and IFDNE compare the
//     value's DIGEST with d instead. The condition options exclude one
//     another and NX/XX (a syntax error). A key of another type is
//     WRONGTYPE. Not set: nil (with GET, the old value, as NX GET).
//   - DELEX key [IFEQ v | IFNE v | IFDEQ d | IFDNE d] (Redis 8.4,
//     redis.io/docs/latest/commands/delex/): without a condition DEL of
//     one key; with one, 1 if the key held a string meeting it and was
//     removed, else 0; a key of another type is WRONGTYPE.
//   - DIGEST key (Redis 8.4, redis.io/docs/latest/commands/digest/): the
//     XXH3 64-bit hash of the string value as 16 lower-case hex digits
//     (the page's example: "Hello world" is b6acb9d84a38ff74), nil for a
//     missing key, WRONGTYPE for another type.
//   - DELIFEQ key value (Valkey 9.0, valkey.io/commands/delifeq/): 1 if
//     the key held that string and was removed, else 0; WRONGTYPE for
//     another type.
//
// Inside MULTI these are queued (the hook answers QUEUED on the script
// engine's validation peer) and run at EXEC in order (script.Options
// RunsAlone).

// nodeCommands are the commands the pre-hook implements (miniredis has
// DELEX, but only its IFEQ and IFNE; the hook serves all of it).
var nodeCommands = setOf("DELEX", "DIGEST", "DELIFEQ")

// setConditions are SET's comparison options of Redis 8.4.
var setConditions = setOf("IFEQ", "IFNE", "IFDEQ", "IFDNE")

// runsAlone reports whether the hook runs args itself (script.Options
// RunsAlone): a node command, or SET with a comparison option.
func runsAlone(args []string) bool {
	cmd := strings.ToUpper(args[0])
	if nodeCommands[cmd] {
		return true
	}
	if cmd != "SET" {
		return false
	}
	for _, a := range args[min(3, len(args)):] {
		if setConditions[strings.ToUpper(a)] {
			return true
		}
	}
	return false
}

// knownCommand reports whether the release has the command cmd (upper
// case) and the simulated node can run it.
func (n *node) knownCommand(cmd string) bool {
	if !n.w.version.Has(cmd) {
		return false
	}
	return nodeCommands[cmd] || n.srv.IsRegisteredCommand(cmd)
}

// msgUnknownCommand is Redis 7's reply to a command it does not have
// (processCommand): the name and the arguments quoted, at most 128 bytes
// of them, newlines as spaces.
func msgUnknownCommand(name string, args []string) string {
	var b strings.Builder
	for _, a := range args {
		if b.Len() >= 128 {
			break
		}
		a = a[:min(len(a), 128-b.Len())]
		b.WriteString("'" + a + "' ")
	}
	msg := "ERR unknown command '" + name[:min(len(name), 128)] + "', with args beginning with: " + b.String()
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)
}

// KnownCommand reports whether a node modelling release v has the command
// name, for messages that name a script's unknown commands (package
// model's Lua designs). known is what the simulated Redis 7.0 has
// (script.KnownCommand).
func KnownCommand(v Version, name string, known func(string) bool) bool {
	up := strings.ToUpper(name)
	if !v.Has(up) {
		return false
	}
	return nodeCommands[up] || known(name)
}

// wrongArgs is Redis's arity error.
func wrongArgs(cmd string) string {
	return "ERR wrong number of arguments for '" + strings.ToLower(cmd) + "' command"
}

const msgWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"

// digest is DIGEST's reply for a value.
func digest(v string) string {
	s := strconv.FormatUint(xxh3.HashString(v), 16)
	return strings.Repeat("0", 16-len(s)) + s
}

// condition is a parsed comparison option (IFEQ ...), kind "" for none.
type condition struct{ kind, arg string }

// holds reports whether a string value v (exists false: no key) meets c.
// The digest options compare case-insensitively.
func (c condition) holds(v string, exists bool) bool {
	switch c.kind {
	case "IFEQ":
		return exists && v == c.arg
	case "IFNE":
		return !exists || v != c.arg
	case "IFDEQ":
		return exists && strings.EqualFold(digest(v), c.arg)
	case "IFDNE":
		return !exists || !strings.EqualFold(digest(v), c.arg)
	}
	return true
}

// stringValue reads key in the peer's database: the value, whether it
// exists, and whether it holds another type.
func (n *node) stringValue(peer *server.Peer, key string) (v string, exists, wrongType bool) {
	db := n.m.DB(n.lim.dbs[peer])
	if !db.Exists(key) {
		return "", false, false
	}
	if db.Type(key) != "string" {
		return "", true, true
	}
	v, _ = db.Get(key)
	return v, true, false
}

// runNodeCommand serves DELEX, DIGEST and DELIFEQ (cmd upper case) for
// peer; the release has them (knownCommand).
func (n *node) runNodeCommand(c *server.Peer, cmd string, args []string) {
	switch cmd {
	case "DIGEST":
		if len(args) != 1 {
			c.WriteError(wrongArgs(cmd))
			return
		}
	case "DELIFEQ":
		if len(args) != 2 {
			c.WriteError(wrongArgs(cmd))
			return
		}
	case "DELEX":
		if len(args) < 1 {
			c.WriteError(wrongArgs(cmd))
			return
		}
	}
	if n.eng != nil && n.eng.Validating(c) {
		c.WriteInline("QUEUED")
		return
	}
	key := args[0]
	var cond condition
	switch cmd {
	case "DIGEST":
		v, exists, wrong := n.stringValue(c, key)
		switch {
		case wrong:
			c.WriteError(msgWrongType)
		case !exists:
			c.WriteNull()
		default:
			c.WriteBulk(digest(v))
		}
		return
	case "DELIFEQ":
		cond = condition{"IFEQ", args[1]}
	case "DELEX":
		switch {
		case len(args) == 1:
			db := n.m.DB(n.lim.dbs[c])
			if db.Exists(key) {
				db.Del(key)
				c.WriteInt(1)
			} else {
				c.WriteInt(0)
			}
			return
		case len(args) == 3 && setConditions[strings.ToUpper(args[1])]:
			cond = condition{strings.ToUpper(args[1]), args[2]}
		default:
			c.WriteError(msgSyntaxError)
			return
		}
	}
	v, exists, wrong := n.stringValue(c, key)
	switch {
	case wrong:
		c.WriteError(msgWrongType)
	case exists && cond.holds(v, true):
		n.m.DB(n.lim.dbs[c]).Del(key)
		c.WriteInt(1)
	default:
		c.WriteInt(0)
	}
}

// conditionalSet runs a SET whose options (already checked, with its
// expiry) carry a comparison: args after the name, a its options. It
// replies nil (or the old value with GET) when the condition fails, and
// otherwise hands the SET without the comparison to miniredis.
func (n *node) conditionalSet(c *server.Peer, args []string, a setArgs) {
	if n.eng != nil && n.eng.Validating(c) {
		c.WriteInline("QUEUED")
		return
	}
	v, exists, wrong := n.stringValue(c, args[0])
	if wrong {
		c.WriteError(msgWrongType)
		return
	}
	if !a.cond.holds(v, exists) {
		if a.get && exists {
			c.WriteBulk(v)
		} else {
			c.WriteNull()
		}
		return
	}
	out := []string{"SET", args[0], args[1]}
	for j := 2; j < len(args); j++ {
		if setConditions[strings.ToUpper(args[j])] {
			j++ // and its argument
			continue
		}
		out = append(out, args[j])
	}
	n.srv.Dispatch(c, out)
}

// registerNodeCommands makes miniredis's server know the node commands,
// so that scripts see their read-only flag (EVAL_RO refuses DELIFEQ); the
// pre-hook serves them before miniredis would.
func registerNodeCommands(srv *server.Server) {
	unreachable := func(c *server.Peer, cmd string, args []string) {
		c.WriteError("ERR locksim: " + cmd + " reached miniredis")
	}
	if srv.IsRegisteredCommand("DIGEST") {
		return // a recycled instance
	}
	_ = srv.Register("DIGEST", unreachable, server.ReadOnlyOption())
	_ = srv.Register("DELIFEQ", unreachable)
}
