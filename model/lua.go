package model

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pkg/errors"
	"github.com/yuin/gopher-lua/parse"

	"locksim/internal/bounded"
	"locksim/sim"
	"locksim/sim/resp"
	luascript "locksim/sim/script"
)

// LuaDesignID is the design ID of a user's Lua scripts.
const LuaDesignID = "lua"

// LuaScripts is a user's lock design written as Redis Lua scripts.
//
// Conventions, for every script:
//
//	KEYS[1]  the lock key             ARGV[1]  this acquisition's random value
//	KEYS[2]  the fencing token key    ARGV[2]  the TTL in milliseconds
//
// Acquire returns a positive integer or the status OK when the lock was
// taken on that node, and 0 or nil when it is held by someone else; when
// the resource is fenced, the integer is the fencing token. Release's reply is ignored. Renew (optional:
// with it, the framework runs a watchdog every ttl/3) returns 1 when the
// lease was extended. With Masters > 1 the scripts run on every master and
// the lock is held with Quorum successes and a positive validity computed
// as redlock does; a token is then the largest returned.
//
// A real-world script keeps its own conventions: AcquireArgs, ReleaseArgs
// and RenewArgs say what goes in its KEYS and ARGV (see ArgMap), and Held
// how its acquire reply means taken (HeldNil for Redisson's, which returns
// nil when it took the lock and the holder's PTTL when it did not).
type LuaScripts struct {
	Acquire, Release, Renew             string
	AcquireFile, ReleaseFile, RenewFile string
	AcquireArgs, ReleaseArgs, RenewArgs ArgMap `json:",omitempty"`
	Held                                Held   `json:",omitempty"`
}

// LuaFileLimit bounds a Lua script file (limits: max-script-source-bytes,
// the most source EVAL runs): LoadLua reads at most that much of whatever
// the path names, a file, a pipe or a device.
var LuaFileLimit = bounded.Limit{What: "a Lua script", Bytes: luascript.MaxScriptBytes, Name: "max-script-source-bytes"}

