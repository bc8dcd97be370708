package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"locksim/clock"
	"locksim/network"

	"locksim/internal/bounded"
)

// FaultKind names a kind of fault. The names are the catalogue's and are
// used in scenario files, CLI flags and output.
type FaultKind string

// The fault kinds.
const (
	// FaultPause freezes process Target for Dur: every task, the watchdog
	// too; replies and timers for it queue until it resumes.
	FaultPause FaultKind = "pause"
	// FaultCrash stops process Target for good, or restarts it with no
	// memory after Dur when Restart is set.
	FaultCrash FaultKind = "crash"
	// FaultPartition blocks messages between endpoint sets A and B for Dur
	// (0: forever); OneWay blocks only A -> B.
	FaultPartition FaultKind = "partition"
	// FaultDelay adds Extra to messages From -> To sent within Dur.
	FaultDelay FaultKind = "delay"
	// FaultDrop loses the next Count messages From -> To sent within Dur
	// (0: forever). Dropping a node's reply is the ambiguous outcome.
	FaultDrop FaultKind = "drop"
	// FaultNodeCrash stops Redis node Target; it restarts after Dur (0:
	// never) with what its persistence mode kept.
	FaultNodeCrash FaultKind = "node-crash"
	// FaultClockJump steps the wall clock of process or node Target by By.
	FaultClockJump FaultKind = "clock-jump"
	// FaultClockDrift sets the rate of Target's clock to RatePPM.
	FaultClockDrift FaultKind = "clock-drift"
	// FaultEvict evicts Key from node Target if it has a TTL (volatile-*).
	FaultEvict FaultKind = "evict"
	// FaultNodeStall blocks Redis node Target for Dur, as a slow command
	// or a fork blocks single-threaded Redis: it serves nothing, its clock
	// runs on, what reaches it runs at the resume, after the keys that
	// expired meanwhile are gone (stall.go).
	FaultNodeStall FaultKind = "node-stall"
	// FaultStarve holds back task Task of client process Target for Dur,
	// as CPU starvation does a thread: its wake-ups and operations wait
	// for the window's end while the process's other tasks run on
	// (starve.go).
	FaultStarve FaultKind = "starve"
	// FaultMemoryPressure writes a burst of another application's data,
	// Size bytes of memory, to Redis node Target, which evicts for it by
	// its maxmemory-policy (evict.go); a node without maxmemory is capped
	// at what it holds at the fault's time, under Policy. The burst's keys
	// live Dur (0: for good) (pressure.go).
	FaultMemoryPressure FaultKind = "memory-pressure"
	// FaultSlotMigrate moves the hash slot of Key to the cluster primary
	// Target (cluster_migrate.go): legacy (the keys move at once, ASK
	// redirects for Dur, then the slot is handed over) or, with Atomic,
	// Redis 8.4's atomic migration (writes to the slot wait on the source
	// for Dur, then the keys and the slot move together).
	FaultSlotMigrate FaultKind = "slot-migrate"
	// FaultClusterFailover sends CLUSTER FAILOVER (FORCE with Force) to the
	// cluster replica Target, as an operator does (cluster_failover.go):
	// it is promoted once it has applied what its primary sent, or at once
	// with Force.
	FaultClusterFailover FaultKind = "cluster-failover"
)

// Targets says which names a fault kind acts on, and in which Fault
// fields.
type Targets uint8

// The target classes.
const (
	// TargetClient: Target names a client process.
	TargetClient Targets = 1 << iota
	// TargetNode: Target names a Redis node.
	TargetNode
	// TargetSides: A and B are two sets of endpoints (clients, nodes,
	// services, the sentinel).
	TargetSides
	// TargetLink: From -> To is a directed link between endpoints; "*"
	// is any endpoint.
	TargetLink
)

// Has reports whether t includes all of o.
func (t Targets) Has(o Targets) bool { return t&o == o }

