package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"locksim/scenarios"
	"locksim/serve"
	"locksim/sim"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, "; ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

const serveUsage = `serve --client NAME=COMMAND... [flags]
       locksim serve --clients A,B --duration D [--pid NAME=PID] [flags]

A real loopback RESP endpoint (TCP on 127.0.0.1) onto the simulated nodes,
in REAL time, for clients in any language (docs/serve.md). NOT deterministic:
a verdict is a recurrence (broke in k of n runs), never a replayable case.

With --client, serve launches each command once per run (/bin/sh -c, its own
process group) with LOCKSIM_CLIENT (its name), LOCKSIM_REDIS (its addresses,
one per group: host:port,...) and LOCKSIM_LOG (the file it writes its
check-log JSON Lines to, docs/check-log.md) in its environment, then judges
the logs as check-log does. Faults are fault lines at a time, as in scenario
files: "pause A for 3s at 1s" (SIGSTOP, then SIGCONT, of A's process group),
"partition A | r1 at 1s for 2s" (mode=blackhole: packets vanish; a partition
for good resets the connections), "delay A->r1 +500ms at 1s for 2s",
"node-crash r1 at 1s" (with --replicas: a failover).

With --duration, serve only listens for that long (clients A,B,... run by
you; their addresses are printed) and writes what the endpoint saw;
pauses stop the process given by --pid NAME=PID.`

func cmdServe(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlags("serve", serveUsage, stdout)
	var clients, faults, pids listFlag
	fs.Var(&clients, "client", "NAME=COMMAND: a client program launched for every run (repeat for more clients)")
	fs.Var(&faults, "fault", "a fault line at a time, e.g. \"pause A for 3s at 1s\" (repeat for more)")
	fs.Var(&pids, "pid", "NAME=PID: with --duration, the process a pause of NAME stops (repeat)")
	names := fs.String("clients", "", "with --duration: the clients' names, comma separated (default A)")
	duration := fs.Duration("duration", 0, "listen for this long without launching anything (your own clients)")
	masters := fs.Int("masters", 1, "groups: 1 for a single primary, N for Redlock's N masters")
	replicas := fs.Int("replicas", 0, "replicas per group; with replicas a sentinel fails over a primary that is down for --down-after")
	downAfter := fs.Duration("down-after", time.Second, "the sentinel's down-after (with --replicas)")
	runs := fs.Int("runs", 1, "how many runs (the verdict is how many broke)")
	timeout := fs.Duration("timeout", 60*time.Second, "a run whose clients are still running then is killed and has no verdict")
	port := fs.Int("port", 0, "the first port to listen on (the others follow it); 0: the system picks")
	out := fs.String("out", "", "the directory for each run's files (default: a new temporary directory)")
	if done, code, err := fs.parse(args); done {
		return code, err
	}
	if fs.NArg() > 0 {
		return exitUsage, usagef("unexpected argument %q (a client's command goes in --client NAME=COMMAND)", fs.Arg(0))
	}
	if *masters < 1 {
		return exitUsage, usagef("--masters %d: want at least 1", *masters)
	}
	if *port < 0 || *port > 65535 {
		return exitUsage, usagef("--port %d: want 0 to 65535", *port)
	}
	var fl []sim.Fault
	for _, s := range faults {
		f, err := scenarios.ParseFault(s)
		if err != nil {
			return exitUsage, usagef("--fault: %v", err)
		}
		fl = append(fl, f)
	}
	opt := serve.Options{Topology: serve.Topology{Masters: *masters, Replicas: *replicas, DownAfter: *downAfter},
		Faults: fl, Port: *port}
	if *duration != 0 || *names != "" || len(pids) > 0 {
		if len(clients) > 0 {
			return exitUsage, usagef("--client launches programs; --duration, --clients and --pid are for clients you run yourself: give one or the other")
		}
		return serveListen(opt, *names, pids, *duration, *out, stdout, stderr)
	}
	if len(clients) == 0 {
		return exitUsage, usagef("give the client programs (--client NAME=COMMAND), or --duration D to only listen")
	}
	c := serve.Campaign{Options: opt, Runs: *runs, Timeout: *timeout}
	for _, s := range clients {
		name, cmd, ok := strings.Cut(s, "=")
		if !ok {
			return exitUsage, usagef("--client %q: want NAME=COMMAND", s)
		}
		c.Programs = append(c.Programs, serve.Client{Name: name, Command: cmd})
	}
	if err := c.Validate(); err != nil {
		return exitUsage, usagef("%v", err)
	}
	dir, err := outDir(*out)
	if err != nil {
		return exitUsage, err
	}
	c.Out = dir
	c.Progress = stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sum, err := c.Run(ctx)
	if err != nil {
		return exitUsage, err
	}
	sum.Report(stdout, dir)
	if ctx.Err() != nil {
		fmt.Fprintln(stdout, "PARTIAL: interrupted")
		return 130, nil
	}
	judged, broke := sum.Judged()
	switch {
	case broke > 0:
		return exitViolation, nil
	case judged == 0:
		return exitUsage, nil
	}
	return exitSafe, nil
}

