package engine

import (
	"runtime/debug"
	"sync"
)

// Version is locksim's version (what `locksim version` prints).
const Version = "0.4.0"

// Build says which locksim wrote a file: its version and, when it was
// built from a checkout of locksim itself (go build in the repository),
// the VCS commit Go recorded and whether the tree had local changes. Two
// shards merge only when written by the same build, the merge's own:
// another simulator may make other runs from the same seeds.
type Build struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

// String renders a build as `locksim version` does: "0.4.0 commit
// 0123456789ab (modified)".
func (b Build) String() string {
	s := b.Version
	if b.Commit != "" {
		s += " commit " + b.Commit[:min(12, len(b.Commit))]
		if b.Modified {
			s += " (modified)"
		}
	}
	return s
}

// ThisBuild is the running program's Build. The commit comes from
// runtime/debug.ReadBuildInfo when the main module is locksim (a program
// of another module that imports locksim records its own commit, not
// locksim's, so it has none; nor has a test binary or a -buildvcs=false
// build).
var ThisBuild = sync.OnceValue(func() Build {
	b := Build{Version: Version}
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Path != "locksim" {
		return b
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	if b.Commit == "" {
		b.Modified = false
	}
	return b
})
