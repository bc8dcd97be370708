package script

import (
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua/parse"

	"locksim/sim/resp"
)

// scriptCommand runs EVAL, EVAL_RO, EVALSHA, EVALSHA_RO or SCRIPT for c,
// outside MULTI (or at EXEC). Every error that miniredis writes before it
// touches any state (arity, SCRIPT usage) is left to miniredis itself, so
// the texts and the transaction's dirty flag are its own.
func (c *Conn) scriptCommand(info cmdInfo, args []string) resp.Reply {
	e := c.e
	if !info.arity.ok(len(args) - 1) {
		return e.dispatch(c.peer, args)
	}
	switch info.kind {
	case kindEval:
		if err := checkSource(args[1]); err != nil { // before it is hashed or cached
			return resp.ErrorReply(errLuaParseError(err.Error()))
		}
		s := e.scriptFor(args[1])
		r, ok := e.runScript(c, s, info.readOnly, args[2:])
		if ok {
			// miniredis caches a script only after it ran without error.
			// Past the cache's limit it is not cached (EVALSHA then gets
			// NOSCRIPT and a client falls back to EVAL).
			e.load(s)
		}
		return r
	case kindEvalSHA:
		s, ok := e.loaded[args[1]]
		if !ok {
			return resp.ErrorReply(msgNoScriptFound)
		}
		r, _ := e.runScript(c, s, info.readOnly, args[2:])
		return r
	default:
		return c.scriptSubcommand(args)
	}
}

// scriptSubcommand is SCRIPT LOAD|EXISTS|FLUSH.
func (c *Conn) scriptSubcommand(args []string) resp.Reply {
	e := c.e
	sub, rest := strings.ToLower(args[1]), args[2:]
	switch sub {
	case "load":
		if len(rest) != 1 {
			break
		}
		// miniredis only parses here (chunk name "user_script"); compile
		// errors surface at EVALSHA.
		if err := checkSource(rest[0]); err != nil {
			return resp.ErrorReply("ERR " + err.Error())
		}
		if _, err := parse.Parse(strings.NewReader(rest[0]), "user_script"); err != nil {
			return resp.ErrorReply(toInline(errLuaParseError(err.Error())))
		}
		s := e.scriptFor(rest[0])
		if !e.load(s) {
			return resp.ErrorReply(msgScriptCacheFull(e.loadedBytes, len(s.src)))
		}
		return resp.BulkReply(s.sha)
	case "exists":
		if len(rest) == 0 {
			break
		}
		elems := make([]resp.Reply, len(rest))
		for i, sha := range rest {
			elems[i] = resp.IntReply(0)
			if _, ok := e.loaded[sha]; ok {
				elems[i] = resp.IntReply(1)
			}
		}
		return resp.Reply{Kind: resp.Array, Elems: elems}
	case "flush":
		if len(rest) == 1 && (strings.EqualFold(rest[0], "SYNC") || strings.EqualFold(rest[0], "ASYNC")) {
			rest = rest[1:]
		}
		if len(rest) != 0 {
			break
		}
		e.loaded, e.loadedBytes = map[string]*script{}, 0
		return resp.OK
	}
	return e.dispatch(c.peer, args) // miniredis's usage error
}

// scriptFor returns the cached script with source src, adding it.
func (e *Engine) scriptFor(src string) *script {
	if s, ok := e.bySource[src]; ok {
		return s
	}
	if len(e.bySource) >= maxCompiled || e.bySourceBytes+len(src) > maxEngineScriptBytes {
		e.bySource, e.bySourceBytes = map[string]*script{}, 0
	}
	s := &script{src: src, sha: sha1Hex(src)}
	e.bySource[src] = s
	e.bySourceBytes += len(src)
	return s
}

// load adds s to the scripts EVALSHA sees, unless that would take the
// cache past maxEngineScriptBytes; false then.
func (e *Engine) load(s *script) bool {
	if _, ok := e.loaded[s.sha]; ok {
		return true
	}
	if e.loadedBytes+len(s.src) > maxEngineScriptBytes {
		return false
	}
	e.loaded[s.sha] = s
	e.loadedBytes += len(s.src)
	return true
}

// runScript checks numkeys (first, as miniredis does), compiles s if needed
// and runs it. ok reports whether the script compiled and ran without error.
func (e *Engine) runScript(c *Conn, s *script, readOnly bool, args []string) (resp.Reply, bool) {
	n, err := redisInt(args[0])
	switch {
	case err != nil:
		return resp.ErrorReply(msgInvalidInt), false
	case n < 0:
		return resp.ErrorReply(msgNegativeKeysNumber), false
	case n > len(args)-1:
		return resp.ErrorReply(msgInvalidKeysNumber), false
	}
	return e.execute(c, s, readOnly, args[1:1+n], args[1+n:])
}

// redisInt reads an integer as Redis's string2ll does (numkeys): an
// optional '-', then "0" or digits without a leading zero, within int64
// ("01", "+1" and " 1" are refused; strconv.Atoi, which miniredis uses,
// takes the first two).
func redisInt(s string) (int, error) {
	d := strings.TrimPrefix(s, "-")
	if d == "" || d[0] == '0' && len(s) > 1 || d[0] < '0' || d[0] > '9' { // "01", "-0"
		return 0, strconv.ErrSyntax
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return int(n), err
}
