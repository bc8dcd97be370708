package sim

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestCmdInfoAnswersAsTheTables: for every command name the tables know
// and a few they do not, on a node of each modelled release, the node's
// table answers what the tables themselves answer, asked twice (the
// second answer comes from the table); names past maxCmdInfos, and long
// ones, are answered and not kept.
func TestCmdInfoAnswersAsTheTables(t *testing.T) {
	names := slices.Collect(maps.Keys(keyPlaces))
	names = append(names, slices.Collect(maps.Keys(writeCommands))...)
	names = append(names, slices.Collect(maps.Keys(nodeCommands))...)
	names = append(names, "GET", "EVALSHA", "DIGEST", "NOSUCHCMD", "", "HEXPIRE", strings.Repeat("X", 100))
	for _, v := range Versions {
		cfg := oneNode()
		cfg.Server = v.String()
		w, err := New(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		n := w.nodes["r1"]
		for _, round := range []string{"first", "again"} {
			for _, name := range names {
				got := *n.cmdInfoOf(name)
				place, placed := keyPlaces[name]
				want := cmdInfo{known: n.knownCommand(name), write: isWriteCommand(name), readOnly: n.m.IsReadOnlyCommand(name),
					node: nodeCommands[name], placed: placed, place: place}
				if got != want {
					t.Fatalf("%s, %s asked %s: %+v, want %+v", v, name, round, got, want)
				}
			}
		}
		if len(n.cmds) > maxCmdInfos {
			t.Errorf("%s: the table keeps %d names, more than %d", v, len(n.cmds), maxCmdInfos)
		}
		if _, ok := n.cmds[strings.Repeat("X", 100)]; ok {
			t.Errorf("%s: a 100-byte name was kept", v)
		}
		w.shutdown()
	}
}