// FaultArgs reads a fault's arguments (the words between its kind and its
// clauses) for a kind's parser. Package scenarios implements it with its
// limits and error texts; errors are plain messages without a prefix.
type FaultArgs interface {
	// Arg returns the next argument; what names it in the error when
	// there is none ("a target").
	Arg(what string) (string, error)
	// Args returns every argument up to the next clause.
	Args() []string
	// Plus returns the next argument without its leading "+", if it has
	// one.
	Plus() (string, bool)
	// IsClause reports whether a word would start a clause.
	IsClause(word string) bool
	// Dur and SignedDur parse a duration within the file's limits
	// (Dur: not negative); Int an integer in [lo, hi].
	Dur(s, what string) (time.Duration, error)
	SignedDur(s, what string) (time.Duration, error)
	Int(s, what string, lo, hi int64) (int64, error)
}

// FaultKindInfo is everything a fault kind is: the one table (FaultKindTable)
// that parsing, formatting, validation and applying read. Packages above
// sim keep their own entry per kind (the generator's draw in scenarios,
// the exhaustive menu in engine, the descriptions in report), each in a
// table keyed by Kind with a test that fails when a kind has none.
type FaultKindInfo struct {
	Kind FaultKind
	// About says in one line what the kind does, for listings.
	About string
	// Targets says which names the fault acts on.
	Targets Targets
	// Syntax is the arguments' form in a fault line: "CLIENT",
	// "NODE key=KEY".
	Syntax string
	// Flag, if set, is a word the kind may take among its clauses
	// ("oneway", "restart"); flag reads and sets it on a fault.
	Flag string
	flag func(f *Fault) *bool
	// Events are the event kinds applying the fault records, its start
	// first; later ones mark its end or repair.
	Events []Kind
	// LastsDur says that the start event's Dur is how long the fault
	// lasts (0: for good), and that nothing else ends it earlier than
	// At+Dur for a heal (model/history.Index.Heal).
	LastsDur bool

	parse  func(f *Fault, a FaultArgs) error
	format func(f Fault) string
	// check validates the kind's values (names aside, which Targets
	// says how to check): the one validation, shared by Config and
	// scenario files. Messages have no prefix.
	check func(f Fault) error
	// apply starts the fault now; end is when its window closes
	// (network.Forever for good).
	apply func(w *World, i int, f Fault, end time.Duration)
}

// FaultKindTable is the table of fault kinds, in catalogue order.
// FaultKinds lists the same kinds. It is filled in by init: its appliers
// reach applyFault, which reads it, and Go refuses that cycle in a
// variable's initialiser.
var FaultKindTable []FaultKindInfo

func init() {
	FaultKindTable = faultKindTable()
	for _, info := range FaultKindTable {
		FaultKinds = append(FaultKinds, info.Kind)
		FaultAbout[info.Kind] = info.About
		for i, k := range info.Events {
			faultEvents[k] = true
			lastsDur[k] = lastsDur[k] || i == 0 && info.LastsDur
		}
	}
}

// faultEvents and lastsDur index FaultKindTable's events (IsFaultEvent,
// FaultLastsDur), read once per event of a history.
var faultEvents, lastsDur = map[Kind]bool{}, map[Kind]bool{}