// LoadLua reads and syntax-checks the scripts; renew may be "". Errors
// name the file and line.
func LoadLua(acquire, release, renew string) (*LuaScripts, error) {
	s := &LuaScripts{AcquireFile: acquire, ReleaseFile: release, RenewFile: renew}
	for _, f := range []struct {
		path string
		dst  *string
	}{{acquire, &s.Acquire}, {release, &s.Release}, {renew, &s.Renew}} {
		if f.path == "" {
			continue
		}
		b, err := LuaFileLimit.ReadFile(f.path)
		var le *bounded.Error
		if errors.As(err, &le) {
			return nil, err
		}
		if err != nil {
			return nil, errors.Wrap(err, "reading lua script")
		}
		*f.dst = string(b)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// Validate checks that acquire and release are present and every script
// parses.
func (s *LuaScripts) Validate() error {
	if strings.TrimSpace(s.Acquire) == "" {
		return errors.New("lua design: the acquire script is empty")
	}
	if strings.TrimSpace(s.Release) == "" {
		return errors.New("lua design: the release script is empty")
	}
	for _, c := range []struct{ name, src string }{
		{orName(s.AcquireFile, "acquire.lua"), s.Acquire},
		{orName(s.ReleaseFile, "release.lua"), s.Release},
		{orName(s.RenewFile, "renew.lua"), s.Renew},
	} {
		if c.src == "" {
			continue
		}
		if _, err := parse.Parse(strings.NewReader(c.src), c.name); err != nil {
			return errors.Errorf("lua design: %s: %s", c.name, syntaxMessage(err, c.src))
		}
	}
	return nil
}

// syntaxMessage words a gopher-lua parse error for a person: "syntax
// error at line 3, column 7, near 'end'", or at the end of the script.
func syntaxMessage(err error, src string) string {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return oneLine(err.Error())
	}
	msg := oneLine(pe.Message)
	if pe.Pos.Line == parse.EOF {
		lines := strings.Count(strings.TrimRight(src, "\n"), "\n") + 1
		return msg + " at the end of the script (it ends early, after line " + strconv.Itoa(lines) + ")"
	}
	return msg + " at line " + strconv.Itoa(pe.Pos.Line) + ", column " + strconv.Itoa(pe.Pos.Column) + ", near '" + oneLine(pe.Token) + "'"
}

func orName(f, def string) string {
	if f == "" {
		return def
	}
	return f
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// scriptLine finds the ":N:" line position miniredis puts in script errors.
var scriptLine = regexp.MustCompile(`(?:<string>|user_script)?:(\d+):`)

// scriptMessage turns a script error reply into a message naming the file
// and line: miniredis words run-time errors as "Error compiling script"
// and gives the line without the file.
//
// The script's own words are quoted by a bounded prefix: the reply is read
// through its first few KiB (the wording miniredis puts around them is
// shorter) and the message keeps bounded.MaxQuote bytes of what the
// script said, however long its error.
func scriptMessage(file, src, reply string, v sim.Version) string {
	const head = 4 << 10
	more := 0
	if len(reply) > head {
		reply, more = reply[:head], len(reply)-head
	}
	msg := oneLine(reply)
	if budget.MatchString(msg) {
		return "run-time error: the script did not finish within " + budget.FindStringSubmatch(msg)[1] +
			" Lua instructions, an endless loop? (limits: max-script-instructions)"
	}
	msg = strings.Replace(msg, "ERR Error compiling script (new function): ", "run-time error: ", 1)
	msg = strings.Replace(msg, "ERR Error running script ", "run-time error ", 1)
	msg = callSHA.ReplaceAllString(msg, "")
	msg, _, traceback := strings.Cut(msg, " stack traceback:")
	if traceback {
		more = 0 // what was cut is the traceback's
	}
	msg = scriptSHA.ReplaceAllString(msg, "")
	msg = oneLine(scriptLine.ReplaceAllString(msg, " line $1:"))
	unknown := strings.Contains(msg, "Unknown Redis command called from script")
	// What the script said follows the position ("run-time error line
	// 3: "): keep its first MaxQuote bytes.
	keep := 0
	if loc := scriptPos.FindStringIndex(msg); loc != nil {
		keep = loc[1]
	}
	words := msg[keep:]
	msg = msg[:keep] + bounded.ClipPrefix(words, len(words)+more)
	if unknown {
		msg += bounded.Clip(unknownCommands(src, v))
	}
	return msg
}

// scriptPos matches the start of a script error message up to the
// script's own words: "run-time error line 3: ".
var scriptPos = regexp.MustCompile(`^.{0,60}?line \d+: `)

// callSHA matches "(call to f_<sha>)", the function name Redis gives a
// script in run-time errors: the file name says it better.
var callSHA = regexp.MustCompile(`\s*\(call to f_[0-9a-f]{40}\)`)

// redisCall matches a literal command name in redis.call or redis.pcall.
var redisCall = regexp.MustCompile(`redis\.p?call\s*\(\s*['"]([A-Za-z_|.-]+)['"]`)

// unknownCommands names the literal commands of src that release v does
// not have, which Redis's error leaves out.
func unknownCommands(src string, v sim.Version) string {
	var bad []string
	for _, m := range redisCall.FindAllStringSubmatch(src, -1) {
		if !sim.KnownCommand(v, m[1], luascript.KnownCommand) && !slices.Contains(bad, m[1]) {
			bad = append(bad, m[1])
		}
	}
	if len(bad) == 0 {
		return " (the command name is computed at run time: check what the script passes to redis.call)"
	}
	return " (" + strings.Join(bad, ", ") + ": no such command in " + v.String() + ")"
}

// budget matches the instruction-budget error of package sim/script.
var budget = regexp.MustCompile(`script exceeded the instruction budget of (\d+)`)

// scriptSHA matches the script's SHA that miniredis appends to some errors.
var scriptSHA = regexp.MustCompile(`\s*script: [0-9a-f]{40}, &c\.`)

// ScriptError is a Lua runtime error or a reply of the wrong type; it
// stops the run, since a design that errors cannot be judged.
type ScriptError struct {
	File, Msg string
}

func (e *ScriptError) Error() string { return "lua design: " + e.File + ": " + e.Msg }

type luaDesign struct {
	s      *LuaScripts
	fenced bool // an integer reply is a fencing token
}

func (luaDesign) Name() string { return LuaDesignID }

func (d luaDesign) eval(c *Client, g, file, src string, m ArgMap, value string) (resp.Reply, error) {
	r, err := c.CallTimeout(g, c.opts.CallTimeout, append([]string{"EVAL", src}, m.args(c, value)...)...)
	if err != nil {
		return r, err
	}
	if r.IsError() {
		return r, &ScriptError{File: file, Msg: scriptMessage(file, src, r.Str, c.Ctx().Server())}
	}
	return r, nil
}

// acquiredReply interprets an acquire script's reply: OK (SET's status
// or the string 'OK' a script returns) or a positive token when acquired,
// 0 or nil when not; anything else is a contract error. Under HeldNil, nil
// means acquired and any other reply that it is held.
func acquiredReply(r resp.Reply, file string, held Held) (bool, int64, error) {
	if held == HeldNil {
		return r.IsNil(), 0, nil
	}
	switch {
	case r.Kind == resp.Status:
		return r.Str == "OK", 0, nil
	case r.Kind == resp.Bulk && r.Str == "OK":
		return true, 0, nil
	case r.Kind == resp.Int && r.Int > 0:
		return true, r.Int, nil
	case r.Kind == resp.Int && r.Int == 0, r.Kind == resp.NilBulk, r.Kind == resp.NilArray:
		return false, 0, nil
	}
	return false, 0, &ScriptError{File: file, Msg: "acquire returned " + r.Short() + "; want a positive integer (a fencing token) or OK when acquired, 0 or nil when not"}
}

func (d luaDesign) TryAcquire(c *Client, value string) (Lease, bool, error) {
	o := c.opts
	file := orName(d.s.AcquireFile, "acquire.lua")
	start := c.Now()
	var granted []string
	var token int64
	for _, g := range luaMasters(c) {
		node := c.Primary(g)
		r, err := d.eval(c, g, file, d.s.Acquire, d.s.AcquireArgs, value)
		if se, ok := err.(*ScriptError); ok {
			return Lease{}, false, se
		}
		if err != nil {
			if len(luaMasters(c)) == 1 {
				return Lease{}, false, err
			}
			continue
		}
		ok, tok, err := acquiredReply(r, file, d.s.Held)
		if err != nil {
			return Lease{}, false, err
		}
		if ok {
			granted = append(granted, node)
			token = max(token, tok)
		}
	}
	if len(luaMasters(c)) == 1 {
		if len(granted) == 0 {
			return Lease{}, false, nil
		}
		if !d.fenced {
			token = 0
		}
		return Lease{Key: c.Key, Value: value, Token: token, Nodes: granted}, true, nil
	}
	if !d.fenced {
		token = 0
	}
	elapsed := c.Now() - start
	if len(granted) >= o.Quorum && redlockValid(o, elapsed) {
		return Lease{Key: c.Key, Value: value, Token: token, Nodes: granted, Start: start, Validity: o.TTL - redlockDrift(o)}, true, nil
	}
	d.Release(c, &Lease{Key: c.Key, Value: value})
	return Lease{}, false, nil
}

func (d luaDesign) Release(c *Client, l *Lease) error {
	c.Releasing(l)
	file := orName(d.s.ReleaseFile, "release.lua")
	for _, g := range luaMasters(c) {
		if _, err := d.eval(c, g, file, d.s.Release, d.s.ReleaseArgs, l.Value); err != nil {
			if se, ok := err.(*ScriptError); ok {
				return se
			}
		}
	}
	return nil
}

// luaRenewer is luaDesign with a renew script.
type luaRenewer struct{ luaDesign }

func (d luaRenewer) Renew(c *Client, l *Lease) (bool, error) {
	file := orName(d.s.RenewFile, "renew.lua")
	n := 0
	masters := luaMasters(c)
	for _, g := range masters {
		r, err := d.eval(c, g, file, d.s.Renew, d.s.RenewArgs, l.Value)
		if se, ok := err.(*ScriptError); ok {
			return false, se
		}
		if err != nil && len(masters) == 1 {
			return false, err // a timeout or refusal, not a 0
		}
		if err == nil && r.Kind == resp.Int && r.Int == 1 {
			n++
		}
	}
	need := 1
	if len(masters) > 1 {
		need = c.opts.Quorum
	}
	return n >= need, nil
}

// NewLuaDesign returns the design for validated scripts. With fenced, an
// integer reply of the acquire script is the lease's fencing token.
func NewLuaDesign(s *LuaScripts, fenced bool) Design {
	if s.Renew != "" {
		return luaRenewer{luaDesign{s, fenced}}
	}
	return luaDesign{s, fenced}
}

// luaMasters are the groups the scripts run on: the first
// Options.LuaMasters of them, or all.
func luaMasters(c *Client) []string {
	ms := c.Masters()
	if n := c.opts.LuaMasters; n > 0 && n < len(ms) {
		return ms[:n]
	}
	return ms
}
