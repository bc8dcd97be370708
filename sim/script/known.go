package script

import (
	"strings"
	"sync"

	"github.com/alicebob/miniredis/v2"
)

// known is a private instance that answers whether a command exists.
var known struct {
	sync.Mutex
	e *Engine
}

// KnownCommand reports whether the simulated Redis has a command of that
// name, asking a private instance with no arguments (a known command
// answers with its arity error). Designs use it to name the command a
// script called that Redis does not have, which Redis's own error leaves
// out ("Unknown Redis command called from script").
func KnownCommand(name string) bool {
	known.Lock()
	defer known.Unlock()
	if _, special := commands[strings.ToUpper(name)]; special {
		return true
	}
	if known.e == nil {
		e, err := NewEngine(miniredis.NewMiniRedis(), Options{})
		if err != nil {
			return true // cannot tell: do not accuse the command
		}
		known.e = e
	}
	r := known.e.NewConn().Do(name) // a fresh connection: no state carries over
	return !(r.IsError() && strings.Contains(strings.ToLower(r.Str), "unknown command"))
}