func faultKindTable() []FaultKindInfo {
	return []FaultKindInfo{
		{
			Kind: FaultPause, About: "freeze a client process (all its tasks) for a while: a GC or stop-the-world pause",
			Targets: TargetClient, Syntax: "CLIENT", Events: []Kind{KindPause, KindResume},
			parse: parseTarget("a target"), format: formatTarget,
			check: func(f Fault) error {
				if f.Dur <= 0 {
					return errors.New("pause needs a positive duration: for D")
				}
				return nil
			},
			apply: (*World).applyPause,
		},
		{
			Kind: FaultCrash, About: "stop a client process for good, or restart it with no memory",
			Targets: TargetClient, Syntax: "CLIENT", Flag: "restart", flag: func(f *Fault) *bool { return &f.Restart },
			Events: []Kind{KindCrash, KindRestart},
			parse:  parseTarget("a target"), format: formatTarget, check: noCheck,
			apply: (*World).applyCrash,
		},
		{
			Kind: FaultPartition, About: "cut the messages between two sets of endpoints, both ways or one; a stream cut for good resets, or with mode=blackhole its packets vanish",
			Targets: TargetSides, Syntax: "A,B | C,D", Flag: "oneway", flag: func(f *Fault) *bool { return &f.OneWay },
			Events: []Kind{KindPartition, KindHeal},
			parse: func(f *Fault, a FaultArgs) (err error) {
				args := a.Args()
				var sides []string
				for _, w := range args {
					switch {
					case w == "mode=blackhole":
						f.Blackhole = true
					case w == "mode=reset":
						f.Blackhole = false
					case strings.HasPrefix(w, "mode="):
						return errors.Errorf("partition: unknown mode %q (reset, the default, or blackhole)", strings.TrimPrefix(w, "mode="))
					default:
						sides = append(sides, w)
					}
				}
				f.A, f.B, err = parseSides(strings.Join(sides, ""), a)
				return err
			},
			format: func(f Fault) string {
				s := strings.Join(f.A, ",") + " | " + strings.Join(f.B, ",")
				if f.Blackhole {
					s += " mode=blackhole"
				}
				return s
			},
			check: func(f Fault) error {
				if len(f.A) == 0 || len(f.B) == 0 {
					return errors.New("a partition needs two non-empty sides")
				}
				return nil
			},
			apply: (*World).applyPartition,
		},
		{
			Kind: FaultDelay, About: "add delay to the messages of one link sent within a window",
			Targets: TargetLink, Syntax: "FROM->TO +EXTRA", Events: []Kind{KindNetDelay},
			parse: func(f *Fault, a FaultArgs) error {
				if err := parseLinkArg(f, a); err != nil {
					return err
				}
				extra, ok := a.Plus()
				if !ok {
					return errors.New("delay needs the extra delay after the link, e.g. +1.5s")
				}
				var err error
				f.Extra, err = a.Dur(extra, "delay extra")
				return err
			},
			format: func(f Fault) string { return f.From + "->" + f.To + " +" + FormatDuration(f.Extra) },
			check: func(f Fault) error {
				if f.Extra <= 0 {
					return errors.Errorf("delay: the extra delay must be positive, got %v", f.Extra)
				}
				return nil
			},
			apply: (*World).applyDelay,
		},
		{
			Kind: FaultDrop, About: "lose the next messages of one link: a lost reply is an unknown outcome",
			Targets: TargetLink, Syntax: "FROM->TO count=N", Events: []Kind{KindNetDrop},
			parse: func(f *Fault, a FaultArgs) error {
				if err := parseLinkArg(f, a); err != nil {
					return err
				}
				n, err := keyed(a, f.Kind, "count", "N")
				if err != nil {
					return err
				}
				c, err := a.Int(n, "drop count", 1, maxFaultCount)
				f.Count = int(c)
				return err
			},
			format: func(f Fault) string { return f.From + "->" + f.To + " count=" + strconv.Itoa(f.Count) },
			check: func(f Fault) error {
				if f.Count <= 0 {
					return errors.Errorf("drop: the count must be positive, got %d", f.Count)
				}
				return nil
			},
			apply: (*World).applyDrop,
		},
		{
			Kind: FaultNodeCrash, About: "stop a Redis node; it restarts with what its persistence kept",
			Targets: TargetNode, Syntax: "NODE", Events: []Kind{KindNodeCrash, KindNodeUp},
			parse: parseTarget("a target"), format: formatTarget, check: noCheck,
			apply: (*World).applyNodeCrash,
		},
		{
			Kind: FaultClockJump, About: "step the wall clock of a node (or client) forward or back",
			Targets: TargetClient | TargetNode, Syntax: "NAME by=±D", Events: []Kind{KindClockJump},
			parse: func(f *Fault, a FaultArgs) (err error) {
				if f.Target, err = a.Arg("a target"); err != nil {
					return err
				}
				by, err := keyed(a, f.Kind, "by", "±DURATION")
				if err == nil {
					f.By, err = a.SignedDur(by, "clock-jump by")
				}
				return err
			},
			format: func(f Fault) string {
				by := FormatDuration(f.By)
				if f.By >= 0 {
					by = "+" + by
				}
				return f.Target + " by=" + by
			},
			check: func(f Fault) error {
				if f.By == 0 {
					return errors.New("clock-jump: by must not be zero")
				}
				return nil
			},
			apply: (*World).applyClockJump,
		},
		{
			Kind: FaultClockDrift, About: "make a clock run fast or slow (ppm)",
			Targets: TargetClient | TargetNode, Syntax: "NAME rate=±Nppm", Events: []Kind{KindClockDrift},
			parse: func(f *Fault, a FaultArgs) (err error) {
				if f.Target, err = a.Arg("a target"); err != nil {
					return err
				}
				r, err := a.Arg("rate=±Nppm")
				if err != nil {
					return err
				}
				// The sign is optional; so is the suffix in the older ppm=N.
				switch {
				case strings.HasPrefix(r, "rate="):
					n, ok := strings.CutSuffix(strings.TrimPrefix(r, "rate="), "ppm")
					if !ok {
						return errors.Errorf("clock-drift rate: want a rate like +20000ppm, got %s", bounded.Q(strings.TrimPrefix(r, "rate=")))
					}
					f.RatePPM, err = a.Int(n, "clock-drift rate", -clock.MaxRatePPM, clock.MaxRatePPM)
				case strings.HasPrefix(r, "ppm="):
					f.RatePPM, err = a.Int(strings.TrimPrefix(r, "ppm="), "clock-drift ppm", -clock.MaxRatePPM, clock.MaxRatePPM)
				default:
					err = errors.Errorf("clock-drift: want rate=±Nppm, got %s", bounded.Q(r))
				}
				return err
			},
			format: func(f Fault) string {
				ppm := strconv.FormatInt(f.RatePPM, 10) + "ppm"
				if f.RatePPM >= 0 {
					ppm = "+" + ppm
				}
				return f.Target + " rate=" + ppm
			},
			check: func(f Fault) error {
				if f.RatePPM < -clock.MaxRatePPM || f.RatePPM > clock.MaxRatePPM {
					return errors.Errorf("clock-drift: rate %dppm out of range [%d, %d]", f.RatePPM, -clock.MaxRatePPM, clock.MaxRatePPM)
				}
				return nil
			},
			apply: (*World).applyClockDrift,
		},
		{
			Kind: FaultEvict, About: "evict the lock key from a node (a volatile-* maxmemory policy)",
			Targets: TargetNode, Syntax: "NODE key=KEY", Events: []Kind{KindEvict},
			parse: func(f *Fault, a FaultArgs) (err error) {
				if f.Target, err = a.Arg("a node"); err != nil {
					return err
				}
				f.Key, err = keyed(a, f.Kind, "key", "KEY")
				return err
			},
			format: func(f Fault) string { return f.Target + " key=" + f.Key },
			check: func(f Fault) error {
				if f.Key == "" {
					return errors.New("evict needs a key")
				}
				return nil
			},
			apply: (*World).applyEvict,
		},
		{
			Kind: FaultNodeStall, About: "block a Redis node for a while (a slow command, a fork): what reaches it runs at the resume",
			Targets: TargetNode, Syntax: "NODE", Events: []Kind{KindNodeStall, KindNodeResume}, LastsDur: true,
			parse: parseTarget("a target"), format: formatTarget,
			check: func(f Fault) error {
				if f.Dur <= 0 {
					return errors.New("node-stall needs a positive duration: for D")
				}
				return nil
			},
			apply: (*World).applyNodeStall,
		},
		{
			Kind: FaultStarve, About: "starve one task of a client process (CPU starvation): it runs late while the process's other tasks run on",
			Targets: TargetClient, Syntax: "CLIENT task=TASK", Events: []Kind{KindStarve, KindStarveEnd}, LastsDur: true,
			parse: func(f *Fault, a FaultArgs) (err error) {
				if f.Target, err = a.Arg("a client"); err != nil {
					return err
				}
				f.Task, err = keyed(a, f.Kind, "task", "TASK")
				return err
			},
			format: func(f Fault) string { return f.Target + " task=" + f.Task },
			check: func(f Fault) error {
				switch {
				case f.Task == "":
					return errors.New("starve needs a task: task=watchdog or task=main")
				case f.Dur <= 0:
					return errors.New("starve needs a positive duration: for D")
				}
				return nil
			},
			apply: (*World).applyStarve,
		},
		{
			Kind: FaultMemoryPressure, About: "a burst of other data written to a Redis node: it evicts by its maxmemory-policy (a node without maxmemory is capped at what it holds, under policy=)",
			Targets: TargetNode, Syntax: "NODE size=BYTES [policy=POLICY]", Events: []Kind{KindMemoryPressure}, LastsDur: true,
			parse: parsePressure, format: formatPressure, check: checkPressure,
			apply: (*World).applyMemoryPressure,
		},
		{
			Kind: FaultSlotMigrate, About: "move a key's hash slot to another cluster primary: legacy (ASK redirects for a while) or atomic (Redis 8.4: writes to the slot paused for a while)",
			Targets: TargetNode, Syntax: "NODE key=KEY", Flag: "atomic", flag: func(f *Fault) *bool { return &f.Atomic },
			Events: []Kind{KindSlotMigrate, KindSlotMoved}, LastsDur: true,
			parse: func(f *Fault, a FaultArgs) (err error) {
				if f.Target, err = a.Arg("a node"); err != nil {
					return err
				}
				f.Key, err = keyed(a, f.Kind, "key", "KEY")
				return err
			},
			format: func(f Fault) string { return f.Target + " key=" + f.Key },
			check: func(f Fault) error {
				switch {
				case f.Key == "":
					return errors.New("slot-migrate needs a key")
				case f.Dur <= 0:
					return errors.New("slot-migrate needs a positive duration: for D")
				}
				return nil
			},
			apply: (*World).applySlotMigrate,
		},
		{
			Kind: FaultClusterFailover, About: "an operator's CLUSTER FAILOVER on a cluster replica: promoted once caught up, or at once with force",
			Targets: TargetNode, Syntax: "NODE", Flag: "force", flag: func(f *Fault) *bool { return &f.Force },
			Events: []Kind{KindClusterFailover},
			parse:  parseTarget("a replica"), format: formatTarget, check: noCheck,
			apply: (*World).applyClusterFailover,
		},
	}
}

