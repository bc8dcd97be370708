package realclient

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"locksim/model"
	"locksim/sim"
)

var benchFlag = flag.Bool("realbench", false, "run TestBenchRealClient: virtual seconds per wall second (make bench)")

// TestBenchRealClient measures how much faster than real time a real
// client runs in the simulation: two clients cycling for 60s of virtual
// time (50ms of work, 50ms between cycles), no faults. us/command is the
// wall time per Redis command the nodes ran (resource calls, dials and
// sleeps included in the wall time). It is a test, not a
// Benchmark, because a synctest bubble needs a *testing.T. Run it with
// `go test -run TestBenchRealClient -realbench -v` (make bench).
func TestBenchRealClient(t *testing.T) {
	if !*benchFlag {
		t.Skip("pass -realbench")
	}
	fmt.Printf("%-22s %10s %10s %12s %14s %12s\n", "real client", "virtual", "wall", "virtual/wall", "Redis commands", "us/command")
	for _, tc := range []struct {
		name    string
		setup   Setup
		masters int
	}{{"redislock", newRedislock, 1}, {"redsync", newRedsync(), 1}, {"redsync", newRedsync(), 5}} {
		s := model.Spec{
			Design:   DesignPrefix + tc.name,
			Topology: model.Topology{Masters: tc.masters},
			Workload: model.Workload{Duration: 60 * time.Second, Work: benchWork, Think: benchThink},
		}.WithDefaults()
		const reps = 3
		var wall time.Duration
		var r *model.Result
		for i := 0; i < reps; i++ {
			start := time.Now()
			var err error
			r, err = runOnce(t, runConfig{name: tc.name, setup: tc.setup, spec: s, seed: uint64(i + 1)})
			wall += time.Since(start)
			if err != nil || r.Err != nil {
				t.Fatal(err, r.Err)
			}
		}
		wall /= reps
		virtual := r.History[len(r.History)-1].At
		cmds := 0
		for _, e := range r.History {
			if e.Kind == sim.KindExec && e.Peer != model.ResourceName {
				cmds++
			}
		}
		label := fmt.Sprintf("%s, %d node(s)", tc.name, tc.masters)
		fmt.Printf("%-22s %9.1fs %8.0fms %11.0fx %14d %12.1f\n", label, virtual.Seconds(), float64(wall)/float64(time.Millisecond),
			virtual.Seconds()/wall.Seconds(), cmds, float64(wall)/float64(time.Microsecond)/float64(cmds))
	}
}

// benchWork and benchThink are the benchmark clients' work in the
// critical section and pause between cycles.
var benchWork, benchThink = 50 * time.Millisecond, 50 * time.Millisecond
