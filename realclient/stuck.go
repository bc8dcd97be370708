package realclient

import (
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pkg/errors"

	"locksim/sim"
)

// A run's bubble ends only when every goroutine in it has returned. One
// that stays blocked for good on a channel of the library's own (a
// crashed client's goroutines waiting for a reply that never comes, a
// background loop nobody stops) makes testing/synctest panic with a
// deadlock; runOnce turns that panic into a refusal that names the
// goroutines and where they wait (blockedError), instead of crashing the
// test binary.

// deadlockPrefix starts the value testing/synctest panics with when its
// bubble deadlocks ("deadlock: main bubble goroutine has exited but
// blocked goroutines remain", "deadlock: all goroutines in bubble are
// blocked").
const deadlockPrefix = "deadlock: "

// asDeadlock returns v, a recovered panic value, as synctest's deadlock
// error, or nil when it is another panic.
func asDeadlock(v any) error {
	if e, ok := v.(error); ok && strings.HasPrefix(e.Error(), deadlockPrefix) {
		return e
	}
	return nil
}

var (
	bubbleRE = regexp.MustCompile(`synctest bubble (\d+)`)
	labelRE  = regexp.MustCompile(`"` + clientLabel + `": "([^"]*)"`)
)

// clientLabel is the pprof label that names a goroutine's process: set on
// each program's goroutine, inherited by every goroutine it starts.
const clientLabel = "locksim-client"

// deadlockAll is synctest's reason when every goroutine of the bubble,
// the harness's governor included, is blocked for good.
const deadlockAll = "deadlock: all goroutines in bubble are blocked"

