package sim

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"
)

// Slot migration (the slot-migrate fault), in the two ways Redis moves a
// hash slot between primaries:
//
//   - Legacy (redis-cli --cluster reshard): the importer is set IMPORTING
//     and the owner MIGRATING, the slot's keys are MIGRATEd to the
//     importer (here all at the fault's start, each with its remaining
//     TTL, as MIGRATE's RESTORE carries it), and after Dur the slot is
//     handed over (SETSLOT NODE). Meanwhile the owner serves the keys it
//     still has and answers ASK for the others; the importer serves a
//     command only after ASKING.
//   - Atomic (Redis 8.4, CLUSTER MIGRATION IMPORT): the owner keeps
//     serving while the slot is copied (taken here as instantaneous), then
//     pauses writes to the slot for the hand-over: writes that reach it
//     wait for Dur, reads are served. At the end the keys as they are
//     then move to the importer, the importer owns the slot, and the
//     writes that waited are answered as the owner would answer them now:
//     MOVED.
//
// Both end with the importer owning the slot; the cluster's epoch grows
// by one. The keys land on the importer as writes, so its replicas get
// them asynchronously: a failover of the importer soon after can lose
// them.

// migration is one slot being moved.
type migration struct {
	slot     int
	src, dst *node
	atomic   bool
	// held are the writes an atomic migration's pause holds, in arrival
	// order.
	held []func()
}

func (w *World) applySlotMigrate(i int, f Fault, _ time.Duration) {
	if w.cluster == nil || !w.cluster.migrate(f) {
		w.faultOut[i] = FaultNoTarget
	}
}

// migrate starts moving the slot of f.Key to node f.Target's group; false
// if there is nothing to move: the target is not an up primary of another
// shard, the owner's primary is down, or the slot is moving already.
func (cl *cluster) migrate(f Fault) bool {
	w := cl.w
	slot := KeySlot(f.Key)
	dst := w.nodes[f.Target]
	oi := cl.owner[slot]
	if oi < 0 || dst.group == nil || dst.role != rolePrimary || !dst.up || dst.stalled || cl.groups[oi] == dst.group {
		return false
	}
	if _, ok := cl.moving[slot]; ok {
		return false
	}
	src := w.nodes[cl.groups[oi].primary]
	if !src.up || src.stalled {
		return false
	}
	mg := &migration{slot: slot, src: src, dst: dst, atomic: f.Atomic}
	cl.moving[slot] = slices.Index(cl.groups, dst.group)
	mode := "legacy"
	if f.Atomic {
		mode = "atomic"
		cl.paused[slot] = mg
	}
	start := func() {
		w.record(&Event{Actor: dst.name, Kind: KindSlotMigrate, Local: dst.local(), Dur: f.Dur, N: int64(slot), Key: f.Key, Note: mode + " from " + src.name})
	}
	if f.Atomic {
		start()
	} else {
		cl.moveKeys(mg, start) // the keys move at once; the event follows their landing
	}
	w.schedule(w.now+f.Dur, func() { cl.handOver(mg) })
	return true
}

// handOver ends a migration: the importer owns the slot. An atomic
// migration's hand-over is recorded once its keys landed on the importer
// and before they leave the owner (KeysMovedBy).
func (cl *cluster) handOver(mg *migration) {
	w := cl.w
	note := "from " + mg.src.name
	if mg.atomic {
		note += ", " + strconv.Itoa(len(cl.slotKeys(mg))) + " keys moved, " + strconv.Itoa(len(mg.held)) + " writes waited"
	}
	delete(cl.moving, mg.slot)
	cl.owner[mg.slot] = int16(slices.Index(cl.groups, mg.dst.group))
	cl.epoch++
	moved := func() {
		w.record(&Event{Actor: mg.dst.name, Kind: KindSlotMoved, Local: mg.dst.local(), N: int64(mg.slot), Note: note})
	}
	if mg.atomic {
		cl.moveKeys(mg, moved)
		delete(cl.paused, mg.slot)
	} else {
		moved()
	}
	for _, h := range mg.held {
		h()
	}
	mg.held = nil
}

// KeysMovedBy reports whether event e is where a slot's keys moved to
// node e.Actor (slot e.N): a legacy migration's start, or an atomic
// migration's hand-over. It comes after the keys' changes on the importer
// and before their deletion on the owner.
func KeysMovedBy(e Event) bool {
	return e.Kind == KindSlotMigrate && strings.HasPrefix(e.Note, "legacy ") ||
		e.Kind == KindSlotMoved && strings.Contains(e.Note, " keys moved")
}

// slotKeys returns the owner's keys in the migrating slot, sorted; none
// when either end is down.
func (cl *cluster) slotKeys(mg *migration) []string {
	if !mg.src.up || !mg.dst.up {
		return nil
	}
	mg.src.sync()
	var keys []string
	for _, k := range mg.src.m.Keys() { // sorted
		if KeySlot(k) == mg.slot {
			keys = append(keys, k)
		}
	}
	return keys
}

// moveKeys copies the slot's keys from the owner to the importer, each with
// its remaining TTL, as MIGRATE does, calls landed (which records the event
// that says where the keys went, KeysMovedBy), then deletes them on the
// owner: at every event the lease's node (history.Index's keyHome) holds
// the key. An importer that crashes on its own key events never
// acknowledged: the owner keeps its keys. It returns how many moved. A key
// of a type locksim does not move stops the run with an error.
func (cl *cluster) moveKeys(mg *migration, landed func()) int {
	src, dst := mg.src, mg.dst
	keys := cl.slotKeys(mg) // none when an end is down
	if len(keys) == 0 {
		landed()
		return 0
	}
	dst.sync()
	src.clusterTop, dst.clusterTop = "", "" // not a script's access (preHook)
	for _, k := range keys {
		ttl := src.m.TTL(k)
		switch t := src.m.Type(k); t {
		case "string":
			v, _ := src.m.Get(k)
			_ = dst.m.Set(k, v)
		case "hash":
			dst.m.Del(k)
			fs, _ := src.m.HKeys(k)
			for _, fld := range fs {
				dst.m.HSet(k, fld, src.m.HGet(k, fld))
			}
		default:
			cl.w.fail(errors.Errorf("slot-migrate: key %q on %s is a %s; locksim moves strings and hashes only", k, src.name, t))
			return 0
		}
		if ttl > 0 {
			dst.m.SetTTL(k, ttl)
		}
	}
	dst.why, dst.lim.stamp = "slot migrated", limitStamp{} // keyspace size changed outside a command
	dst.afterWrite()
	if !dst.up {
		landed()
		return 0 // crashed on its key events: MIGRATE failed, the owner keeps the keys
	}
	landed()
	if !src.up {
		return len(keys)
	}
	src.sync()
	for _, k := range keys {
		src.m.Del(k)
	}
	src.why, src.lim.stamp = "slot migrated", limitStamp{}
	src.afterWrite()
	return len(keys)
}

// holdWrite holds a write that reaches the owner of a slot an atomic
// migration has paused; true if it did (the request runs again at the
// hand-over).
func (cl *cluster) holdWrite(n *node, client string, c *call, cmd string) bool {
	if len(cl.paused) == 0 || n.m.IsReadOnlyCommand(cmd) {
		return false
	}
	keys, _ := clusterCommandKeys(cmd, c.args)
	for _, k := range keys {
		mg := cl.paused[KeySlot(k)]
		if mg == nil || mg.src != n {
			continue
		}
		inc := n.incarnation
		mg.held = append(mg.held, func() {
			if n.incarnation == inc {
				n.handle(client, c)
			}
		})
		return true
	}
	return false
}