// maxFaultCount bounds a drop's count in a fault line (model.MaxCount).
const maxFaultCount = 1_000_000

// FaultKindOf returns the table entry of kind k.
func FaultKindOf(k FaultKind) (FaultKindInfo, bool) {
	for _, info := range FaultKindTable {
		if info.Kind == k {
			return info, true
		}
	}
	return FaultKindInfo{}, false
}

// ParseArgs parses the kind's arguments into f (whose Kind is set).
func (info FaultKindInfo) ParseArgs(f *Fault, a FaultArgs) error { return info.parse(f, a) }

// FormatArgs renders the kind's arguments as ParseArgs reads them.
func (info FaultKindInfo) FormatArgs(f Fault) string { return info.format(f) }

// Check validates a fault's values for its kind (not its names, not its
// times): the one place these rules live.
func (info FaultKindInfo) Check(f Fault) error { return info.check(f) }

// SetFlag sets the kind's flag word on f, reporting false when the kind
// has no such flag or f has it already.
func (info FaultKindInfo) SetFlag(f *Fault, word string) bool {
	if info.Flag == "" || word != info.Flag || *info.flag(f) {
		return false
	}
	*info.flag(f) = true
	return true
}

// HasFlag reports whether f carries the kind's flag.
func (info FaultKindInfo) HasFlag(f Fault) bool { return info.Flag != "" && *info.flag(&f) }

