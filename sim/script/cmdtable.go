package script

import "strings"

// kind classifies a command name for Conn.Do and for redis.call.
type kind uint8

const (
	kindPlain      kind = iota // dispatched to miniredis as is
	kindEval                   // EVAL, EVAL_RO
	kindEvalSHA                // EVALSHA, EVALSHA_RO
	kindScript                 // SCRIPT
	kindMulti                  // MULTI
	kindExec                   // EXEC
	kindDiscard                // DISCARD
	kindUnwatch                // UNWATCH
	kindSelect                 // SELECT
	kindBlocking               // blocks, or starts goroutines, in miniredis
	kindSubscribe              // (P)SUBSCRIBE: starts goroutines in miniredis
	kindStreamRead             // XREAD, XREADGROUP: blocking with a BLOCK option
	kindNoScript               // refused inside scripts, fine outside
)

// arity is a command's argument count rule (arguments after the name), as
// miniredis's isValidCMD checks it before anything else.
type arity struct{ min, max int } // max < 0: no maximum

func (a arity) ok(n int) bool { return n >= a.min && (a.max < 0 || n <= a.max) }

type cmdInfo struct {
	kind kind
	// arity is checked before a script is refused the command, so that a
	// script gets miniredis's arity error first, as from a nested call.
	arity arity
	// readOnly marks EVAL_RO and EVALSHA_RO.
	readOnly bool
}

// commands holds every command name that is not simply dispatched. Keys are
// upper case. The table is read only after package initialisation.
var commands = map[string]cmdInfo{
	"EVAL":       {kind: kindEval, arity: arity{2, -1}},
	"EVAL_RO":    {kind: kindEval, arity: arity{2, -1}, readOnly: true},
	"EVALSHA":    {kind: kindEvalSHA, arity: arity{2, -1}},
	"EVALSHA_RO": {kind: kindEvalSHA, arity: arity{2, -1}, readOnly: true},
	"SCRIPT":     {kind: kindScript, arity: arity{1, -1}},
	"MULTI":      {kind: kindMulti, arity: arity{0, 0}},
	"EXEC":       {kind: kindExec, arity: arity{0, 0}},
	"DISCARD":    {kind: kindDiscard, arity: arity{0, 0}},
	"UNWATCH":    {kind: kindUnwatch, arity: arity{0, 0}},
	"SELECT":     {kind: kindSelect, arity: arity{1, 1}},

	"WATCH":        {kind: kindNoScript, arity: arity{1, -1}},
	"AUTH":         {kind: kindNoScript, arity: arity{1, 2}},
	"UNSUBSCRIBE":  {kind: kindNoScript, arity: arity{0, -1}},
	"PUNSUBSCRIBE": {kind: kindNoScript, arity: arity{0, -1}},
	"WAIT":         {kind: kindNoScript, arity: arity{2, 2}},
	"QUIT":         {kind: kindNoScript, arity: arity{0, -1}}, // Redis 7 refuses it in scripts; miniredis runs it

	"SUBSCRIBE":  {kind: kindSubscribe, arity: arity{1, -1}},
	"PSUBSCRIBE": {kind: kindSubscribe, arity: arity{1, -1}},

	"BLPOP":      {kind: kindBlocking, arity: arity{2, -1}},
	"BRPOP":      {kind: kindBlocking, arity: arity{2, -1}},
	"BRPOPLPUSH": {kind: kindBlocking, arity: arity{3, 3}},
	"BLMOVE":     {kind: kindBlocking, arity: arity{5, 5}},
	"BZPOPMIN":   {kind: kindBlocking, arity: arity{2, -1}},
	"BZPOPMAX":   {kind: kindBlocking, arity: arity{2, -1}},
	"BZMPOP":     {kind: kindBlocking, arity: arity{4, -1}},

	"XREAD":      {kind: kindStreamRead, arity: arity{3, -1}},
	"XREADGROUP": {kind: kindStreamRead, arity: arity{6, -1}},
}

// maxCmdLen bounds the names looked up in commands; longer names are plain.
const maxCmdLen = 16

// lookup classifies args[0] without allocating: it upper-cases the name into
// buf and indexes the table with a converted byte slice.
func lookup(name string, buf *[maxCmdLen]byte) (cmdInfo, bool) {
	if len(name) > maxCmdLen {
		return cmdInfo{}, false
	}
	b := buf[:len(name)]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		b[i] = c
	}
	info, ok := commands[string(b)]
	return info, ok
}

// hasBlockOption reports whether an XREAD or XREADGROUP has a BLOCK option
// before its STREAMS list.
func hasBlockOption(args []string) bool {
	for _, a := range args[1:] {
		if strings.EqualFold(a, "STREAMS") {
			return false
		}
		if strings.EqualFold(a, "BLOCK") {
			return true
		}
	}
	return false
}

// wouldBlock reports whether a command, run outside MULTI, would block or
// start goroutines in miniredis. Commands with the wrong arity fail in
// miniredis before that, so they are let through for its error.
func wouldBlock(info cmdInfo, args []string) bool {
	switch info.kind {
	case kindBlocking, kindSubscribe:
		return info.arity.ok(len(args) - 1)
	case kindStreamRead:
		return info.arity.ok(len(args)-1) && hasBlockOption(args)
	}
	return false
}

// refusedInScript reports whether a script's redis.call of args must get
// miniredis's "not allowed from script" error instead of being dispatched.
// Miniredis checks the arity first, so a wrong arity is dispatched for its
// error.
func refusedInScript(info cmdInfo, args []string) bool {
	switch info.kind {
	case kindEval, kindEvalSHA, kindScript, kindMulti, kindExec, kindNoScript,
		kindSubscribe, kindBlocking:
		return info.arity.ok(len(args) - 1)
	case kindStreamRead:
		return info.arity.ok(len(args)-1) && hasBlockOption(args)
	}
	return false
}
