package main

import (
	"slices"
	"time"

	"locksim/model"
	"locksim/sim"
)

// whatIf is run's what-if flags: one knob of the scenario changed, the
// same story rerun. They go through applyCheckFlags, the code that puts
// check's flags into its base spec, so a flag means the same and refuses
// the same values in both; --pause changes the scenario's own pause
// faults, which check draws instead.
type whatIf struct {
	ttl, work, stagger, downAfter, pause *time.Duration
	persistence                          *string
	clients, cycles, replicas, readers   *int
	opts                                 *optionFlags
}

// whatIfNames are the what-if flags, for the usage line and the docs; the
// design options among them come from model.OptionTable.
func whatIfNames() []string {
	names := []string{"ttl", "pause", "persistence", "work", "stagger", "cycles", "clients", "replicas"}
	for _, r := range model.OptionTable {
		if slices.Contains(r.Flags, "run") {
			names = append(names, r.Key)
		}
	}
	return append(names, "down-after", "readers")
}

func addWhatIfFlags(fs *flags) *whatIf {
	return &whatIf{
		ttl:         fs.Duration("ttl", 0, "what if: the lease TTL (default the scenario's)"),
		pause:       fs.Duration("pause", 0, "what if: every pause fault of the scenario lasts this long"),
		persistence: fs.String("persistence", "", "what if: what a crashed Redis node keeps: "+sim.PersistenceNames()+" (default the scenario's)"),
		work:        fs.Duration("work", 0, "what if: the critical-section length"),
		stagger:     fs.Duration("stagger", 0, "what if: each client starts this long after the one before it"),
		cycles:      fs.Int("cycles", 0, "what if: lock cycles per client"),
		clients:     fs.Int("clients", 0, "what if: the number of contending clients (2-26)"),
		replicas:    fs.Int("replicas", 0, "what if: replicas per master (with replicas Sentinel fails over)"),
		downAfter:   fs.Duration("down-after", 0, "what if: Sentinel's down-after (how long a primary must be unreachable before a failover)"),
		readers:     fs.Int("readers", 0, "what if: clients, the last ones, that only read under a read lock (read-write-lock)"),
		opts:        addOptionFlags(fs, "run", "what if: "),
	}
}

// apply puts the what-if flags the user gave into spec. luaNodes: the
// command's --nodes counts the masters Lua scripts run on, not the
// topology's masters.
func (w *whatIf) apply(fs *flags, spec *model.Spec) error {
	persistence := *w.persistence
	if !flagSet(fs, "persistence") {
		persistence = string(spec.Topology.Persistence)
		if persistence == "" {
			persistence = string(sim.PersistNone)
		}
	}
	f := checkFlags{persistence: persistence, replicas: *w.replicas, clients: *w.clients, cycles: *w.cycles,
		readers: *w.readers, work: *w.work, stagger: *w.stagger, downAfter: *w.downAfter, ttl: *w.ttl, opts: w.opts,
		nodesNotTopology: true}
	if !flagSet(fs, "replicas") {
		f.replicas = spec.Topology.Replicas
	}
	if err := applyCheckFlags(fs, spec, f); err != nil {
		return err
	}
	if flagSet(fs, "pause") {
		if *w.pause <= 0 || *w.pause > model.MaxRunTime {
			return usagef("--pause %v: give a positive length up to %v", *w.pause, model.MaxRunTime)
		}
		n := 0
		for i := range spec.Faults {
			if spec.Faults[i].Kind == sim.FaultPause {
				spec.Faults[i].Dur = *w.pause
				n++
			}
		}
		if n == 0 {
			return usagef("--pause: the scenario has no pause fault to lengthen or shorten")
		}
	}
	if err := spec.ValidateSettings(); err != nil {
		return usagef("%v", err)
	}
	return nil
}
