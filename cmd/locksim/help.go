package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"

	"locksim/engine"
	"locksim/logcheck"
	"locksim/model/history"
	"locksim/report"
	"locksim/scenarios"
	"locksim/sim"
)

// Version is locksim's version (engine.Version, which the shards' JSON
// records with the simulator fingerprint). The build's VCS revision, when
// Go recorded one, is printed with them.
const Version = engine.Version

// helpTopics are `locksim help TOPIC`'s topics.
var helpTopics = map[string]func(io.Writer) error{
	"scenarios": helpScenarios,
}

// cmdHelp prints the overview, a topic, or a command's flags.
func cmdHelp(args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(stdout, overview)
		return exitSafe, nil
	}
	if len(args) > 1 {
		return exitUsage, usagef("help takes one topic or command")
	}
	if f, ok := helpTopics[args[0]]; ok {
		return exitSafe, f(stdout)
	}
	if _, ok := commands()[args[0]]; ok {
		return run([]string{args[0], "--help"}, stdout, stderr), nil
	}
	return exitUsage, usagef("no help on %q (topics: scenarios; or a command: %s)", args[0], strings.Join(commandNames(), ", "))
}

// helpScenarios prints the scenario file format and the event kinds a
// trigger may name, with who records each.
func helpScenarios(w io.Writer) error {
	var b strings.Builder
	b.WriteString(scenarios.FormatHelp)
	b.WriteString("\nEvent kinds (after ACTOR EVENT): who records each, and what it means\n----------------------------------------------------------------------\n\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, k := range history.All() {
		fmt.Fprintf(tw, "    %s\t%s\t%s\n", k.Kind, k.Recorder, k.Meaning)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\nThe catalogue's own files (locksim list) show every directive; `locksim run FILE` runs yours.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// cmdVersion prints the version, the build and the formats this build
// reads and writes.
func cmdVersion(args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) > 0 {
		return exitUsage, usagef("version takes no arguments")
	}
	// The build: the version, the simulator fingerprint (what merge
	// compares) and the VCS commit when Go recorded one.
	fmt.Fprintf(stdout, "locksim %s, %s\n", engine.ThisBuild(), runtime.Version())
	fmt.Fprintf(stdout, "formats: case files v%d, %s, %s, %s, lock logs v%d (check-log), %s\n", engine.CaseVersion, report.Schema, engine.CheckSchema, engine.ExhaustiveSchema,
		logcheck.FormatVersion, logcheck.Schema)
	fmt.Fprintf(stdout, "simulated Redis: miniredis v2.40.0 with Redis 7's rules (sim/redisrules.go); event kinds: %d\n", len(sim.Kinds)+len(history.Kinds))
	return exitSafe, nil
}
