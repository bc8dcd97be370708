package node

import (
	"flag"
	"fmt"
	"syscall"
	"testing"
	"time"

	"locksim"
	"locksim/model"
	"locksim/model/history"
	"locksim/realclient"
	"locksim/sim"
)

var benchFlag = flag.Bool("nodebench", false, "make bench: check runs per CPU second and virtual seconds per CPU second of a Node lock")

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuNow is the CPU time of this process and of its Node processes.
func cpuNow() time.Duration { return selfCPU() + CPUTime() }

// TestBenchNode measures single-node redlock 4.2.0 in Node: check runs
// (two clients, two cycles, a pause after A's acquisition, a new seed each
// run, so new latencies) per CPU second, Go and Node together, on warm
// Node processes (200 runs after one, then 200 more with V8's JIT warm);
// and a 60 s fault-free workload's virtual seconds per CPU
// second, beside the Go clients' figures in docs/realclient.md.
func TestBenchNode(t *testing.T) {
	if !*benchFlag {
		t.Skip("pass -nodebench")
	}
	requireNode(t)
	const path = "js/libs/redlock-4.2.0.cjs"
	setup := Setup(path)
	spec := model.Spec{
		Design:   realclient.DesignPrefix + "redlock-4.2.0",
		Topology: model.Topology{Masters: 1},
		Workload: model.Workload{Cycles: 2, Work: 50 * time.Millisecond, Start: 5 * time.Millisecond},
		Faults: []sim.Fault{
			{Kind: sim.FaultPause, Target: "A", Dur: 1500 * time.Millisecond, After: &sim.Trigger{Actor: "A", Kind: history.KindAcquired}},
		},
	}.WithDefaults()
	if _, err := realclient.Run(t, locksim.Case{Spec: spec, Seed: 1}, setup); err != nil { // warm up: start the Node processes
		t.Fatal(err)
	}
	const runs = 200
	steps0, answered0, skipped0 := Steps.Load(), UntilAnswered.Load(), SkippedSteps.Load()
	start, cpu0, node0 := time.Now(), cpuNow(), CPUTime()
	for i := 0; i < runs; i++ {
		r, err := realclient.Run(t, locksim.Case{Spec: spec, Seed: uint64(i + 2)}, setup)
		if err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
	}
	wall, cpu, nodeCPU := time.Since(start), cpuNow()-cpu0, CPUTime()-node0
	perCPU := runs / cpu.Seconds()
	steps, answered, skipped := Steps.Load()-steps0, UntilAnswered.Load()-answered0, SkippedSteps.Load()-skipped0
	verdict := "NOT MET"
	if perCPU >= 100 {
		verdict = "met"
	}
	fmt.Printf("redlock 4.2.0 (Node), 1 node: %d check runs in %.2fs wall, %.2fs CPU (%.2fs Go, %.2fs Node): %.0f runs per CPU second (target 100: %s)\n",
		runs, wall.Seconds(), cpu.Seconds(), (cpu - nodeCPU).Seconds(), nodeCPU.Seconds(), perCPU, verdict)
	fmt.Printf("redlock 4.2.0 (Node), 1 node: %.1f steps per run, %.1f us CPU per step; %.1f Until() per run answered from the last step's report; %.1f timer wake-ups per run not delivered (no timer due)\n",
		float64(steps)/runs, float64(cpu.Microseconds())/float64(steps), float64(answered)/runs, float64(skipped)/runs)

	// The same again in the now warm processes: the first block pays V8's
	// warm-up (functions interpreted until TurboFan has compiled them, the
	// compiles on V8's threads), which the next runs of a long check do
	// not.
	cpu0, node0 = cpuNow(), CPUTime()
	for i := 0; i < runs; i++ {
		r, err := realclient.Run(t, locksim.Case{Spec: spec, Seed: uint64(runs + i + 2)}, setup)
		if err != nil || r.Err != nil {
			t.Fatal(err, r.Err)
		}
	}
	cpu, nodeCPU = cpuNow()-cpu0, CPUTime()-node0
	fmt.Printf("redlock 4.2.0 (Node), 1 node: the next %d check runs (JIT warm): %.2fs CPU (%.2fs Go, %.2fs Node): %.0f runs per CPU second\n",
		runs, cpu.Seconds(), (cpu - nodeCPU).Seconds(), nodeCPU.Seconds(), runs/cpu.Seconds())

	long := model.Spec{
		Design:   realclient.DesignPrefix + "redlock-4.2.0",
		Topology: model.Topology{Masters: 1},
		Workload: model.Workload{Duration: 60 * time.Second, Work: 50 * time.Millisecond, Think: 50 * time.Millisecond},
	}.WithDefaults()
	start, cpu0 = time.Now(), cpuNow()
	r, err := realclient.Run(t, locksim.Case{Spec: long, Seed: 1}, setup)
	if err != nil || r.Err != nil {
		t.Fatal(err, r.Err)
	}
	wall, cpu = time.Since(start), cpuNow()-cpu0
	virtual := r.History[len(r.History)-1].At
	cmds := 0
	for _, e := range r.History {
		if e.Kind == sim.KindExec && e.Peer != model.ResourceName {
			cmds++
		}
	}
	fmt.Printf("redlock 4.2.0 (Node), 1 node: %.1fs virtual in %.0fms wall, %.0fms CPU: %.0fx virtual per CPU second, %d Redis commands, %.1f us CPU per command (Go clients: docs/realclient.md, 517-807x)\n",
		virtual.Seconds(), ms(wall), ms(cpu), virtual.Seconds()/cpu.Seconds(), cmds, float64(cpu)/float64(time.Microsecond)/float64(cmds))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
