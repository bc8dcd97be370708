package engine

import (
	"runtime/debug"
	"sync"

	"locksim/internal/fingerprint"
)

// Version is locksim's version (what `locksim version` prints).
const Version = "0.4.0"

// Fingerprint is the simulator's fingerprint: a hash of the module's
// non-test Go sources, the files they embed and go.sum, generated and
// committed (internal/fingerprint; refreshed with make fingerprint). It
// identifies the simulation without version control: a -buildvcs=false
// build, a source tarball or a container without .git has it too.
const Fingerprint = fingerprint.Sum

// Build says which locksim wrote a file: its version and Fingerprint, and,
// when it was built from a checkout of locksim itself (go build in the
// repository), the VCS commit Go recorded and whether the tree had local
// changes. The fingerprint decides: two shards merge only when written by
// a simulator with the merge's own fingerprint (another simulator may make
// other runs from the same seeds); the version and the commit are for the
// reader.
type Build struct {
	Version     string `json:"version"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Commit      string `json:"commit,omitempty"`
	Modified    bool   `json:"modified,omitempty"`
}

// String renders a build as `locksim version` does: "0.4.0 fingerprint
// 0123456789abcdef commit 0123456789ab (modified)".
func (b Build) String() string {
	s := b.Version
	if s == "" {
		s = "(no version)"
	}
	if b.Fingerprint != "" {
		s += " fingerprint " + b.Fingerprint
	} else {
		s += " (no fingerprint)"
	}
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
// build); the fingerprint is always there.
var ThisBuild = sync.OnceValue(func() Build {
	b := Build{Version: Version, Fingerprint: Fingerprint}
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
