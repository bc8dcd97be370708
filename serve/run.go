package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	pkgerrors "github.com/pkg/errors"

	"locksim/logcheck"
	"locksim/sim"
)

// Client is one client program, launched for every run.
type Client struct {
	Name string
	// Command is run by /bin/sh -c in its own process group (a pause
	// stops the whole group), with the environment below.
	Command string
}

// The environment a client's program gets.
const (
	// EnvClient is the client's name (the check-log "client").
	EnvClient = "LOCKSIM_CLIENT"
	// EnvRedis lists the client's addresses, one per group, comma
	// separated: host:port.
	EnvRedis = "LOCKSIM_REDIS"
	// EnvLog is the file the client writes its check-log JSON Lines to
	// (docs/check-log.md).
	EnvLog = "LOCKSIM_LOG"
	// EnvRun is the run's number, from 1.
	EnvRun = "LOCKSIM_RUN"
)

// Campaign is n runs of the same clients under the same faults.
type Campaign struct {
	Options
	Programs []Client
	Runs     int
	// Timeout ends a run whose clients are still running: they are
	// killed and the run has no verdict.
	Timeout time.Duration
	// Out is the directory each run's files go under (run-1, run-2...).
	Out string
	// Reorder is check-log's --reorder for the clients' logs: threads of
	// one process may log a little out of order. Default 1s.
	Reorder time.Duration
	// Progress, if set, gets a line as each run ends.
	Progress io.Writer
}

// RunResult is one run.
type RunResult struct {
	N   int
	Dir string
	// Result is check-log's verdict on the clients' logs; nil with Err.
	Result *logcheck.Result
	// Err says why the run has no verdict (a client that failed or timed
	// out, an unreadable log, no grant at all).
	Err error
	// Exits are the clients' exit statuses ("A: exit 0").
	Exits []string
	// Wall is how long the run took.
	Wall time.Duration
}

// Broken reports whether the run found a certain violation.
func (r RunResult) Broken() bool { return r.Err == nil && r.Result != nil && r.Result.Broken() }

// Summary is a campaign's outcome: recurrence, not a replayable case.
type Summary struct {
	Runs []RunResult
}

// Judged counts the runs with a verdict; Broke those that broke.
func (s Summary) Judged() (judged, broke int) {
	for _, r := range s.Runs {
		if r.Err == nil {
			judged++
			if r.Broken() {
				broke++
			}
		}
	}
	return judged, broke
}

// Validate checks a campaign's inputs.
func (c Campaign) Validate() error {
	if len(c.Programs) == 0 {
		return pkgerrors.New("no client program: give at least one --client NAME=COMMAND")
	}
	if !canSignal {
		return pkgerrors.New("launching clients needs a Unix system (process groups, SIGSTOP); use --duration with clients you run yourself")
	}
	if c.Runs < 1 || c.Runs > 1000 {
		return pkgerrors.Errorf("--runs %d: want 1 to 1000", c.Runs)
	}
	if c.Timeout <= 0 || c.Timeout > time.Hour {
		return pkgerrors.Errorf("--timeout %v: want more than 0 and at most 1h", c.Timeout)
	}
	opt := c.Options
	opt.Clients = nil
	for _, p := range c.Programs {
		if strings.TrimSpace(p.Command) == "" {
			return pkgerrors.Errorf("client %s: empty command", p.Name)
		}
		opt.Clients = append(opt.Clients, p.Name)
	}
	if err := Validate(opt); err != nil {
		return err
	}
	for _, f := range c.Faults {
		if f.After == nil && f.At+f.Dur > c.Timeout {
			return pkgerrors.Errorf("fault %s ends after the run's --timeout %v", f, c.Timeout)
		}
	}
	return nil
}

// Run runs the campaign. The error is for inputs or files; a run without
// a verdict has RunResult.Err set.
func (c Campaign) Run(ctx context.Context) (Summary, error) {
	if c.Reorder == 0 {
		c.Reorder = time.Second
	}
	if err := c.Validate(); err != nil {
		return Summary{}, err
	}
	c.Options.Clients = nil
	for _, p := range c.Programs {
		c.Options.Clients = append(c.Options.Clients, p.Name)
	}
	var s Summary
	for i := 1; i <= c.Runs; i++ {
		if ctx.Err() != nil {
			break
		}
		r, err := c.runOnce(ctx, i)
		if err != nil {
			return s, err
		}
		s.Runs = append(s.Runs, r)
		if c.Progress != nil {
			fmt.Fprintln(c.Progress, r.Line())
		}
	}
	return s, nil
}

