package main

import (
	"locksim/model"
	"locksim/scenarios"
)

// luaFlags are the flags that give your own design as Lua scripts,
// shared by run, check, matrix and sweep.
type luaFlags struct {
	acquire, release, renew             *string
	acquireArgs, releaseArgs, renewArgs *string
	held                                *string
}

func addLuaFlags(fs *flags) *luaFlags {
	return &luaFlags{
		acquire:     fs.String("acquire", "", "your acquire script (Lua)"),
		release:     fs.String("release", "", "your release script (Lua)"),
		renew:       fs.String("renew", "", "your renew script (Lua, optional: runs a watchdog)"),
		acquireArgs: fs.String("acquire-args", "", `what the acquire script takes, e.g. "KEYS=lock ARGV=ttl,value" (names: lock, token, value, ttl; anything else is a literal, {lock} replaced by the key; default KEYS=lock,token ARGV=value,ttl)`),
		releaseArgs: fs.String("release-args", "", `what the release script takes (as --acquire-args), e.g. "KEYS=lock,redisson_lock__channel:{lock} ARGV=0,ttl,value"`),
		renewArgs:   fs.String("renew-args", "", "what the renew script takes (as --acquire-args)"),
		held:        fs.String("held", "ok", "how the acquire reply means taken: ok (OK or a positive token; 0 or nil: held by another) or nil (nil: taken; anything else, e.g. the holder's PTTL: held)"),
	}
}

// inputs are the script files given, for distinctOutputs.
func (l *luaFlags) inputs() []namedPath {
	return []namedPath{{"--acquire", *l.acquire}, {"--release", *l.release}, {"--renew", *l.renew}}
}

// scenarioInput is a scenario argument as an input file: none when it
// names a catalogue scenario.
func scenarioInput(what, arg string) namedPath {
	if _, err := scenarios.Lookup(arg); err == nil {
		return namedPath{what, ""}
	}
	return namedPath{what, arg}
}

// given reports whether any Lua script flag was given.
func (l *luaFlags) given() bool { return *l.acquire != "" || *l.release != "" || *l.renew != "" }

// load reads the scripts and their conventions.
func (l *luaFlags) load() (*model.LuaScripts, error) {
	if (*l.acquire == "") != (*l.release == "") {
		return nil, usagef("--acquire and --release go together: give both scripts")
	}
	if *l.acquire == "" {
		return nil, usagef("--renew and the script conventions go with --acquire/--release (your Lua scripts)")
	}
	s, err := model.LoadLua(*l.acquire, *l.release, *l.renew)
	if err != nil {
		return nil, usagef("%v", err)
	}
	for _, m := range []struct {
		flag string
		src  *string
		dst  *model.ArgMap
	}{{"--acquire-args", l.acquireArgs, &s.AcquireArgs}, {"--release-args", l.releaseArgs, &s.ReleaseArgs}, {"--renew-args", l.renewArgs, &s.RenewArgs}} {
		if *m.src == "" {
			continue
		}
		am, err := model.ParseArgMap(*m.src)
		if err != nil {
			return nil, usagef("%s: %v", m.flag, err)
		}
		*m.dst = am
	}
	if s.Held, err = model.ParseHeld(*l.held); err != nil {
		return nil, usagef("--held: %v", err)
	}
	return s, nil
}

// designSpec is the spec of the design the flags name: --design ID (a
// catalogue design) or --acquire/--release[/--renew] scripts (a Lua
// design), never both. With neither, it is an error unless optional (check
// with --scenario takes the scenario's design), and the spec is empty.
func designSpec(design string, lua *luaFlags, optional bool) (model.Spec, error) {
	switch {
	case lua.given() && design != "":
		return model.Spec{}, usagef("give either --design or --acquire/--release, not both")
	case lua.given():
		s, err := lua.load()
		if err != nil {
			return model.Spec{}, err
		}
		return model.Spec{Design: model.LuaDesignID, Lua: s}, nil
	case design != "":
		if _, err := model.LookupDesign(design); err != nil {
			return model.Spec{}, usagef("%v", err)
		}
		return model.Spec{Design: design}, nil
	case optional:
		return model.Spec{}, nil
	}
	return model.Spec{}, usagef("give --design ID, or --acquire FILE and --release FILE")
}