// FaultFlags lists every kind's flag word.
func FaultFlags() []string {
	var ws []string
	for _, info := range FaultKindTable {
		if info.Flag != "" {
			ws = append(ws, info.Flag)
		}
	}
	return ws
}

// IsFaultEvent reports whether event kind k is recorded by applying a
// fault (its start or its end).
func IsFaultEvent(k Kind) bool { return faultEvents[k] }

// FaultLastsDur reports whether event kind k starts a fault that lasts its
// event's Dur (FaultKindInfo.LastsDur).
func FaultLastsDur(k Kind) bool { return lastsDur[k] }

func noCheck(Fault) error { return nil }

func parseTarget(what string) func(f *Fault, a FaultArgs) error {
	return func(f *Fault, a FaultArgs) (err error) {
		f.Target, err = a.Arg(what)
		return err
	}
}

func formatTarget(f Fault) string { return f.Target }

// keyed reads an argument key=VALUE.
func keyed(a FaultArgs, k FaultKind, key, what string) (string, error) {
	w, err := a.Arg(key + "=" + what)
	if err != nil {
		return "", err
	}
	v, ok := strings.CutPrefix(w, key+"=")
	if !ok || v == "" {
		return "", errors.Errorf("%s: want %s=%s, got %s", k, key, what, bounded.Q(w))
	}
	return v, nil
}

