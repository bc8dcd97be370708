package report

import (
	"time"

	"locksim/model"
	"locksim/model/history"
	"locksim/model/invariant"
	"locksim/sim"
)

// The fixtures are hand-built results, so the golden files do not move
// when the simulator or the designs change. Their events follow real runs
// (go run ./scratch set-px-lua pause) with most retries left out.

func us(n int64) time.Duration { return time.Duration(n) * time.Microsecond }

// finish numbers the events and fills Local with the true time where the
// fixture left it zero (a correct clock).
func finish(h sim.History) sim.History {
	for i := range h {
		h[i].Seq = i
		if h[i].Local == 0 {
			h[i].Local = h[i].At
		}
	}
	return h
}

const (
	luaAcquire = "if redis.call('SET',KEYS[1],ARGV[1],'NX','PX',ARGV[2]) then r..."
	luaRelease = "if redis.call('GET',KEYS[1])==ARGV[1] then return redis.call(..."
)

// gcPause is set-px-lua under gc-pause: A pauses 1.5s right after
// acquiring; its key expires; B acquires and writes; A resumes and writes.
func gcPause() (*model.Result, Meta) {
	const va, vb = "A:2c3rpbx5tk", "B:t0vophwlt"
	setA := []string{"SET", "lock", va, "NX", "PX", "1000"}
	setB := []string{"SET", "lock", vb, "NX", "PX", "1000"}
	h := finish(sim.History{
		{At: 0, Actor: "A", Task: "main", Kind: history.KindAcquireStart, Key: "lock", Value: va, Dur: 3 * time.Second},
		{At: 0, Actor: "A", Task: "main", Kind: sim.KindCall, Peer: "r1", Args: setA},
		{At: 0, Actor: "B", Task: "main", Kind: history.KindAcquireStart, Key: "lock", Value: vb, Dur: 3 * time.Second},
		{At: 0, Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "r1", Args: setB},
		{At: us(1109), Actor: "r1", Kind: sim.KindExec, Peer: "A", Args: setA, Reply: "OK"},
		{At: us(1109), Actor: "r1", Kind: sim.KindKey, Key: "lock", Value: va, Dur: time.Second, Note: "SET"},
		{At: us(1708), Actor: "r1", Kind: sim.KindExec, Peer: "B", Args: setB, Reply: "(nil)"},
		{At: us(2949), Actor: "A", Task: "main", Kind: sim.KindReply, Peer: "r1", Reply: "OK"},
		{At: us(2949), Actor: "A", Task: "main", Kind: history.KindAcquired, Peer: "r1", Key: "lock", Value: va, N: 1},
		{At: us(2949), Actor: "A", Kind: sim.KindPause, Dur: 1500 * time.Millisecond},
		{At: us(3153), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "r1", Reply: "(nil)"},
		{At: us(988059), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "r1", Args: setB},
		{At: us(989595), Actor: "r1", Kind: sim.KindExec, Peer: "B", Args: setB, Reply: "(nil)"},
		{At: us(991366), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "r1", Reply: "(nil)"},
		{At: us(1001109), Actor: "r1", Kind: sim.KindExpire, Key: "lock", Value: va},
		{At: us(1046683), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "r1", Args: setB},
		{At: us(1047975), Actor: "r1", Kind: sim.KindExec, Peer: "B", Args: setB, Reply: "OK"},
		{At: us(1047975), Actor: "r1", Kind: sim.KindKey, Key: "lock", Value: vb, Dur: time.Second, Note: "SET"},
		{At: us(1049101), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "r1", Reply: "OK"},
		{At: us(1049101), Actor: "B", Task: "main", Kind: history.KindAcquired, Peer: "r1", Key: "lock", Value: vb, N: 1},
		{At: us(1049101), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "resource", Args: []string{"READ"}},
		{At: us(1050398), Actor: "resource", Kind: history.KindResRead, Peer: "B", Reply: "(integer) 0"},
		{At: us(1051410), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "resource", Reply: "(integer) 0"},
		{At: us(1051410), Actor: "B", Task: "main", Kind: history.KindRead},
		{At: us(1101410), Actor: "B", Task: "main", Kind: history.KindWrite, Key: "lock", Value: vb, N: 1},
		{At: us(1101410), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "resource", Args: []string{"WRITE", "0", vb, "1"}},
		{At: us(1102563), Actor: "resource", Kind: history.KindResWrite, Peer: "B", Value: vb, N: 1, Reply: "(integer) 1"},
		{At: us(1104228), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "resource", Reply: "(integer) 1"},
		{At: us(1104228), Actor: "B", Task: "main", Kind: history.KindRelease, Key: "lock", Value: vb},
		{At: us(1104228), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "r1", Args: []string{"EVAL", luaRelease, "1", "lock", vb}},
		{At: us(1105739), Actor: "r1", Kind: sim.KindExec, Peer: "B", Args: []string{"EVAL", luaRelease, "1", "lock", vb}, Reply: "(integer) 1"},
		{At: us(1105739), Actor: "r1", Kind: sim.KindKey, Key: "lock", Note: "EVAL"},
		{At: us(1106945), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "r1", Reply: "(integer) 1"},
		{At: us(1106945), Actor: "B", Task: "main", Kind: history.KindReleased, Key: "lock", Value: vb},
		{At: us(1106945), Actor: "B", Task: "main", Kind: sim.KindTaskEnd},
		{At: us(1502949), Actor: "A", Kind: sim.KindResume},
		{At: us(1502949), Actor: "A", Task: "main", Kind: sim.KindCall, Peer: "resource", Args: []string{"READ"}},
		{At: us(1504263), Actor: "resource", Kind: history.KindResRead, Peer: "A", N: 1, Reply: "(integer) 1"},
		{At: us(1505345), Actor: "A", Task: "main", Kind: sim.KindReply, Peer: "resource", Reply: "(integer) 1"},
		{At: us(1505345), Actor: "A", Task: "main", Kind: history.KindRead, N: 1},
		{At: us(1555345), Actor: "A", Task: "main", Kind: history.KindWrite, Key: "lock", Value: va, N: 2},
		{At: us(1555345), Actor: "A", Task: "main", Kind: sim.KindCall, Peer: "resource", Args: []string{"WRITE", "0", va, "2"}},
		{At: us(1556966), Actor: "resource", Kind: history.KindResWrite, Peer: "A", Value: va, N: 2, Reply: "(integer) 1"},
		{At: us(1558910), Actor: "A", Task: "main", Kind: sim.KindReply, Peer: "resource", Reply: "(integer) 1"},
		{At: us(1558910), Actor: "A", Task: "main", Kind: history.KindRelease, Key: "lock", Value: va},
		{At: us(1558910), Actor: "A", Task: "main", Kind: sim.KindCall, Peer: "r1", Args: []string{"EVAL", luaRelease, "1", "lock", va}},
		{At: us(1560648), Actor: "r1", Kind: sim.KindExec, Peer: "A", Args: []string{"EVAL", luaRelease, "1", "lock", va}, Reply: "(integer) 0"},
		{At: us(1562490), Actor: "A", Task: "main", Kind: sim.KindReply, Peer: "r1", Reply: "(integer) 0"},
		{At: us(1562490), Actor: "A", Task: "main", Kind: history.KindReleased, Key: "lock", Value: va},
		{At: us(1562490), Actor: "A", Task: "main", Kind: sim.KindTaskEnd},
	})
	spec := model.Spec{
		Design:  "set-px-lua",
		Fencing: model.FenceOff,
		Options: model.Options{TTL: time.Second},
		Clients: []string{"A", "B"},
		Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond,
			After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}}},
	}
	r := &model.Result{Spec: spec, Seed: 1, History: h, Violations: []invariant.Violation{
		{Invariant: invariant.MutualExclusion, Clients: []string{"A", "B"}, From: us(1049101), To: us(1104228), Events: []int{8, 19, 28},
			Explanation: "A's critical section (0.002949s to 1.558910s) and B's (1.049101s to 1.104228s) overlap for 0.055127s."},
		{Invariant: invariant.StaleWrite, Clients: []string{"A"}, From: us(1556966), To: us(1556966), Events: []int{14, 42},
			Explanation: "The resource accepted A's write at 1.556966s although A's key on r1 had expired at 1.001109s."},
	}}
	meta := Meta{Scenario: "gc-pause", Title: "A pauses past its lease",
		Teaching: "A stop-the-world pause longer than the TTL lets the key expire while A still believes it holds the lock. " +
			"B acquires, and when A wakes up it writes as if nothing happened: without a fencing token the resource cannot tell."}
	return r, meta
}

