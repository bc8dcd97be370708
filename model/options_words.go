package model

import (
	"slices"
	"strings"
)

// Words renders the non-zero options as the key=value words of a scenario
// file's option line, in that line's key order ("queue-wait=500ms").
func (o Options) Words() []string {
	var w []string
	for _, r := range OptionTable {
		if word := r.Word(&o); word != "" {
			w = append(w, word)
		}
	}
	return w
}

// Settings returns the words of s's options that differ from what its
// design takes by default under the same TTL and topology: what a report's
// header shows so a reader knows what the run changed ("queue-wait=500ms").
//
// Options the defaults derive from others (the queue wait from the acquire
// wait) are compared with what they derive to, so only what was set shows.
func (s Spec) Settings() []string { return s.Resolution().Settings() }

// settings is Settings of a resolved spec with its traits
// (Resolved.Settings). The defaults it compares with are those of the
// same design (its traits) on a spec with none of s's options but the TTL
// and the Lua masters: the options' defaults depend on the design's
// masters and multi-lock trait and on the lock's masters, which these
// keep.
func (s Spec) settings(t Traits) []string {
	base := Spec{Design: s.Design, Lua: s.Lua, Custom: s.Custom, Topology: s.Topology, Clients: s.Clients}
	base.Options.TTL, base.Options.LuaMasters = s.Options.TTL, s.Options.LuaMasters
	plain := base.withDefaults(t).Options.Words() // the design's own defaults
	set := s.Options
	base.Options.AcquireWait = set.AcquireWait
	derived := base.withDefaults(t).Options.Words() // and what follows from the acquire wait
	var out []string
	for _, w := range set.Words() {
		if !slices.Contains(derived, w) || strings.HasPrefix(w, "acquire-wait=") && !slices.Contains(plain, w) {
			out = append(out, w)
		}
	}
	return out
}
