package sim

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/internal/bounded"
	"locksim/sim/resp"
)

// Memory pressure as a fault (FaultMemoryPressure): another application
// writes a burst of its own data to one Redis node at one moment, and the
// node evicts for it as Redis does (evict.go), by its maxmemory-policy.
// The burst is Size bytes of memory by the documented formula, written as
// keys fill:N (the filler's names) of pressureValueBytes-byte values, one
// SET after another, until it has added at least Size bytes; each SET goes
// through the path of a client's command (evictions before it, OOM under
// noeviction or a volatile-* policy with no candidate left). With Dur > 0
// its keys carry a TTL of Dur (a cache's burst that passes); without, they
// stay for good and keep the node full.
//
// A node with maxmemory (the topology's) evicts by its own policy; the
// fault may not name another (Config.validate refuses it). A node without
// maxmemory has no limit, Redis's default: more data only grows its memory
// and nothing is evicted, so the fault must carry policy=POLICY: it stands
// for a node whose memory other data had already filled to its maxmemory,
// and caps the node at what it holds at the fault's time (at least 1
// byte), under POLICY, for the rest of the run, restarts included. Such a
// node's key accesses are tracked from the run's start (trackAccess), so
// LRU and LFU judge the lock's keys by their history, as Redis's object
// clock does whatever the limit.
//
// The fault fires when the burst took the node past its maxmemory (it
// evicted, or a write got OOM, or the node is over at its end). A burst
// that fits under the limit evicts nothing and changes nothing for the
// lock: it is reported as never fired (FaultNoPressure), so a run that
// held is not taken as having tested memory pressure. A node down, a replica (it refuses the
// other application's writes) or one that crashes during the burst: no
// target. A stalled node takes the burst at its resume.
//
// Invariants: every draw (sampling, LFU) comes from the node's "evict/NODE"
// generator; the burst's key names continue the filler's sequence; the
// burst is written at one instant, so nothing of the lock's runs between
// two of its SETs.

// pressureValueBytes is the value size of a burst's keys.
const pressureValueBytes = 100

// MaxPressureBytes bounds a memory-pressure fault's size: 1 MiB, about
// 6000 keys.
const MaxPressureBytes = 1 << 20

func parsePressure(f *Fault, a FaultArgs) (err error) {
	if f.Target, err = a.Arg("a node"); err != nil {
		return err
	}
	for _, w := range a.Args() {
		k, v, _ := strings.Cut(w, "=")
		switch {
		case k == "size" && f.Size == 0:
			if f.Size, err = a.Int(v, "memory-pressure size", 1, MaxPressureBytes); err != nil {
				return err
			}
		case k == "policy" && f.Policy == "":
			f.Policy = EvictionPolicy(v)
			if !slices.Contains(EvictionPolicies, f.Policy) {
				return errors.Errorf("memory-pressure: unknown policy %s (want %s)", bounded.Q(v), EvictionPolicyNames())
			}
		default:
			return errors.Errorf("memory-pressure: want size=BYTES [policy=POLICY], got %s", bounded.Q(w))
		}
	}
	if f.Size == 0 {
		return errors.New("memory-pressure needs size=BYTES (the memory the burst adds)")
	}
	return nil
}

func formatPressure(f Fault) string {
	s := f.Target + " size=" + strconv.FormatInt(f.Size, 10)
	if f.Policy != "" {
		s += " policy=" + string(f.Policy)
	}
	return s
}

func checkPressure(f Fault) error {
	switch {
	case f.Size <= 0 || f.Size > MaxPressureBytes:
		return errors.Errorf("memory-pressure: size %d out of range [1, %d]", f.Size, MaxPressureBytes)
	case f.Policy != "" && !slices.Contains(EvictionPolicies, f.Policy):
		return errors.Errorf("memory-pressure: unknown policy %q (want %s)", f.Policy, EvictionPolicyNames())
	case f.Dur > 0 && f.Dur < time.Millisecond:
		return errors.Errorf("memory-pressure: for %v: at least 1ms (its keys' PX takes milliseconds)", f.Dur)
	}
	return nil
}