// parseSides parses "a,b | c,d" (spaces removed).
func parseSides(s string, a FaultArgs) (l, r []string, err error) {
	left, right, ok := strings.Cut(s, "|")
	if !ok || strings.Contains(right, "|") {
		return nil, nil, errors.New("partition needs two sides, e.g. r1,A | r2,B")
	}
	if l, err = splitNames(left, a); err == nil {
		r, err = splitNames(right, a)
	}
	return l, r, err
}

func splitNames(s string, a FaultArgs) ([]string, error) {
	if s == "" {
		return nil, errors.New("partition: a side is empty")
	}
	ns := strings.Split(s, ",")
	for _, n := range ns {
		if n == "" {
			return nil, errors.Errorf("partition: empty name in %s", bounded.Q(s))
		}
		if a.IsClause(n) || strings.ContainsAny(n, "|>") {
			// The formatted fault would read it as a clause: refuse it
			// here so that every fault that parses formats back.
			return nil, errors.Errorf("partition: %s is not a name", bounded.Q(n))
		}
	}
	return ns, nil
}

// parseLinkArg reads FROM->TO into f.
func parseLinkArg(f *Fault, a FaultArgs) error {
	s, err := a.Arg("a link FROM->TO")
	if err != nil {
		return err
	}
	from, to, ok := strings.Cut(s, "->")
	if !ok || from == "" || to == "" || strings.Contains(to, "->") {
		return errors.Errorf("want a link FROM->TO, got %s", bounded.Q(s))
	}
	f.From, f.To = from, to
	return nil
}

// The appliers, one per kind; FaultKindTable names them.

func (w *World) applyPause(i int, f Fault, _ time.Duration) {
	if p := w.procs[f.Target]; !p.dead {
		p.pause(f.Dur)
	} else {
		w.faultOut[i] = FaultNoTarget
	}
}

func (w *World) applyCrash(i int, f Fault, _ time.Duration) {
	if p := w.procs[f.Target]; p.dead {
		w.faultOut[i] = FaultNoTarget
	}
	w.procs[f.Target].crash(f.Restart, f.Dur)
}