func (c Campaign) runOnce(ctx context.Context, n int) (RunResult, error) {
	dir := filepath.Join(c.Out, "run-"+strconv.Itoa(n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return RunResult{}, err
	}
	r := RunResult{N: n, Dir: dir}
	opt := c.Options
	opt.Seed = uint64(n)
	opt.MaxTime = c.Timeout + 10*time.Second
	e, err := Start(opt)
	if err != nil {
		return r, err
	}
	start := time.Now()
	type exited struct {
		name string
		err  error
	}
	done := make(chan exited, len(c.Programs))
	var cmds []*exec.Cmd
	logs := map[string]string{}
	for _, p := range c.Programs {
		logs[p.Name] = filepath.Join(dir, p.Name+".jsonl")
		os.Remove(logs[p.Name])
		out, err := os.Create(filepath.Join(dir, p.Name+".out"))
		if err != nil {
			e.Close()
			return r, err
		}
		cmd := exec.Command("/bin/sh", "-c", p.Command)
		cmd.Env = append(os.Environ(), EnvClient+"="+p.Name, EnvRedis+"="+strings.Join(e.Addrs(p.Name), ","),
			EnvLog+"="+logs[p.Name], EnvRun+"="+strconv.Itoa(n))
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = groupAttr()
		if err := cmd.Start(); err != nil {
			out.Close()
			e.Close()
			killAll(cmds)
			return r, pkgerrors.Wrapf(err, "client %s", p.Name)
		}
		e.SetPid(p.Name, cmd.Process.Pid, true)
		e.WatchLog(p.Name, logs[p.Name])
		cmds = append(cmds, cmd)
		go func(name string, cmd *exec.Cmd, out *os.File) {
			err := cmd.Wait()
			out.Close()
			done <- exited{name, err}
		}(p.Name, cmd, out)
	}
	timer := time.NewTimer(c.Timeout)
	defer timer.Stop()
	var failed []string
	for left := len(c.Programs); left > 0; {
		select {
		case x := <-done:
			left--
			status := "exit 0"
			if x.err != nil {
				status = x.err.Error()
				failed = append(failed, x.name+" ("+status+")")
			}
			r.Exits = append(r.Exits, x.name+": "+status)
			e.Exit(x.name, status)
		case <-timer.C:
			killAll(cmds)
			r.Err = pkgerrors.Errorf("the clients were still running at the --timeout %v and were killed", c.Timeout)
			timer.Reset(time.Hour)
		case <-ctx.Done():
			killAll(cmds)
			r.Err = pkgerrors.New("interrupted")
			timer.Reset(time.Hour)
		}
	}
	sort.Strings(r.Exits)
	r.Wall = time.Since(start)
	h, notes, werr := e.Close()
	if err := writeHistory(filepath.Join(dir, "endpoint.txt"), h, notes); err != nil {
		return r, err
	}
	if r.Err == nil && werr != nil {
		r.Err = pkgerrors.Wrap(werr, "the simulated world stopped")
	}
	if r.Err == nil && len(failed) > 0 {
		r.Err = pkgerrors.Errorf("client %s failed (its output: %s)", strings.Join(failed, ", "), filepath.Join(dir, "*.out"))
	}
	if r.Err != nil {
		return r, nil
	}
	var ins []logcheck.Input
	for _, p := range c.Programs {
		b, err := os.ReadFile(logs[p.Name])
		if err != nil {
			r.Err = pkgerrors.Errorf("client %s wrote no log at %s=%s", p.Name, EnvLog, logs[p.Name])
			return r, nil
		}
		ins = append(ins, logcheck.Input{Name: logs[p.Name], R: bytes.NewReader(b)})
	}
	res, err := logcheck.Check(ins, logcheck.Options{Reorder: c.Reorder})
	if err != nil {
		r.Err = pkgerrors.Wrap(err, "the clients' logs")
		return r, nil
	}
	if res.NothingJudged != "" {
		r.Err = pkgerrors.Errorf("nothing judged: %s", res.NothingJudged)
		return r, nil
	}
	r.Result = res
	return r, nil
}

func killAll(cmds []*exec.Cmd) {
	for _, c := range cmds {
		if c.Process != nil {
			killGroup(c.Process.Pid)
		}
	}
}

// writeHistory writes what the endpoint saw: the world's events (each
// command and reply, key expiries, faults), then what it did to the
// processes.
func writeHistory(path string, h sim.History, notes []string) error {
	var b strings.Builder
	b.WriteString("# locksim serve: what the endpoint saw, in real time (NOT deterministic: no seed replays it)\n")
	for _, ev := range h {
		b.WriteString(ev.Line())
		b.WriteByte('\n')
	}
	for _, n := range notes {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// Line says one run's outcome in a line.
func (r RunResult) Line() string {
	head := fmt.Sprintf("run %d (%.1fs): ", r.N, r.Wall.Seconds())
	if r.Err != nil {
		return head + "no verdict: " + r.Err.Error()
	}
	var broken []string
	for _, v := range r.Result.Verdicts {
		if v.Certain > 0 {
			broken = append(broken, fmt.Sprintf("%s broken (%d)", v.Invariant, v.Certain))
		}
	}
	if len(broken) == 0 {
		return head + "held"
	}
	return head + strings.Join(broken, ", ") + " - " + firstExplanation(r.Result)
}

func firstExplanation(res *logcheck.Result) string {
	for _, v := range res.Violations {
		if v.Certainty == logcheck.Certain {
			return v.Explanation
		}
	}
	return ""
}

// Report writes the campaign's verdict: recurrence, labelled as real time.
func (s Summary) Report(w io.Writer, out string) {
	judged, broke := s.Judged()
	fmt.Fprintf(w, "locksim serve: real time, NOT deterministic: these runs cannot be replayed; the verdict is a recurrence.\n")
	for _, r := range s.Runs {
		fmt.Fprintln(w, "  "+r.Line())
	}
	perInv := map[string]int{}
	for _, r := range s.Runs {
		if r.Broken() {
			for _, v := range r.Result.Verdicts {
				if v.Certain > 0 {
					perInv[string(v.Invariant)]++
				}
			}
		}
	}
	var parts []string
	for _, k := range sortedKeys(perInv) {
		parts = append(parts, fmt.Sprintf("%s in %d", k, perInv[k]))
	}
	noVerdict := len(s.Runs) - judged
	line := fmt.Sprintf("broke in %d of %d runs", broke, judged)
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	if noVerdict > 0 {
		line += fmt.Sprintf("; %d more without a verdict", noVerdict)
	}
	fmt.Fprintln(w, line)
	fmt.Fprintf(w, "files: %s (each run: the clients' logs NAME.jsonl and output NAME.out, the endpoint's history endpoint.txt)\n", out)
}

func sortedKeys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
