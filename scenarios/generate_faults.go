package scenarios

import (
	"slices"
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// shape is what fault drawing knows of a run.
type shape struct {
	s                   model.Spec
	t                   model.Traits
	keys                []string // the lock's keys on a node
	roster              model.Roster
	ttl, call, down     time.Duration
	horizon             time.Duration
	clients             []string
	nodes, primaries    []string
	replicas            []string
	cycles, masters     int
	driftPPM            int64
	sentinel, hasRenews bool
}

// shapeOf is the shape of a drawn run, resolved (Gen.config): taken once
// for all the run's fault draws.
func (g Gen) shapeOf(rs *model.Resolved) shape {
	s := rs.Spec
	sh := shape{s: s, t: rs.Traits, keys: rs.LockKeys(), roster: rs.Roster, ttl: s.Options.TTL, call: s.Options.CallTimeout,
		down: s.Topology.Sentinel.DownAfter, clients: s.Clients, cycles: max(1, s.Workload.Cycles),
		masters: s.Topology.Masters, sentinel: s.Topology.Sentinel.Enabled,
		driftPPM: max(int64(s.Options.DriftFactor*1e6), 1000)}
	sh.hasRenews = sh.t.Renews
	if s.Topology.Masters > 0 {
		r := rs.Roster
		sh.nodes, sh.primaries, sh.replicas = r.Nodes, r.Primaries, r.Replicas
	}
	sh.horizon = g.Horizon
	if sh.horizon == 0 {
		per := s.Workload.Work + 20*time.Millisecond
		sh.horizon = max(4*sh.ttl, time.Duration(sh.cycles*len(sh.clients))*per)
	}
	return sh
}

// fault draws one fault of kind k (a primary's crash may come with its
// replication lagging: two faults).
func (g Gen) fault(d Draws, sh shape, k sim.FaultKind) []sim.Fault {
	e, ok := faultDraws[k]
	if !ok {
		return nil
	}
	return e.draw(g, d, sh)
}

// faultDraw is the generator's entry for one fault kind.
type faultDraw struct {
	// draw draws one fault of the kind for a run of shape sh (or a few
	// that go together).
	draw func(g Gen, d Draws, sh shape) []sim.Fault
	// placed: the draw puts the fault at one of the Places of a client's
	// protocol (Gen.PauseAt, PlacesFor, PlaceOf), not at a moment.
	placed bool
}

// IsPlaced reports whether the generator puts faults of kind k at the
// Places (pauses and client crashes).
func IsPlaced(k sim.FaultKind) bool { return faultDraws[k].placed }

// faultDraws is the generator's entry per fault kind: how it draws one
// fault of that kind for a run of shape sh. TestEveryFaultKindIsDrawn fails
// when a kind of sim.FaultKindTable has none.
var faultDraws = map[sim.FaultKind]faultDraw{
	sim.FaultPause: {draw: func(g Gen, d Draws, sh shape) []sim.Fault {
		c := pick(d, sh.clients, "client")
		f := sim.Fault{Kind: sim.FaultPause, Target: c, Dur: sh.pauseLength(d)}
		g.place(d, sh, &f, c)
		return []sim.Fault{f}
	}, placed: true},
	sim.FaultCrash: {draw: func(g Gen, d Draws, sh shape) []sim.Fault {
		c := pick(d, sh.clients, "client")
		f := sim.Fault{Kind: sim.FaultCrash, Target: c, Restart: !oneIn(d, 3, "no restart")}
		if f.Restart {
			f.Dur = frac(d, sh.ttl, 0.01, 1, "down")
		}
		g.place(d, sh, &f, c)
		return []sim.Fault{f}
	}, placed: true},
	sim.FaultPartition: {draw: func(g Gen, d Draws, sh shape) []sim.Fault {
		f := sh.partition(d)
		f.Blackhole = g.Blackhole // no draw: the mode is the caller's choice
		return []sim.Fault{f}
	}},
	sim.FaultDelay:     {draw: func(g Gen, d Draws, sh shape) []sim.Fault { return []sim.Fault{g.delay(d, sh)} }},
	sim.FaultDrop:      {draw: func(g Gen, d Draws, sh shape) []sim.Fault { return []sim.Fault{g.drop(d, sh)} }},
	sim.FaultNodeCrash: {draw: func(_ Gen, d Draws, sh shape) []sim.Fault { return sh.nodeCrash(d) }},
	sim.FaultClockJump: {draw: func(g Gen, d Draws, sh shape) []sim.Fault {
		targets := sh.nodes
		switch {
		case g.ClientClocksOnly:
			targets = sh.clients
		case sh.t.ReadsWall && !g.NodeClocksOnly:
			// The clients read their wall clocks too (a fair lock's queue,
			// the wall-clock option): step those as well.
			targets = slices.Concat(sh.nodes, sh.clients)
		}
		f := sim.Fault{Kind: sim.FaultClockJump, Target: pick(d, targets, "node"), By: frac(d, sh.ttl, 0.5, 2, "by")}
		if oneIn(d, 4, "backward") {
			f.By = -f.By
		}
		sh.when(d, &f)
		return []sim.Fault{f}
	}},
	sim.FaultClockDrift: {draw: func(g Gen, d Draws, sh shape) []sim.Fault {
		targets := slices.Concat(sh.nodes, sh.clients)
		switch {
		case g.ClientClocksOnly:
			targets = sh.clients
		case g.NodeClocksOnly:
			targets = sh.nodes
		}
		f := sim.Fault{Kind: sim.FaultClockDrift, Target: pick(d, targets, "target")}
		if oneIn(d, 3, "big drift") {
			f.RatePPM = d.Int64Range(50_000, 300_000, "ppm")
		} else {
			f.RatePPM = d.Int64Range(sh.driftPPM*3/10, sh.driftPPM*3, "ppm")
		}
		if flip(d, "slow") {
			f.RatePPM = -f.RatePPM
		}
		sh.when(d, &f)
		return []sim.Fault{f}
	}},
	sim.FaultEvict: {draw: func(_ Gen, d Draws, sh shape) []sim.Fault {
		f := sim.Fault{Kind: sim.FaultEvict, Target: pick(d, sh.nodes, "node")}
		keys := sh.keys // the design's keys: one unless it takes several on a node
		f.Key = keys[0]
		if len(keys) > 1 {
			f.Key = pick(d, keys, "key")
		}
		sh.when(d, &f)
		return []sim.Fault{f}
	}},
	// node-stall: a slow command about the call timeout long, a block
	// past down-after (the group fails over), or one that outlasts the
	// TTL (the lock key expires while the node is blocked).
	sim.FaultSlotMigrate: {draw: drawSlotMigrate},
	// cluster-failover (clusters only): an operator fails a shard over to
	// one of its replicas, forced one time in three.
	sim.FaultClusterFailover: {draw: func(_ Gen, d Draws, sh shape) []sim.Fault {
		if !sh.s.Topology.Cluster || len(sh.replicas) == 0 {
			return nil
		}
		f := sim.Fault{Kind: sim.FaultClusterFailover, Target: pick(d, sh.replicas, "replica"), Force: oneIn(d, 3, "force")}
		sh.when(d, &f)
		return []sim.Fault{f}
	}},
	sim.FaultNodeStall: {draw: func(_ Gen, d Draws, sh shape) []sim.Fault {
		f := sim.Fault{Kind: sim.FaultNodeStall, Target: pick(d, sh.nodes, "node")}
		switch c := intIn(d, 0, 2, "stall class"); {
		case c == 0:
			f.Dur = frac(d, sh.call, 0.5, 3, "stall")
		case c == 1 && sh.sentinel:
			f.Dur = frac(d, sh.down, 1.2, 3, "stall")
		default:
			f.Dur = frac(d, sh.ttl, 1, 2, "stall")
		}
		sh.when(d, &f)
		return []sim.Fault{f}
	}},
	// starve: one task of a client runs late (CPU starvation) while the
	// rest of the process runs on: the watchdog, when the design renews,
	// two times in three, else the main task (a real client's, Wire, only
	// its watchdog: its renewals); lengths as a pause's, at the places a
	// pause goes.
	sim.FaultStarve: {draw: func(g Gen, d Draws, sh shape) []sim.Fault {
		c := pick(d, sh.clients, "client")
		f := sim.Fault{Kind: sim.FaultStarve, Target: c, Task: "main", Dur: sh.pauseLength(d)}
		if g.Wire || sh.hasRenews && !oneIn(d, 3, "main task") {
			f.Task = "watchdog"
		}
		g.place(d, sh, &f, c)
		return []sim.Fault{f}
	}, placed: true},
	// memory-pressure (only when Kinds names it; Redis nodes only): a
	// burst of other data on a primary, of 10% to 1.5 times the
	// topology's maxmemory, or, on nodes without one, of one to eight of
	// its keys under a drawn policy (the node capped at what it holds);
	// its keys live 0.5-3 TTLs one time in two, else for good; at a time
	// or after an acquire, as evict.
	sim.FaultMemoryPressure: {draw: func(_ Gen, d Draws, sh shape) []sim.Fault {
		if len(sh.primaries) == 0 || deploys(sh.s) {
			return nil
		}
		f := sim.Fault{Kind: sim.FaultMemoryPressure, Target: pick(d, sh.primaries, "node")}
		if m := sh.s.Topology.MaxMemory; m > 0 {
			f.Size = d.Int64Range(max(m/10, 1), min(m*3/2, sim.MaxPressureBytes), "size")
		} else {
			f.Policy = pick(d, sim.EvictionPolicies, "policy")
			f.Size = d.Int64Range(1, 8, "keys") * pressureKeyBytes
		}
		if flip(d, "keys expire") {
			f.Dur = frac(d, sh.ttl, 0.5, 3, "keys live")
		}
		sh.when(d, &f)
		return []sim.Fault{f}
	}},
}

// pressureKeyBytes is about the memory of one key of a memory-pressure
// burst (64 + "fill:N" + 100 bytes).
const pressureKeyBytes = 170

// deploys reports whether s's design brings its own nodes (a consensus
// cluster), which hold no Redis keys.
func deploys(s model.Spec) bool {
	var d model.Design = s.Custom
	if d == nil {
		d, _ = model.LookupDesign(s.Design)
	}
	_, ok := d.(model.Deployer)
	return ok
}

// slot-migrate (cluster topologies only): move the lock key's slot to
// another shard's primary, the legacy way (ASK for 0.5-3 TTLs) or the
// atomic way (a write pause of 0.3-2 TTLs, which a renewal may land in).
func drawSlotMigrate(_ Gen, d Draws, sh shape) []sim.Fault {
	if !sh.s.Topology.Cluster || len(sh.primaries) < 2 {
		return nil
	}
	key := sh.keys[0]
	var groups []string
	for _, g := range sh.roster.Groups {
		groups = append(groups, g.Name)
	}
	var owner string
	for _, r := range sim.EvenSlots(groups) {
		if s := sim.KeySlot(key); r.First <= s && s <= r.Last {
			owner = r.Group
		}
	}
	var targets []string
	for _, g := range sh.roster.Groups {
		if g.Name != owner {
			targets = append(targets, g.Primary)
		}
	}
	f := sim.Fault{Kind: sim.FaultSlotMigrate, Target: pick(d, targets, "node"), Key: key}
	if f.Atomic = flip(d, "atomic"); f.Atomic {
		f.Dur = frac(d, sh.ttl, 0.3, 2, "write pause")
	} else {
		f.Dur = frac(d, sh.ttl, 0.5, 3, "migration")
	}
	sh.when(d, &f)
	return []sim.Fault{f}
}

// pauseLength draws a pause: a few ms, about the call timeout, just under
// or just over the TTL, or much longer.
func (sh shape) pauseLength(d Draws) time.Duration {
	switch intIn(d, 0, 4, "pause class") {
	case 0:
		return msIn(d, time.Millisecond, max(sh.ttl/10, time.Millisecond), "pause")
	case 1:
		return frac(d, sh.call, 0.8, 1.3, "pause")
	case 2:
		return frac(d, sh.ttl, 0.7, 0.99, "pause")
	case 3:
		return frac(d, sh.ttl, 1.01, 1.5, "pause")
	}
	return frac(d, sh.ttl, 1.5, 3, "pause")
}

// place puts a pause or client crash of client c at one of the enabled
// places.
func (g Gen) place(d Draws, sh shape, f *sim.Fault, c string) {
	places := g.PauseAt
	if len(places) == 0 {
		places = Places
	}
	if !sh.hasRenews {
		places = slices.DeleteFunc(slices.Clone(places), func(p Place) bool { return p == PlaceWatchdog })
		if len(places) == 0 {
			places = []Place{PlaceCritical}
		}
	}
	m := intIn(d, 1, sh.cycles, "cycle")
	// A real client (Wire) calls include its connection handshake, and
	// its release and extensions are its library's own commands: its
	// triggers are the events the real-client driver records on the wire
	// (acquire-send after each lock request, release-send before each
	// command of Unlock, extend-send while holding).
	switch pick(d, places, "place") {
	case PlaceAcquire:
		// The k-th request of the m-th acquisition: with several masters
		// (or SETNX then PEXPIRE) a pause between two of its requests.
		kind := sim.KindCall
		if g.Wire {
			kind = history.KindAcquireSend
		}
		f.After = &sim.Trigger{Actor: c, Kind: kind, Nth: intIn(d, 1, max(sh.masters, 2), "request"), Since: history.KindAcquireStart, SinceNth: m}
	case PlaceCritical:
		f.After = &sim.Trigger{Actor: c, Kind: history.KindAcquired, Nth: m}
		if flip(d, "later in the section") {
			f.At = msIn(d, time.Millisecond, max(sh.s.Workload.Work, time.Millisecond), "into the section")
		}
	case PlaceWrite:
		f.After = &sim.Trigger{Actor: c, Kind: history.KindWrite, Nth: m}
	case PlaceRelease:
		if g.Wire {
			// Before the first or the second command of the m-th Unlock.
			f.After = &sim.Trigger{Actor: c, Kind: history.KindReleaseSend, Nth: intIn(d, 1, 2, "command"), Since: history.KindRelease, SinceNth: m}
		} else {
			f.After = &sim.Trigger{Actor: c, Kind: history.KindReleaseSend, Nth: m}
		}
	case PlaceWatchdog:
		kind := sim.KindCall
		if g.Wire {
			kind = history.KindExtendSend
		}
		f.After = &sim.Trigger{Actor: c, Kind: kind, Nth: intIn(d, 1, 3, "renewal"), Task: "watchdog"}
	default:
		f.At = msIn(d, 0, sh.horizon, "at")
	}
}

// when places a fault on the deployment: at a random instant, or right
// after some client acquired.
func (sh shape) when(d Draws, f *sim.Fault) {
	if flip(d, "after an acquire") {
		f.After = &sim.Trigger{Actor: pick(d, sh.clients, "acquirer"), Kind: history.KindAcquired, Nth: intIn(d, 1, sh.cycles, "cycle")}
		return
	}
	f.At = msIn(d, 0, sh.horizon, "at")
}

// partition draws one of Jepsen's shapes.
func (sh shape) partition(d Draws) sim.Fault {
	f := sim.Fault{Kind: sim.FaultPartition}
	others := func(a []string) []string {
		var b []string
		for _, e := range slices.Concat(sh.clients, sh.nodes) {
			if !slices.Contains(a, e) {
				b = append(b, e)
			}
		}
		if sh.sentinel && !slices.Contains(a, sim.SentinelName) {
			b = append(b, sim.SentinelName)
		}
		return b
	}
	shapes := []string{"node", "client"}
	if sh.masters >= 3 {
		shapes = append(shapes, "split")
	}
	if len(sh.replicas) > 0 {
		shapes = append(shapes, "primaries")
	}
	switch pick(d, shapes, "shape") {
	case "node":
		f.A = []string{pick(d, sh.nodes, "node")}
		f.B = others(f.A)
	case "client":
		f.A = []string{pick(d, sh.clients, "client")}
		f.B = slices.Clone(sh.nodes)
		if sh.sentinel {
			f.B = append(f.B, sim.SentinelName)
		}
	case "split":
		// A minority of the masters with some clients, against the rest.
		k := intIn(d, 1, (sh.masters-1)/2, "minority")
		f.A = append(slices.Clone(sh.primaries[:k]), sh.clients[:some(d, len(sh.clients), "minority clients")]...)
		f.B = others(f.A)
	case "primaries":
		// The primaries with some clients, away from their replicas and
		// the sentinel: the minority side keeps acknowledging writes.
		f.A = append(slices.Clone(sh.primaries), sh.clients[:some(d, len(sh.clients), "minority clients")]...)
		f.B = others(f.A)
	}
	f.OneWay = oneIn(d, 4, "one way")
	if sh.sentinel && flip(d, "past down-after") {
		f.Dur = frac(d, sh.down, 1.2, 3, "length")
	} else {
		f.Dur = frac(d, sh.ttl, 0.3, 3, "length")
	}
	sh.when(d, &f)
	return f
}

// link draws a link for delays and drops: client <-> a node, or client
// <-> the resource.
func (g Gen) link(d Draws, sh shape) (client, other string) {
	client = pick(d, sh.clients, "client")
	switch g.Links {
	case LinksRedis:
		return client, pick(d, sh.nodes, "node")
	case LinksResource:
		return client, history.ResourceName
	}
	if flip(d, "resource link") {
		return client, history.ResourceName
	}
	return client, pick(d, sh.nodes, "node")
}

// delay draws extra delay on one direction of a link: below or above the
// call timeout, at most DelayMax.
func (g Gen) delay(d Draws, sh shape) sim.Fault {
	c, o := g.link(d, sh)
	f := sim.Fault{Kind: sim.FaultDelay, From: c, To: o, Dur: frac(d, sh.ttl, 0.01, 0.5, "window")}
	if o != history.ResourceName && flip(d, "replies") {
		f.From, f.To = o, c
	}
	top := g.DelayMax
	if top == 0 {
		top = 2 * sh.ttl
	}
	if flip(d, "over the call timeout") && top > sh.call {
		f.Extra = msIn(d, sh.call+sh.call/10, top, "extra")
	} else {
		f.Extra = msIn(d, time.Millisecond, min(sh.call*9/10, top), "extra")
	}
	switch {
	case o == history.ResourceName && flip(d, "after a write"):
		f.After = &sim.Trigger{Actor: c, Kind: history.KindWrite, Nth: intIn(d, 1, sh.cycles, "cycle")}
	case o != history.ResourceName && sh.hasRenews && f.From == c && flip(d, "on a renewal"):
		// A renewal's request is late (the window opens as it is sent): it
		// lands after the lease may have moved on.
		f.After = &sim.Trigger{Actor: c, Kind: sim.KindCall, Nth: intIn(d, 1, 3, "renewal"), Task: "watchdog"}
	default:
		sh.when(d, &f)
	}
	return f
}

// drop draws a lost reply (the command ran, the client does not know) or
// a lost request.
func (g Gen) drop(d Draws, sh shape) sim.Fault {
	c, o := g.link(d, sh)
	f := sim.Fault{Kind: sim.FaultDrop, From: o, To: c, Count: intIn(d, 1, 2, "count"), Dur: frac(d, sh.ttl, 0.05, 1, "window")}
	if oneIn(d, 3, "requests") {
		f.From, f.To = c, o
	}
	if o != history.ResourceName && flip(d, "in acquire") {
		f.After = &sim.Trigger{Actor: c, Kind: history.KindAcquireStart, Nth: intIn(d, 1, sh.cycles, "cycle")}
		return f
	}
	sh.when(d, &f)
	return f
}

// nodeCrash draws a node crash: short, around down-after (the replica is
// promoted), or long, sometimes forever. A primary's crash may come with
// its replication to its replicas lagging by about the TTL, so a promoted
// replica lacks the latest writes.
func (sh shape) nodeCrash(d Draws) []sim.Fault {
	n := pick(d, sh.nodes, "node")
	f := sim.Fault{Kind: sim.FaultNodeCrash, Target: n}
	switch c := intIn(d, 0, 3, "crash class"); {
	case c == 0:
		f.Dur = frac(d, sh.ttl, 0.01, 0.5, "down")
	case c == 1 && sh.sentinel:
		f.Dur = frac(d, sh.down, 1.2, 3, "down")
	case c == 3 && oneIn(d, 3, "forever"):
		f.Dur = 0
	default:
		f.Dur = frac(d, sh.ttl, 1, 3, "down")
	}
	sh.when(d, &f)
	out := []sim.Fault{f}
	if i := slices.Index(sh.primaries, n); i >= 0 && len(sh.replicas) > 0 && flip(d, "lagging replication") {
		// Every replica of the group lags, so whichever is promoted lacks
		// the primary's latest writes.
		reps := len(sh.replicas) / len(sh.primaries)
		extra := frac(d, sh.ttl, 0.5, 2, "lag")
		var lags []sim.Fault
		for _, r := range sh.replicas[i*reps : (i+1)*reps] {
			lags = append(lags, sim.Fault{Kind: sim.FaultDelay, From: n, To: r, Extra: extra, Dur: sh.horizon})
		}
		out = append(lags, out...)
	}
	return out
}

// some draws how many of n things go to one side: 1 to n-1 (1 when n < 2).
func some(d Draws, n int, label string) int {
	if n < 2 {
		return 1
	}
	return intIn(d, 1, n-1, label)
}
