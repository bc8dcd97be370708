package history

import "locksim/sim"

// SlotMove is a cluster slot migration moving a slot's keys to another
// node (sim.KeysMovedBy): a lease granted by the old owner then lives on
// the new one.
type SlotMove struct {
	Pos  int
	Slot int
	To   string // the node the keys moved to
}

// keyHome returns the node that holds key just before the event at pos,
// for a key granted by node: node itself, or where slot migrations moved
// the key's slot since. Histories without a cluster have no moves.
func (ix *Index) keyHome(node, key string, pos int) string {
	if len(ix.SlotMoves) == 0 {
		return node
	}
	slot := sim.KeySlot(key)
	for _, m := range ix.SlotMoves {
		if m.Pos >= pos {
			break
		}
		if m.Slot == slot {
			node = m.To
		}
	}
	return node
}

// addSlotMove indexes the event at pos if it moved a slot's keys.
func (b *builder) addSlotMove(pos int) {
	if e := b.h[pos]; sim.KeysMovedBy(e) {
		b.ix.SlotMoves = append(b.ix.SlotMoves, SlotMove{Pos: pos, Slot: int(e.N), To: e.Actor})
	}
}