// currentBubble returns the id of the synctest bubble the calling
// goroutine runs in (from its own stack header), 0 outside one.
func currentBubble() int {
	buf := make([]byte, 512)
	buf = buf[:runtime.Stack(buf, false)]
	header, _, _ := strings.Cut(string(buf), "\n")
	if m := bubbleRE.FindStringSubmatch(header); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// blockedIn returns where the goroutines of bubble wait, from a dump of
// every goroutine: for each, its wait reason and its innermost frame
// outside the runtime and the standard library's sync and time packages
// ("github.com/redis/rueidis/rueidislock.(*locker).try at lock.go:359
// (chan receive)"), counted and sorted, so the same run gives the same
// text whatever the goroutines' ids.
func blockedIn(bubble int) []string {
	if bubble == 0 {
		return nil
	}
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		if len(buf) >= 64<<20 {
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := map[string]int{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		lines := strings.Split(strings.TrimSpace(g), "\n")
		if len(lines) < 3 {
			continue
		}
		m := bubbleRE.FindStringSubmatch(lines[0])
		if m == nil || m[1] != strconv.Itoa(bubble) {
			continue
		}
		reason := lines[0]
		if i := strings.IndexByte(reason, '['); i >= 0 {
			reason = reason[i+1:]
		}
		reason, _, _ = strings.Cut(reason, ",")
		reason = strings.TrimSuffix(strings.TrimSuffix(reason, "]"), " (durable)")
		site := waitSite(lines[1:])
		if strings.HasPrefix(site, "locksim/realclient.") || strings.HasPrefix(site, "created by ") {
			continue // the harness's own goroutines
		}
		who := "a goroutine outside the clients"
		if l := labelRE.FindStringSubmatch(lines[0]); l != nil {
			who = l[1]
		}
		count[who+": "+site+" ("+reason+")"]++
	}
	var out []string
	for site, n := range count {
		if n > 1 {
			who, where, _ := strings.Cut(site, ": ")
			site = fmt.Sprintf("%s: %d goroutines in %s", who, n, where)
		}
		out = append(out, site)
	}
	slices.Sort(out)
	return out
}

// waitSite is the innermost frame of a goroutine's stack (function and
// file lines, alternating) outside the runtime and the packages a
// goroutine blocks in (sync, time, internal): the code that waits.
func waitSite(frames []string) string {
	for i := 0; i+1 < len(frames); i += 2 {
		fn := strings.TrimSpace(frames[i])
		if i := strings.LastIndexByte(fn, '('); i > 0 && strings.HasSuffix(fn, ")") {
			fn = fn[:i]
		}
		if std(fn) {
			continue
		}
		file := strings.TrimSpace(frames[i+1])
		if j := strings.LastIndexByte(file, ' '); j > 0 {
			file = file[:j] // drop the +0x offset
		}
		if j := strings.LastIndexByte(file, '/'); j >= 0 {
			file = file[j+1:]
		}
		return fn + " at " + file
	}
	return strings.TrimSpace(frames[0])
}

// std reports whether fn belongs to a package a goroutine blocks in on
// behalf of its caller.
func std(fn string) bool {
	for _, p := range []string{"runtime.", "sync.", "time.", "internal/", "context.", "testing/synctest."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// deadlockOutcome says what a deadlocked bubble means for the run. With
// a client crash, the run is refused (blockedError): a crashed process's
// goroutines may wait on the library's channels for good, which the
// harness cannot end. Otherwise, when every goroutine of the bubble was
// blocked for good before the programs returned, the library deadlocked:
// the run is stuck, which is its outcome (the first result, Stuck...), and
// its history so far is still judged. Goroutines left blocked after every
// program returned are refused too.
func deadlockOutcome(deadlock error, h sim.History, sites []string) (stuck, refused error) {
	if crashedClients(h) == nil && deadlock.Error() == deadlockAll && len(sites) > 0 {
		return errors.New(StuckPrefix + strings.Join(sites, "; ") + "; nothing in the run can wake them: the clients' programs never return (a deadlock in the library)"), nil
	}
	return nil, blockedError(deadlock, h, sites)
}

// StuckPrefix starts the run error (model.Result.Err) of a run in which
// the library deadlocked: every goroutine of the run blocked for good.
// The error names each blocked goroutine's process and where it waits
// ("B: ...(*GateNotify).Unlock at gatenotify.go:85 (chan send)"), the same
// text for the same run.
const StuckPrefix = "stuck: goroutines blocked for good: "

// crashedClients returns the clients a crash fault stopped.
func crashedClients(h sim.History) []string {
	var crashed []string
	for _, e := range h {
		if e.Kind == sim.KindCrash && !slices.Contains(crashed, e.Actor) {
			crashed = append(crashed, e.Actor)
		}
	}
	return crashed
}

// blockedError is the refusal of a run whose bubble deadlocked: which
// goroutines stayed blocked, where, and for a run with a client crash,
// why the harness cannot end them.
func blockedError(deadlock error, h sim.History, sites []string) error {
	where := "goroutines stayed blocked in the run's bubble"
	if len(sites) > 0 {
		where += ": " + strings.Join(sites, "; ")
	}
	if crashed := crashedClients(h); len(crashed) > 0 {
		return errors.Errorf("the run cannot be judged: client %s crashed, and after the run ended %s; a crashed process's goroutines stop at their next I/O, but these wait on the library's own channels, which nothing will close, so the bubble cannot end (testing/synctest: %s). A harness limit, not a verdict: leave the crash fault out for this library (WithFaults)", strings.Join(crashed, ", "), where, deadlock)
	}
	return errors.Errorf("the run cannot be judged: %s, and the bubble cannot end (testing/synctest: %s); a library goroutine that nothing stops (close the library's clients at the end of the program: Env.CloseAtExit)", where, deadlock)
}

// StuckAfter is how long, in wall time, a run's virtual time may stand
// still before the watchdog gives the run up as stuck: a goroutine
// waiting on a sync.Mutex (or spinning) is not durably blocked, so
// synctest neither advances time nor reports a deadlock, and the run
// would hang. Only this detection delay depends on the wall clock; what
// the verdict says (which goroutines wait where) does not. Tests may
// shorten it; a busy machine that stalls a run's governor this long would
// be taken for a stuck library, so keep it generous.
var StuckAfter = time.Minute

// watch waits for the bubble to end (done) and returns nil, or, when the
// governor's turn count stands still for StuckAfter of wall time, the
// bubble's blocked goroutines (blockedIn), at least one entry.
func watch(done <-chan struct{}, progress *atomic.Int64, bubble func() int) []string {
	tick := time.NewTicker(max(StuckAfter/20, time.Millisecond))
	defer tick.Stop()
	last, since := progress.Load(), time.Now()
	for {
		select {
		case <-done:
			return nil
		case now := <-tick.C:
			if p := progress.Load(); p != last {
				last, since = p, now
				continue
			}
			if now.Sub(since) < StuckAfter {
				continue
			}
			sites := blockedIn(bubble())
			if len(sites) == 0 {
				sites = []string{"no goroutine of the clients found blocked"}
			}
			return sites
		}
	}
}

// mutexStuck is the run error of a run given up by the watchdog.
func mutexStuck(sites []string) error {
	return errors.New(StuckPrefix + strings.Join(sites, "; ") + "; the run's virtual time stood still for " + StuckAfter.String() +
		" of wall time (a goroutine waiting on a sync.Mutex, which synctest does not count as durably blocked, or one that never yields): the clients' programs never return")
}
