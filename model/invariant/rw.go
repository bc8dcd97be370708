package invariant

import "locksim/model/history"

// checkRWExclusion judges a read-write lock: many readers or one writer.
// It reports every pair of critical sections of different clients that
// overlap in true time where at least one is exclusive (a write hold): a
// reader beside a writer, or two writers. Two shared holds (readers) may
// overlap. Sections are read as for mutual-exclusion (history.Section):
// a section ends at release invoked, crash, the end of its task, or the
// client's own deadline. Two overlapping writers break mutual-exclusion
// too: that invariant judges the exclusive holds of every design, this
// one the read-write rule of the designs that take shared holds.
func checkRWExclusion(ix *history.Index) []Violation {
	return overlaps(ix, RWExclusion, func(a, b *history.Section) bool { return !a.Shared || !b.Shared })
}
