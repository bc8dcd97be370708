package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"locksim/model"
	"locksim/scenarios"
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
	fmt.Fprintln(tw, "SCENARIOS\t")
	for _, s := range scenarios.All() {
		fmt.Fprintf(tw, "  %s\t%s\n", s.Name, s.Title)
	}
	fmt.Fprintln(tw, "\t")
	fmt.Fprintln(tw, "DESIGNS\t")
	for _, id := range model.DesignIDs() {
		fmt.Fprintf(tw, "  %s\t%s\n", id, model.DesignAbout(id))
	}
	fmt.Fprintf(tw, "  %s\t%s\n", model.LuaDesignID, "your own scripts: locksim check --acquire FILE --release FILE [--renew FILE]")
	return exitSafe, tw.Flush()
}