// validatePressure checks a memory-pressure fault against its node's
// configuration: a node that runs a machine holds no keys; a node with
// maxmemory evicts by its own policy; a node without one needs the
// fault's policy to be capped by.
func validatePressure(nodes []NodeConfig, i int, f Fault) error {
	if f.Kind != FaultMemoryPressure {
		return nil
	}
	for _, nc := range nodes {
		if nc.Name != f.Target {
			continue
		}
		own := nc.Policy
		if own == "" {
			own = NoEviction
		}
		switch {
		case nc.Machine != nil:
			return errors.Errorf("faults[%d] (%s): node %s runs a consensus machine, not Redis: it has no maxmemory", i, f.Kind, f.Target)
		case nc.MaxMemory > 0 && f.Policy != "" && f.Policy != own:
			return errors.Errorf("faults[%d] (%s): node %s has maxmemory %d with policy %s; the fault's policy=%s would change it (leave policy= off: the node evicts by its own)", i, f.Kind, f.Target, nc.MaxMemory, own, f.Policy)
		case nc.MaxMemory <= 0 && f.Policy == "":
			return errors.Errorf("faults[%d] (%s): node %s has no maxmemory (no limit, Redis's default: more data evicts nothing); give policy=POLICY to cap it at what it holds at the fault's time, or set the topology's maxmemory", i, f.Kind, f.Target)
		}
	}
	return nil
}

// applyMemoryPressure writes the fault's burst to its node, at the
// node's resume when it is stalled.
func (w *World) applyMemoryPressure(i int, f Fault, _ time.Duration) {
	n := w.nodes[f.Target]
	if n.stalled {
		w.faultOut[i] = FaultNoTarget
		n.whenServing(func() { w.faultOut[i] = n.pressure(f) })
		return
	}
	w.faultOut[i] = n.pressure(f)
}

// pressure writes the burst of fault f and reports whether it took the
// node past its maxmemory.
func (n *node) pressure(f Fault) FaultOutcome {
	if !n.up || n.cfg.Machine != nil || n.role == roleReplica {
		return FaultNoTarget
	}
	n.sync()
	capped, lasts := false, f.Dur
	if n.cfg.MaxMemory <= 0 {
		n.cfg.MaxMemory = max(n.usedMemory(), 1)
		n.cfg.Policy = f.Policy
		capped, lasts = true, 0 // the cap stays for the rest of the run
	}
	pol := n.cfg.Policy
	if pol == "" {
		pol = NoEviction
	}
	note := "maxmemory " + strconv.FormatInt(n.cfg.MaxMemory, 10) + " " + string(pol)
	if capped {
		note += ", capped at its use"
	}
	if f.Dur > 0 {
		note += "; its keys expire after " + FormatDuration(f.Dur)
	} else {
		note += "; its keys stay"
	}
	n.w.record(&Event{Actor: n.name, Kind: KindMemoryPressure, Local: n.local(), N: f.Size, Dur: lasts, Note: note})
	pressed := false
	for added := int64(0); added < f.Size; {
		n.ev.seq++
		key := FillKeyPrefix + strconv.Itoa(n.ev.seq)
		args := []string{"SET", key, strings.Repeat("x", pressureValueBytes)}
		if f.Dur > 0 {
			args = append(args, "PX", strconv.FormatInt(f.Dur.Milliseconds(), 10))
		}
		evicted, r, ok := n.writeOther(args)
		if !ok {
			return FaultNoTarget // the node went down (a triggered fault) or is unusable
		}
		if evicted > 0 || r.Kind == resp.Error && r.Str == MsgOOM {
			pressed = true
		}
		added += keyOverheadBytes + int64(len(key)) + pressureValueBytes
	}
	if pressed || n.usedMemory() > n.cfg.MaxMemory {
		return FaultFired
	}
	return FaultNoPressure
}

// writeOther runs one write of another application (the filler, a
// memory-pressure burst) through the path of a client's command:
// evictions before it, then the command, recorded, its keys refreshed. It
// returns how many keys the evictions took, the reply, and false when the
// node is down or unusable after it.
func (n *node) writeOther(args []string) (int, resp.Reply, bool) {
	n.sync()
	evicted := n.performEvictions()
	if !n.up {
		return evicted, resp.Reply{}, false
	}
	r, ok := n.do("filler", args)
	if !ok {
		return evicted, r, false
	}
	n.w.recordBounded(&Event{Actor: n.name, Kind: KindExec, Local: n.local(), Peer: "filler", Args: args, Reply: recordedReply(r)})
	if r.Kind == resp.Error {
		return evicted, r, true
	}
	n.why = "SET"
	n.refreshTouched()
	n.afterRefresh()
	return evicted, r, n.up
}
