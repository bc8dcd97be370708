package consensus

import (
	"google.golang.org/protobuf/proto"

	pb "go.etcd.io/raft/v3/raftpb"
)

// disk is what a consensus node keeps across a crash: raft's hard state
// (term, vote, commit), the log entries after the snapshot, and the
// snapshot. It plays the WAL and snapshot files of an etcd member, written
// with fsync before the node sends anything that depends on them (the
// persistence raft requires). Entries are shared with the running node's
// MemoryStorage: raft never changes an entry once made, so sharing them
// lets nothing of the node's memory survive a crash that a disk would not
// have kept.
type disk struct {
	hard *pb.HardState
	snap *pb.Snapshot
	ents []*pb.Entry // indexes snap.Index+1, snap.Index+2, ...
	// boots counts the node's starts; request IDs carry it, so a restarted
	// node never answers for a request it took before the crash.
	boots uint64
}

// newDisk returns the disk every node of a fresh cluster starts with: a
// snapshot at index 1, term 1, naming every node a voter (a bootstrapped
// cluster, as etcd's initial-cluster flag sets up).
func newDisk(voters []uint64) *disk {
	one := uint64(1)
	return &disk{
		hard: &pb.HardState{},
		snap: &pb.Snapshot{Metadata: &pb.SnapshotMetadata{
			Index: &one, Term: &one,
			ConfState: &pb.ConfState{Voters: append([]uint64(nil), voters...)},
		}},
	}
}

// append writes entries, replacing any stored entries from the first new
// index on (raft overwrites a conflicting suffix).
func (d *disk) append(ents []*pb.Entry) {
	if len(ents) == 0 {
		return
	}
	first := d.snap.GetMetadata().GetIndex() + 1
	keep := int(ents[0].GetIndex() - first)
	keep = max(min(keep, len(d.ents)), 0)
	d.ents = d.ents[:keep]
	d.ents = append(d.ents, ents...)
}

// setHard writes the hard state.
func (d *disk) setHard(hs *pb.HardState) { d.hard = proto.CloneOf(hs) }

// setSnap writes a snapshot and drops the entries it covers.
func (d *disk) setSnap(s *pb.Snapshot) {
	idx := s.GetMetadata().GetIndex()
	var rest []*pb.Entry
	for _, e := range d.ents {
		if e.GetIndex() > idx {
			rest = append(rest, e)
		}
	}
	d.snap, d.ents = proto.CloneOf(s), rest
}