func outDir(out string) (string, error) {
	if out == "" {
		return os.MkdirTemp("", "locksim-serve-")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", usagef("--out: %v", err)
	}
	return out, nil
}

// serveListen opens the endpoint for clients the user runs, for d.
func serveListen(opt serve.Options, names string, pids listFlag, d time.Duration, out string, stdout, stderr io.Writer) (int, error) {
	if d <= 0 || d > 24*time.Hour {
		return exitUsage, usagef("--duration %v: want more than 0 and at most 24h", d)
	}
	opt.Clients = []string{"A"}
	if names != "" {
		opt.Clients = strings.Split(names, ",")
	}
	pidOf := map[string]int{}
	for _, p := range pids {
		name, v, ok := strings.Cut(p, "=")
		pid, err := strconv.Atoi(v)
		if !ok || err != nil || pid <= 1 {
			return exitUsage, usagef("--pid %q: want NAME=PID with a process id above 1", p)
		}
		pidOf[name] = pid
	}
	for _, f := range opt.Faults {
		if f.At+f.Dur > d {
			return exitUsage, usagef("fault %s ends after --duration %v", f, d)
		}
		if f.Kind == sim.FaultPause && pidOf[f.Target] == 0 {
			return exitUsage, usagef("fault %s: give the process to stop with --pid %s=PID", f, f.Target)
		}
	}
	opt.MaxTime = d + 10*time.Second
	if err := serve.Validate(opt); err != nil {
		return exitUsage, usagef("%v", err)
	}
	for name := range pidOf {
		found := false
		for _, c := range opt.Clients {
			found = found || c == name
		}
		if !found {
			return exitUsage, usagef("--pid %s: no such client (%s)", name, strings.Join(opt.Clients, ","))
		}
	}
	dir, err := outDir(out)
	if err != nil {
		return exitUsage, err
	}
	e, err := serve.Start(opt)
	if err != nil {
		return exitUsage, err
	}
	for name, pid := range pidOf {
		e.SetPid(name, pid, false)
	}
	fmt.Fprintf(stdout, "locksim serve: real time, NOT deterministic; listening for %v (groups %s)\n", d, strings.Join(e.Groups(), ","))
	for _, c := range opt.Clients {
		fmt.Fprintf(stdout, "  %s=%s\n", c, strings.Join(e.Addrs(c), ","))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	h, notes, werr := e.Close()
	path := filepath.Join(dir, "endpoint.txt")
	var b strings.Builder
	b.WriteString("# locksim serve: what the endpoint saw, in real time (NOT deterministic: no seed replays it)\n")
	for _, ev := range h {
		b.WriteString(ev.Line() + "\n")
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(stdout, "the endpoint's history: %s (%d events); judge your clients' logs with locksim check-log\n", path, len(h))
	if werr != nil {
		return exitUsage, werr
	}
	if ctx.Err() != nil {
		return 130, nil
	}
	return exitSafe, nil
}
