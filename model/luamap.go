package model

import (
	"strconv"
	"strings"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
)

// ArgMap says what a Lua script takes in KEYS and ARGV, so real-world
// scripts run unmodified. Each entry is a name the framework fills in:
//
//	lock   the lock key              value  this acquisition's lock value (the owner)
//	token  the fencing counter key   ttl    the TTL in milliseconds
//
// or a literal, written as is ("0", "redisson_lock__channel:{lock}"), in
// which {lock} is replaced by the lock key. The zero ArgMap is locksim's
// own convention: KEYS = lock, token; ARGV = value, ttl.
//
// Redisson's lock script, for one, takes KEYS=lock and ARGV=ttl,value; its
// unlock script KEYS=lock,redisson_lock__channel:{lock} and ARGV=0,ttl,value.
type ArgMap struct {
	Keys, Argv []string
}

// DefaultArgMap is locksim's own convention.
var DefaultArgMap = ArgMap{Keys: []string{"lock", "token"}, Argv: []string{"value", "ttl"}}

// ParseArgMap parses "KEYS=lock,token ARGV=value,ttl" (either part may be
// left out, and then keeps the default).
func ParseArgMap(s string) (ArgMap, error) {
	m := DefaultArgMap
	for _, part := range strings.Fields(s) {
		k, v, ok := strings.Cut(part, "=")
		items := strings.Split(v, ",")
		if v == "" {
			items = nil
		}
		switch {
		case !ok:
			return ArgMap{}, errors.Errorf("argument map %s: want KEYS=a,b ARGV=c,d", bounded.Q(s))
		case strings.EqualFold(k, "KEYS"):
			m.Keys = items
		case strings.EqualFold(k, "ARGV"):
			m.Argv = items
		default:
			return ArgMap{}, errors.Errorf("argument map %s: %s is neither KEYS nor ARGV", bounded.Q(s), bounded.Q(k))
		}
	}
	if len(m.Keys)+len(m.Argv) > 32 {
		return ArgMap{}, errors.Errorf("argument map %s: at most 32 keys and arguments", bounded.Q(s))
	}
	return m, nil
}

// String renders the map as ParseArgMap reads it.
func (m ArgMap) String() string {
	return "KEYS=" + strings.Join(m.Keys, ",") + " ARGV=" + strings.Join(m.Argv, ",")
}

// orDefault returns m, or the default convention for the zero map.
func (m ArgMap) orDefault() ArgMap {
	if m.Keys == nil && m.Argv == nil {
		return DefaultArgMap
	}
	return m
}

// args renders an EVAL's arguments after the script: numkeys, the keys,
// the arguments.
func (m ArgMap) args(c *Client, value string) []string {
	m = m.orDefault()
	fill := func(name string) string {
		switch name {
		case "lock":
			return c.Key
		case "token":
			return c.TokenKey
		case "value":
			return value
		case "ttl":
			return c.TTLms()
		}
		return strings.ReplaceAll(name, "{lock}", c.Key)
	}
	out := make([]string, 0, 1+len(m.Keys)+len(m.Argv))
	out = append(out, strconv.Itoa(len(m.Keys)))
	for _, k := range m.Keys {
		out = append(out, fill(k))
	}
	for _, a := range m.Argv {
		out = append(out, fill(a))
	}
	return out
}

// Held says which acquire reply means the lock was taken.
type Held string

// The reply conventions.
const (
	// HeldOK: the status OK or a positive integer (the fencing token when
	// the resource is fenced) means taken; 0 or nil means held by another.
	// locksim's own convention, and the default.
	HeldOK Held = "ok"
	// HeldNil: nil means taken; any other reply (Redisson returns the
	// holder's PTTL) means held by another.
	HeldNil Held = "nil"
)

// ParseHeld parses a reply convention.
func ParseHeld(s string) (Held, error) {
	switch Held(s) {
	case "", HeldOK:
		return HeldOK, nil
	case HeldNil:
		return HeldNil, nil
	}
	return "", errors.Errorf("unknown reply convention %s (want ok or nil)", bounded.Q(s))
}