func (w *World) applyPartition(_ int, f Fault, end time.Duration) {
	w.net.AddPartition(network.Partition{A: f.A, B: f.B, OneWay: f.OneWay, Blackhole: f.Blackhole, Start: w.now, End: end})
	sides := strings.Join(f.A, ",") + " | " + strings.Join(f.B, ",")
	if f.OneWay {
		sides += " (one-way)"
	}
	if f.Blackhole {
		sides += " (blackhole)"
	}
	w.record(&Event{Actor: FaultActor, Kind: KindPartition, Local: w.now, Dur: f.Dur, Note: sides})
	w.sentinel.reevaluate()
	if end != network.Forever {
		w.schedule(end, func() {
			w.record(&Event{Actor: FaultActor, Kind: KindHeal, Local: w.now, Note: sides})
			w.sentinel.reevaluate()
		})
	}
}

func (w *World) applyDelay(i int, f Fault, end time.Duration) {
	w.faultOut[i] = FaultNoTarget // until the window delays a message
	w.netHits = append(w.netHits, netHit{fault: i, window: w.net.AddDelay(network.Delay{From: f.From, To: f.To, Extra: f.Extra, Start: w.now, End: end})})
	w.record(&Event{Actor: FaultActor, Kind: KindNetDelay, Local: w.now, Dur: f.Dur, N: int64(f.Extra), Note: f.From + "->" + f.To})
}

func (w *World) applyDrop(i int, f Fault, end time.Duration) {
	w.faultOut[i] = FaultNoTarget // until the window loses a message
	w.netHits = append(w.netHits, netHit{fault: i, drop: true, window: w.net.AddDrop(network.Drop{From: f.From, To: f.To, Count: f.Count, Start: w.now, End: end})})
	w.record(&Event{Actor: FaultActor, Kind: KindNetDrop, Local: w.now, Dur: f.Dur, N: int64(f.Count), Note: f.From + "->" + f.To})
}

func (w *World) applyNodeCrash(i int, f Fault, _ time.Duration) {
	if !w.nodes[f.Target].up {
		w.faultOut[i] = FaultNoTarget
	}
	w.nodes[f.Target].crash(f.Dur)
}

func (w *World) applyClockJump(_ int, f Fault, _ time.Duration) {
	if n := w.nodes[f.Target]; n != nil {
		n.jumpClock(f.By) // records the jump
		return
	}
	p := w.procs[f.Target]
	p.clock.AddJump(clock.Jump{At: w.now, By: f.By})
	w.record(&Event{Actor: p.name, Kind: KindClockJump, Local: p.clock.Mono(w.now), Dur: f.By})
}

func (w *World) applyClockDrift(_ int, f Fault, _ time.Duration) {
	if n := w.nodes[f.Target]; n != nil {
		n.setRate(f.RatePPM)
		w.record(&Event{Actor: n.name, Kind: KindClockDrift, Local: n.local(), N: f.RatePPM})
		return
	}
	p := w.procs[f.Target]
	_ = p.clock.SetRatePPM(w.now, f.RatePPM)
	w.record(&Event{Actor: p.name, Kind: KindClockDrift, Local: p.clock.Mono(w.now), N: f.RatePPM})
}

func (w *World) applyNodeStall(i int, f Fault, _ time.Duration) {
	if !w.nodes[f.Target].stall(f.Dur) {
		w.faultOut[i] = FaultNoTarget
	}
}

func (w *World) applyEvict(i int, f Fault, _ time.Duration) {
	n := w.nodes[f.Target]
	// A stalled node's thread evicts nothing until it runs again: the
	// eviction waits for the resume, and fires only if it finds the key.
	if n.stalled { // only while up (stall.go)
		w.faultOut[i] = FaultNoTarget
		n.whenServing(func() {
			if n.evict(f.Key) {
				w.faultOut[i] = FaultFired
			}
		})
		return
	}
	if !n.evict(f.Key) {
		w.faultOut[i] = FaultNoTarget
	}
}