// failover is fenced with the client deadline under a partition that
// leaves the primary r1 with A: A's SET never reaches the replica r2;
// the sentinel promotes r2; B acquires there and gets token 1 again.
func failover() (*model.Result, Meta) {
	const va, vb = "A:k7m2q9", "B:p3x8w1"
	acqA := []string{"EVAL", luaAcquire, "2", "lock", "lock:token", va, "10000"}
	acqB := []string{"EVAL", luaAcquire, "2", "lock", "lock:token", vb, "10000"}
	relA := []string{"EVAL", luaRelease, "1", "lock", va}
	relB := []string{"EVAL", luaRelease, "1", "lock", vb}
	sides := "r1,A | r2,B,sentinel"
	h := finish(sim.History{
		{At: 0, Actor: "A", Task: "main", Kind: history.KindAcquireStart, Key: "lock", Value: va, Dur: 30 * time.Second},
		{At: 0, Actor: "A", Task: "main", Kind: sim.KindCall, Peer: "r1", Args: acqA},
		{At: us(1000), Actor: "fault", Kind: sim.KindPartition, Dur: 5 * time.Second, Note: sides},
		{At: us(1109), Actor: "r1", Kind: sim.KindExec, Peer: "A", Args: acqA, Reply: "(integer) 1"},
		{At: us(1109), Actor: "r1", Kind: sim.KindKey, Key: "lock", Value: va, Dur: 10 * time.Second, Note: "EVAL"},
		{At: us(1109), Actor: "r1", Kind: sim.KindKey, Key: "lock:token", Value: "1", Note: "EVAL"},
		{At: us(2949), Actor: "A", Task: "main", Kind: sim.KindReply, Peer: "r1", Reply: "(integer) 1"},
		{At: us(2949), Actor: "A", Task: "main", Kind: history.KindAcquired, Peer: "r1", Key: "lock", Value: va, Token: 1, N: 1, Dur: us(9795051)},
		{At: us(2949), Actor: "A", Task: "main", Kind: sim.KindCall, Peer: "resource", Args: []string{"READ"}},
		{At: us(4100), Actor: "resource", Kind: history.KindResRead, Peer: "A", Reply: "(integer) 0"},
		{At: us(5200), Actor: "A", Task: "main", Kind: sim.KindReply, Peer: "resource", Reply: "(integer) 0"},
		{At: us(5200), Actor: "A", Task: "main", Kind: history.KindRead},
		{At: us(2001000), Actor: "r2", Kind: sim.KindPromote, Key: "m1", Peer: "r1"},
		{At: us(2101000), Actor: "B", Kind: sim.KindDiscover, Peer: "r2", Key: "m1"},
		{At: us(2200000), Actor: "B", Task: "main", Kind: history.KindAcquireStart, Key: "lock", Value: vb, Dur: 30 * time.Second},
		{At: us(2200000), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "r2", Args: acqB},
		{At: us(2201300), Actor: "r2", Kind: sim.KindExec, Peer: "B", Args: acqB, Reply: "(integer) 1"},
		{At: us(2201300), Actor: "r2", Kind: sim.KindKey, Key: "lock", Value: vb, Dur: 10 * time.Second, Note: "EVAL"},
		{At: us(2201300), Actor: "r2", Kind: sim.KindKey, Key: "lock:token", Value: "1", Note: "EVAL"},
		{At: us(2202600), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "r2", Reply: "(integer) 1"},
		{At: us(2202600), Actor: "B", Task: "main", Kind: history.KindAcquired, Peer: "r2", Key: "lock", Value: vb, Token: 1, N: 1, Dur: us(9795400)},
		{At: us(2202600), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "resource", Args: []string{"READ"}},
		{At: us(2203700), Actor: "resource", Kind: history.KindResRead, Peer: "B", Reply: "(integer) 0"},
		{At: us(2204900), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "resource", Reply: "(integer) 0"},
		{At: us(2204900), Actor: "B", Task: "main", Kind: history.KindRead},
		{At: us(2254900), Actor: "B", Task: "main", Kind: history.KindWrite, Key: "lock", Value: vb, Token: 1, N: 1},
		{At: us(2254900), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "resource", Args: []string{"WRITE", "1", vb, "1"}},
		{At: us(2256100), Actor: "resource", Kind: history.KindResWrite, Peer: "B", Value: vb, Token: 1, N: 1, Reply: "(integer) 1"},
		{At: us(2257300), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "resource", Reply: "(integer) 1"},
		{At: us(2257300), Actor: "B", Task: "main", Kind: history.KindRelease, Key: "lock", Value: vb},
		{At: us(2257300), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "r2", Args: relB},
		{At: us(2258500), Actor: "r2", Kind: sim.KindExec, Peer: "B", Args: relB, Reply: "(integer) 1"},
		{At: us(2258500), Actor: "r2", Kind: sim.KindKey, Key: "lock", Note: "EVAL"},
		{At: us(2259800), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "r2", Reply: "(integer) 1"},
		{At: us(2259800), Actor: "B", Task: "main", Kind: history.KindReleased, Key: "lock", Value: vb},
		{At: us(2259800), Actor: "B", Task: "main", Kind: sim.KindTaskEnd},
		{At: us(3005200), Actor: "A", Task: "main", Kind: history.KindWrite, Key: "lock", Value: va, Token: 1, N: 1},
		{At: us(3005200), Actor: "A", Task: "main", Kind: sim.KindCall, Peer: "resource", Args: []string{"WRITE", "1", va, "1"}},
		{At: us(3006400), Actor: "resource", Kind: history.KindResWrite, Peer: "A", Value: va, Token: 1, N: 2, Reply: "(integer) 0", Note: "rejected: token 1 <= last 1"},
		{At: us(3007600), Actor: "A", Task: "main", Kind: sim.KindReply, Peer: "resource", Reply: "(integer) 0"},
		{At: us(3007600), Actor: "A", Task: "main", Kind: history.KindRelease, Key: "lock", Value: va},
		{At: us(3007600), Actor: "A", Task: "main", Kind: sim.KindCall, Peer: "r1", Args: relA},
		{At: us(3008800), Actor: "r1", Kind: sim.KindExec, Peer: "A", Args: relA, Reply: "(integer) 1"},
		{At: us(3008800), Actor: "r1", Kind: sim.KindKey, Key: "lock", Note: "EVAL"},
		{At: us(3010000), Actor: "A", Task: "main", Kind: sim.KindReply, Peer: "r1", Reply: "(integer) 1"},
		{At: us(3010000), Actor: "A", Task: "main", Kind: history.KindReleased, Key: "lock", Value: va},
		{At: us(3010000), Actor: "A", Task: "main", Kind: sim.KindTaskEnd},
		{At: us(5001000), Actor: "fault", Kind: sim.KindHeal, Note: sides},
		{At: us(5001000), Actor: "r1", Kind: sim.KindDemote, Peer: "r2"},
		{At: us(5001000), Actor: "r1", Kind: sim.KindKey, Key: "lock:token", Note: "full resync"},
		{At: us(6000000), Actor: "r2", Kind: sim.KindClockJump, Dur: 2 * time.Second, Local: us(8000000)},
	})
	spec := model.Spec{
		Design:   "fenced",
		Fencing:  model.FenceStrict,
		Options:  model.Options{TTL: 10 * time.Second, Deadline: true},
		Clients:  []string{"A", "B"},
		Topology: model.Topology{Masters: 1, Replicas: 1, Sentinel: sim.SentinelConfig{Enabled: true, DownAfter: 2 * time.Second}},
		Faults: []sim.Fault{
			{Kind: sim.FaultPartition, At: time.Millisecond, Dur: 5 * time.Second, A: []string{"r1", "A"}, B: []string{"r2", "B", "sentinel"}},
			{Kind: sim.FaultClockJump, At: 6 * time.Second, Target: "r2", By: 2 * time.Second},
		},
	}
	r := &model.Result{Spec: spec, Seed: 42, History: h, Violations: []invariant.Violation{
		{Invariant: invariant.MutualExclusion, Clients: []string{"A", "B"}, From: us(2202600), To: us(2257300), Events: []int{7, 20, 29},
			Explanation: "A (granted by r1) and B (granted by r2 after the failover) both held lock from 2.202600s to 2.257300s."},
		{Invariant: invariant.TokenUnique, Clients: []string{"A", "B"}, From: us(2202600), To: us(2202600), Tokens: []int64{1, 1}, Events: []int{7, 20},
			Explanation: "Token 1 was granted twice: to A by r1 at 0.002949s and to B by r2 at 2.202600s; r1's INCR never reached r2 before the promotion."},
	}}
	meta := Meta{Scenario: "failover-lost-write", Title: "the primary's write is lost in a failover"}
	return r, meta
}

