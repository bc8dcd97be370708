package libs

import (
	"flag"
	"fmt"
	"syscall"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	. "locksim/realclient"
	"locksim/sim"
)

var benchFlag = flag.Bool("realbench", false, "run TestBenchRealClient: virtual seconds per wall second (make bench)")

// TestBenchRealClient measures how much faster than real time a real
// client runs in the simulation: two clients cycling for 60s of virtual
// time (50ms of work, 50ms between cycles), no faults. us/command is the
// CPU time per Redis command the nodes ran (resource calls, dials and
// the rest of the run included). virtual/cpu is the figure that holds on
// a busy machine; virtual/wall is what a test waits. It is a test, not a
// Benchmark, because a synctest bubble needs a *testing.T. Run it with
// `go test -run TestBenchRealClient -realbench -v` (make bench).
func TestBenchRealClient(t *testing.T) {
	if !*benchFlag {
		t.Skip("pass -realbench")
	}
	type figure struct {
		name    string
		masters int
		perCPU  float64 // virtual seconds per CPU second
	}
	var figures []figure
	fmt.Printf("%-22s %9s %9s %12s %9s %11s %9s %11s\n", "real client", "virtual", "wall", "virtual/wall", "cpu", "virtual/cpu", "commands", "cpu us/cmd")
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
		var wall, cpu time.Duration
		var r *model.Result
		for i := 0; i < reps; i++ {
			start, cpu0 := time.Now(), cpuTime()
			var err error
			r, err = Run(t, locksim.Case{Spec: s, Seed: uint64(i + 1)}, tc.setup)
			wall += time.Since(start)
			cpu += cpuTime() - cpu0
			if err != nil || r.Err != nil {
				t.Fatal(err, r.Err)
			}
		}
		wall /= reps
		cpu /= reps
		virtual := r.History[len(r.History)-1].At
		cmds := 0
		for _, e := range r.History {
			if e.Kind == sim.KindExec && e.Peer != model.ResourceName {
				cmds++
			}
		}
		label := fmt.Sprintf("%s, %d node(s)", tc.name, tc.masters)
		fmt.Printf("%-22s %8.1fs %7.0fms %11.0fx %7.0fms %10.0fx %9d %11.1f\n", label, virtual.Seconds(), ms(wall),
			virtual.Seconds()/wall.Seconds(), ms(cpu), virtual.Seconds()/cpu.Seconds(), cmds, float64(cpu)/float64(time.Microsecond)/float64(cmds))
		figures = append(figures, figure{tc.name, tc.masters, virtual.Seconds() / cpu.Seconds()})
	}

	// The targets of issue 29, each met or not, as bench_table_test.go
	// (the root package) prints its own.
	fmt.Printf("\ntargets (issue 29):\n")
	for _, f := range figures {
		want := 500.0
		if f.masters > 1 {
			want = 200
		}
		verdict := "NOT MET"
		if f.perCPU >= want {
			verdict = "met"
		}
		name := fmt.Sprintf("real client %s on %d node(s) >= %.0fx virtual/cpu", f.name, f.masters, want)
		fmt.Printf("  %-62s %-7s %.0fx\n", name, verdict, f.perCPU)
	}
}

// benchWork and benchThink are the benchmark clients' work in the
// critical section and pause between cycles.
var benchWork, benchThink = 50 * time.Millisecond, 50 * time.Millisecond

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// cpuTime is the CPU time (user and system) the process has used: on a
// shared machine it measures the run better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
