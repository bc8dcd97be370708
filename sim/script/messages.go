package script

import (
	"fmt"
	"strings"
	"unicode"
)

// Error texts copied from miniredis v2.40.0 (redis.go, lua.go,
// cmd_scripting.go) so that the fast path replies byte for byte as
// miniredis's own EVAL does.
const (
	msgInvalidInt         = "ERR value is not an integer or out of range"
	msgInvalidKeysNumber  = "ERR Number of keys can't be greater than number of args"
	msgNegativeKeysNumber = "ERR Number of keys can't be negative"
	msgNoScriptFound      = "NOSCRIPT No matching script. Please use EVAL."
	msgExecAbort          = "EXECABORT Transaction discarded because of previous errors."
	msgReadOnlyScript     = "Write commands are not allowed in read-only scripts"
	msgUnknownFromPcall   = "ERR Unknown Redis command called from script"
	msgWrongArgs          = "wrong number or type of arguments"
	msgWrongNumberOfArgs  = "wrong number of arguments"
	msgRespVersion        = "RESP version must be 2 or 3"

	// msgReadOnlyTable is raised when a script writes to a library table
	// (redis, string, math, ...). The text is Redis 7's.
	msgReadOnlyTable = "Attempt to modify a readonly table"
)

// msgNotFromScripts is miniredis's reply to a command a script may not run.
func msgNotFromScripts(sha string) string {
	return fmt.Sprintf("This Redis command is not allowed from script script: %s, &c", sha)
}

func msgUnknownFromCall(sha string) string {
	return fmt.Sprintf("Unknown Redis command called from script script: %s, &c.", sha)
}

func msgNoArgs(sha string) string {
	return fmt.Sprintf("Please specify at least one argument for this redis lib call script: %s, &c.", sha)
}

func msgBadArgType(sha string) string {
	return fmt.Sprintf("Lua redis lib command arguments must be strings or integers script: %s, &c.", sha)
}

// errLuaParseError is miniredis's prefix for every compile and run error.
func errLuaParseError(msg string) string {
	return fmt.Sprintf("ERR Error compiling script (new function): %s", msg)
}

// msgBudget is the error of a script that ran out of instructions. Real
// Redis would keep running it and answer BUSY to other clients.
func msgBudget(sha string, limit int64) string {
	return fmt.Sprintf("ERR Error running script (call to f_%s): script exceeded the instruction budget of %d (limits: max-script-instructions)", sha, limit)
}

// msgMemory is the error of a script that allocated more than its memory
// budget (Options.MaxMemory). Real Redis grows its Lua heap until
// maxmemory or the machine's memory runs out.
func msgMemory(sha string, limit int64) string {
	return fmt.Sprintf("ERR Error running script (call to f_%s): script exceeded the memory budget of %d bytes (limits: max-script-bytes)", sha, limit)
}

// msgScriptCacheFull is SCRIPT LOAD's reply when the node's script cache
// is full. Real Redis keeps every script until SCRIPT FLUSH.
func msgScriptCacheFull(have, more int) string {
	return fmt.Sprintf("ERR locksim: the node's scripts hold %d bytes; %d more exceed the limit of %d bytes (limits: max-script-cache-bytes)", have, more, maxEngineScriptBytes)
}

// msgGoPanic is the error of a script during which Go code panicked.
func msgGoPanic(sha string, detail string) string {
	return fmt.Sprintf("ERR Error running script (call to f_%s): internal error: %s", sha, detail)
}

// msgNotSimulated is the reply to commands that would block or start
// goroutines inside miniredis, which a deterministic simulation cannot allow.
func msgNotSimulated(cmd string) string {
	return fmt.Sprintf("ERR locksim: '%s' blocks or starts goroutines in miniredis and is not supported on a simulated node", strings.ToLower(cmd))
}

// toInline is server.toInline from miniredis: error and status replies have
// every Unicode space turned into ' ' (and, through strings.Map, invalid
// UTF-8 bytes into U+FFFD).
func toInline(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s)
}