// clean is set-px-lua with no faults: A holds, B waits, then B holds.
func clean() (*model.Result, Meta) {
	const va, vb = "A:aaaa", "B:bbbb"
	h := finish(sim.History{
		{At: 0, Actor: "A", Task: "main", Kind: history.KindAcquireStart, Key: "lock", Value: va, Dur: 3 * time.Second},
		{At: 0, Actor: "B", Task: "main", Kind: history.KindAcquireStart, Key: "lock", Value: vb, Dur: 3 * time.Second},
		{At: us(1100), Actor: "r1", Kind: sim.KindKey, Key: "lock", Value: va, Dur: time.Second, Note: "SET"},
		{At: us(2900), Actor: "A", Task: "main", Kind: history.KindAcquired, Peer: "r1", Key: "lock", Value: va, N: 1},
		{At: us(55000), Actor: "A", Task: "main", Kind: history.KindWrite, Key: "lock", Value: va, N: 1},
		{At: us(56200), Actor: "resource", Kind: history.KindResWrite, Peer: "A", Value: va, N: 1, Reply: "(integer) 1"},
		{At: us(57400), Actor: "A", Task: "main", Kind: history.KindRelease, Key: "lock", Value: va},
		{At: us(58600), Actor: "r1", Kind: sim.KindKey, Key: "lock", Note: "EVAL"},
		{At: us(59800), Actor: "A", Task: "main", Kind: history.KindReleased, Key: "lock", Value: va},
		{At: us(71300), Actor: "r1", Kind: sim.KindKey, Key: "lock", Value: vb, Dur: time.Second, Note: "SET"},
		{At: us(72500), Actor: "B", Task: "main", Kind: history.KindAcquired, Peer: "r1", Key: "lock", Value: vb, N: 1},
		{At: us(124700), Actor: "B", Task: "main", Kind: history.KindWrite, Key: "lock", Value: vb, N: 2},
		{At: us(125900), Actor: "resource", Kind: history.KindResWrite, Peer: "B", Value: vb, N: 2, Reply: "(integer) 1"},
		{At: us(127100), Actor: "B", Task: "main", Kind: history.KindRelease, Key: "lock", Value: vb},
		{At: us(128300), Actor: "r1", Kind: sim.KindKey, Key: "lock", Note: "EVAL"},
		{At: us(129500), Actor: "B", Task: "main", Kind: history.KindReleased, Key: "lock", Value: vb},
	})
	spec := model.Spec{Design: "set-px-lua", Fencing: model.FenceOff, Options: model.Options{TTL: time.Second}, Clients: []string{"A", "B"}}
	return &model.Result{Spec: spec, Seed: 7, History: h}, Meta{Scenario: "no-faults"}
}

