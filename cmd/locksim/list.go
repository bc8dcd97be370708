package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
	"locksim/sim"
)

func cmdList(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("list", "list", stdout)
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("list takes no arguments")
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIOS")
	for _, s := range scenarios.All() {
		fmt.Fprintf(tw, "  %s\t%s\n", s.Name, s.Title)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "DESIGNS")
	for _, id := range model.DesignIDs() {
		fmt.Fprintf(tw, "  %s\t%s\n", id, model.DesignAbout(id))
	}
	fmt.Fprintf(tw, "  %s\t%s\n", model.LuaDesignID, "your own scripts: locksim check --acquire FILE --release FILE [--renew FILE]")
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "FAULTS (--faults)")
	for _, k := range sim.FaultKinds {
		fmt.Fprintf(tw, "  %s\t%s\n", k, sim.FaultAbout[k])
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "INVARIANTS (--invariants)")
	for _, id := range invariant.All {
		fmt.Fprintf(tw, "  %s\t%s\n", id, invariant.AboutOf(id))
	}
	fmt.Fprintf(tw, "  %s\t%s\n", invariant.TokenOrder, "both token invariants: token-unique,fencing (an older name)")
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "FENCING (--fencing): what the resource accepts")
	for _, f := range model.Fencings {
		fmt.Fprintf(tw, "  %s\t%s\n", f, model.FencingAbout[f])
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "PERSISTENCE (--persistence): what a crashed node keeps")
	for _, p := range sim.Persistences {
		fmt.Fprintf(tw, "  %s\t%s\n", p, sim.PersistenceAbout[p])
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "SERVER RELEASES (--redis): what the simulated nodes accept (docs/limits.md)")
	for _, v := range sim.Versions {
		fmt.Fprintf(tw, "  %s\t%s\n", v, sim.VersionAbout[v])
	}
	return exitSafe, tw.Flush()
}