// pauseAfterWrite is fenced under a pause right after A prepared its
// write: the request leaves 1.5s later, after B's write, and the strict
// resource rejects it. The write's three instants differ.
func pauseAfterWrite() (*model.Result, Meta) {
	const va, vb = "A:q8d2m4", "B:z7c1k9"
	acqA := []string{"EVAL", luaAcquire, "2", "lock", "lock:token", va, "1000"}
	acqB := []string{"EVAL", luaAcquire, "2", "lock", "lock:token", vb, "1000"}
	relA := []string{"EVAL", luaRelease, "1", "lock", va}
	relB := []string{"EVAL", luaRelease, "1", "lock", vb}
	h := finish(sim.History{
		{At: 0, Actor: "A", Task: "main", Kind: history.KindAcquireStart, Key: "lock", Value: va, Dur: 3 * time.Second},
		{At: 0, Actor: "A", Task: "main", Kind: sim.KindCall, Peer: "r1", Args: acqA},
		{At: 0, Actor: "B", Task: "main", Kind: history.KindAcquireStart, Key: "lock", Value: vb, Dur: 3 * time.Second},
		{At: us(1109), Actor: "r1", Kind: sim.KindExec, Peer: "A", Args: acqA, Reply: "(integer) 1"},
		{At: us(1109), Actor: "r1", Kind: sim.KindKey, Key: "lock", Value: va, Dur: time.Second, Note: "EVAL"},
		{At: us(2818), Actor: "A", Task: "main", Kind: sim.KindReply, Peer: "r1", Reply: "(integer) 1"},
		{At: us(2818), Actor: "A", Task: "main", Kind: history.KindAcquired, Peer: "r1", Key: "lock", Value: va, Token: 1, N: 1},
		{At: us(2818), Actor: "A", Task: "main", Kind: sim.KindCall, Peer: "resource", Args: []string{"READ"}},
		{At: us(4100), Actor: "resource", Kind: history.KindResRead, Peer: "A", Reply: "(integer) 0"},
		{At: us(6102), Actor: "A", Task: "main", Kind: sim.KindReply, Peer: "resource", Reply: "(integer) 0"},
		{At: us(6102), Actor: "A", Task: "main", Kind: history.KindRead},
		{At: us(56102), Actor: "A", Task: "main", Kind: history.KindWrite, Key: "lock", Value: va, Token: 1, N: 1},
		{At: us(56102), Actor: "A", Kind: sim.KindPause, Dur: 1500 * time.Millisecond},
		{At: us(1001109), Actor: "r1", Kind: sim.KindExpire, Key: "lock", Value: va},
		{At: us(1056800), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "r1", Args: acqB},
		{At: us(1057500), Actor: "r1", Kind: sim.KindExec, Peer: "B", Args: acqB, Reply: "(integer) 2"},
		{At: us(1057500), Actor: "r1", Kind: sim.KindKey, Key: "lock", Value: vb, Dur: time.Second, Note: "EVAL"},
		{At: us(1058257), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "r1", Reply: "(integer) 2"},
		{At: us(1058257), Actor: "B", Task: "main", Kind: history.KindAcquired, Peer: "r1", Key: "lock", Value: vb, Token: 2, N: 1},
		{At: us(1058257), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "resource", Args: []string{"READ"}},
		{At: us(1059600), Actor: "resource", Kind: history.KindResRead, Peer: "B", Reply: "(integer) 0"},
		{At: us(1061075), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "resource", Reply: "(integer) 0"},
		{At: us(1061075), Actor: "B", Task: "main", Kind: history.KindRead},
		{At: us(1111075), Actor: "B", Task: "main", Kind: history.KindWrite, Key: "lock", Value: vb, Token: 2, N: 1},
		{At: us(1111075), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "resource", Args: []string{"WRITE", "2", vb, "1"}},
		{At: us(1112586), Actor: "resource", Kind: history.KindResWrite, Peer: "B", Value: vb, Token: 2, N: 1, Reply: "(integer) 1"},
		{At: us(1113792), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "resource", Reply: "(integer) 1"},
		{At: us(1113792), Actor: "B", Task: "main", Kind: history.KindRelease, Key: "lock", Value: vb},
		{At: us(1113792), Actor: "B", Task: "main", Kind: sim.KindCall, Peer: "r1", Args: relB},
		{At: us(1114900), Actor: "r1", Kind: sim.KindExec, Peer: "B", Args: relB, Reply: "(integer) 1"},
		{At: us(1114900), Actor: "r1", Kind: sim.KindKey, Key: "lock", Note: "EVAL"},
		{At: us(1116100), Actor: "B", Task: "main", Kind: sim.KindReply, Peer: "r1", Reply: "(integer) 1"},
		{At: us(1116100), Actor: "B", Task: "main", Kind: history.KindReleased, Key: "lock", Value: vb},
		{At: us(1116100), Actor: "B", Task: "main", Kind: sim.KindTaskEnd},
		{At: us(1556102), Actor: "A", Kind: sim.KindResume},
		{At: us(1556102), Actor: "A", Task: "main", Kind: sim.KindCall, Peer: "resource", Args: []string{"WRITE", "1", va, "1"}},
		{At: us(1557724), Actor: "resource", Kind: history.KindResWrite, Peer: "A", Value: va, Token: 1, N: 1, Reply: "(integer) 0", Note: "rejected: token 1 <= last 2"},
		{At: us(1559461), Actor: "A", Task: "main", Kind: sim.KindReply, Peer: "resource", Reply: "(integer) 0"},
		{At: us(1559461), Actor: "A", Task: "main", Kind: history.KindRelease, Key: "lock", Value: va},
		{At: us(1559461), Actor: "A", Task: "main", Kind: sim.KindCall, Peer: "r1", Args: relA},
		{At: us(1560700), Actor: "r1", Kind: sim.KindExec, Peer: "A", Args: relA, Reply: "(integer) 0"},
		{At: us(1562000), Actor: "A", Task: "main", Kind: sim.KindReply, Peer: "r1", Reply: "(integer) 0"},
		{At: us(1562000), Actor: "A", Task: "main", Kind: history.KindReleased, Key: "lock", Value: va},
		{At: us(1562000), Actor: "A", Task: "main", Kind: sim.KindTaskEnd},
	})
	spec := model.Spec{
		Design:  "fenced",
		Fencing: model.FenceStrict,
		Options: model.Options{TTL: time.Second},
		Clients: []string{"A", "B"},
		Faults: []sim.Fault{{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond,
			After: &sim.Trigger{Actor: "A", Kind: history.KindWrite}}},
	}
	r := &model.Result{Spec: spec, Seed: 1, History: h, Violations: []invariant.Violation{
		{Invariant: invariant.MutualExclusion, Clients: []string{"A", "B"}, From: us(1058257), To: us(1113792), Tokens: []int64{1, 2}, Events: []int{6, 18, 27},
			Explanation: "A and B both held the lock from 1.058257s to 1.113792s (0.055535s): A's key on r1 expired at 1.001109s while A was paused."},
	}}
	meta := Meta{Scenario: "gc-pause", Title: "a pause between the lease check and the write"}
	return r, meta
}

// fixtures are the results the golden tests render, by name.
var fixtures = []struct {
	name string
	fn   func() (*model.Result, Meta)
}{
	{"gc-pause", gcPause},
	{"failover", failover},
	{"clean", clean},
	{"empty", empty},
	{"pause-after-write", pauseAfterWrite},
}

// empty is a run that recorded nothing.
func empty() (*model.Result, Meta) {
	return &model.Result{Spec: model.Spec{Design: "set-px-lua"}}, Meta{}
}
