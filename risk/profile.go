package risk

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/pkg/errors"
)

// Profile describes a production environment as rates and distributions:
// how often each fault arrives and how large it is, and the workload. A
// risk estimate draws fault schedules from it (Sampler) and so means "per
// acquisition, in this environment". Every rate is per hour of one
// process, node or link, as the field's name says.
type Profile struct {
	// Name and About say what environment this is.
	Name  string `json:"name"`
	About string `json:"about,omitempty"`
	// Horizon is the virtual time one simulated run covers (default 30s):
	// faults arrive over [0, Horizon) and clients work until it ends.
	Horizon Duration `json:"horizon,omitempty"`
	// Workload is what the clients do.
	Workload Workload `json:"workload"`
	// Pauses freeze a whole client process (GC stop-the-world, a VM
	// steal, SIGSTOP): per client process-hour, and their lengths.
	Pauses *Arrivals `json:"pauses,omitempty"`
	// Starvations hold back one task of a client process (CPU
	// starvation, throttling, a busy thread pool) while its other tasks run
	// on: per client process-hour, their lengths, and the task (default
	// "watchdog": the renewal timer runs late, the holder keeps working).
	Starvations *Starvations `json:"starvations,omitempty"`
	// Partitions cut one Redis node off from every client, per node-hour,
	// for Size.
	Partitions *Arrivals `json:"partitions,omitempty"`
	// NodeCrashes stop a Redis node for Size (it restarts with what its
	// persistence kept; a Sentinel topology fails over), per node-hour.
	NodeCrashes *Arrivals `json:"node_crashes,omitempty"`
	// ClockJumps step a Redis node's wall clock by Size, per node-hour;
	// BackwardFraction of them step it back.
	ClockJumps *Jumps `json:"clock_jumps,omitempty"`
	// ClockDriftPPM is each node's clock rate error, drawn uniformly in
	// [-ClockDriftPPM, +ClockDriftPPM] per run.
	ClockDriftPPM float64 `json:"clock_drift_ppm,omitempty"`
	// Network is latency and message loss between clients and nodes.
	Network Network `json:"network,omitempty"`
	// Sources cite where each number comes from, by field name.
	Sources map[string]string `json:"sources,omitempty"`
}

// Workload is what every client does in a loop: acquire, work for a
// section length, release, think.
type Workload struct {
	// Clients is how many processes contend for the lock (2 to 8).
	Clients int `json:"clients"`
	// AcquisitionsPerSecond is the whole service's lock rate: each client
	// thinks between cycles so that, uncontended, the clients together
	// reach it.
	AcquisitionsPerSecond float64 `json:"acquisitions_per_second"`
	// Section is the critical section's length (drawn once per run).
	Section Dist `json:"section"`
}

// Arrivals is a Poisson process of faults: PerHour of them per hour of one
// process or node, each lasting Size.
type Arrivals struct {
	PerHour float64 `json:"per_hour"`
	Size    Dist    `json:"size"`
}

// Starvations are Arrivals of CPU starvation of one task of a client
// process (sim's starve fault).
type Starvations struct {
	Arrivals
	// Task is the task held back: "watchdog" (the default) or "main".
	Task string `json:"task,omitempty"`
}

// task is the starved task, "watchdog" when the profile names none.
func (s *Starvations) task() string {
	if s.Task == "" {
		return "watchdog"
	}
	return s.Task
}

// Jumps are clock steps: Arrivals with the share that steps back.
type Jumps struct {
	Arrivals
	BackwardFraction float64 `json:"backward_fraction,omitempty"`
}

// Network is the links between clients and nodes.
type Network struct {
	// LatencyMin and LatencyMax bound each message's one-way latency
	// (default 1ms to 2ms, the simulator's).
	LatencyMin Duration `json:"latency_min,omitempty"`
	LatencyMax Duration `json:"latency_max,omitempty"`
	// DropsPerLinkHour is how often one message of a client->node link is
	// lost (an unknown outcome for the client), per link-hour.
	DropsPerLinkHour float64 `json:"drops_per_link_hour,omitempty"`
}

// Limits of a profile.
const (
	// MaxProfileBytes bounds a profile file.
	MaxProfileBytes = 1 << 20
	// MaxPerHour bounds every rate: more than one fault a second of every
	// process is no environment a lock runs in.
	MaxPerHour = 3600
	// MaxHorizon bounds one run's virtual time.
	MaxHorizon = time.Hour
	// MaxClients bounds the workload's clients.
	MaxClients = 8
	// MaxAcquisitionsPerSecond bounds the workload's rate.
	MaxAcquisitionsPerSecond = 1000
)

// DefaultHorizon is a run's virtual time when the profile gives none.
const DefaultHorizon = 30 * time.Second

//go:embed default.json
var defaultProfile []byte

// Default is the built-in profile (default.json): a JVM service with G1's
// default pause goal, each number with its source in Sources.
func Default() Profile {
	p, err := Parse(bytes.NewReader(defaultProfile))
	if err != nil {
		panic("risk: the embedded default profile does not parse: " + err.Error())
	}
	return p
}

// Parse reads and validates a profile (JSON, at most MaxProfileBytes). An
// error names the field.
func Parse(r io.Reader) (Profile, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxProfileBytes+1))
	if err != nil {
		return Profile{}, errors.Wrap(err, "read profile")
	}
	if len(b) > MaxProfileBytes {
		return Profile{}, errors.Errorf("profile: larger than the limit of %d bytes", MaxProfileBytes)
	}
	var p Profile
	if err := strictUnmarshal(b, &p); err != nil {
		return Profile{}, errors.Wrap(err, "profile")
	}
	if err := p.Validate(); err != nil {
		return Profile{}, errors.Wrap(err, "profile")
	}
	return p, nil
}

// ReadProfile reads and validates the profile in a file (Parse): for a
// test that estimates with a profile kept next to it.
func ReadProfile(path string) (Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return Profile{}, err
	}
	defer f.Close()
	p, err := Parse(f)
	return p, errors.Wrap(err, path)
}

// Validate checks every field against its limits; the error names it.
func (p Profile) Validate() error {
	if p.Horizon != 0 && (time.Duration(p.Horizon) < time.Second || time.Duration(p.Horizon) > MaxHorizon) {
		return errors.Errorf("horizon: %v is outside 1s to %v", time.Duration(p.Horizon), MaxHorizon)
	}
	w := p.Workload
	if w.Clients < 2 || w.Clients > MaxClients {
		return errors.Errorf("workload.clients: %d is outside 2 to %d (a lock needs two contenders)", w.Clients, MaxClients)
	}
	if err := rate("workload.acquisitions_per_second", w.AcquisitionsPerSecond, MaxAcquisitionsPerSecond); err != nil {
		return err
	}
	if w.AcquisitionsPerSecond == 0 {
		return errors.New("workload.acquisitions_per_second: must be above 0")
	}
	if w.Section.Points == nil {
		return errors.New("workload.section: missing")
	}
	if err := w.Section.Validate(); err != nil {
		return errors.Wrap(err, "workload.section")
	}
	if s := p.Starvations; s != nil && s.Task != "" && s.Task != "watchdog" && s.Task != "main" {
		return errors.Errorf("starvations.task: %q is not a task (watchdog or main)", s.Task)
	}
	for name, a := range map[string]*Arrivals{"pauses": p.Pauses, "starvations": p.starvations(), "partitions": p.Partitions, "node_crashes": p.NodeCrashes, "clock_jumps": p.jumps()} {
		if a == nil {
			continue
		}
		if err := rate(name+".per_hour", a.PerHour, MaxPerHour); err != nil {
			return err
		}
		if a.Size.Points == nil {
			return errors.Errorf("%s.size: missing", name)
		}
		if err := a.Size.Validate(); err != nil {
			return errors.Wrapf(err, "%s.size", name)
		}
	}
	if j := p.ClockJumps; j != nil && (j.BackwardFraction < 0 || j.BackwardFraction > 1 || math.IsNaN(j.BackwardFraction)) {
		return errors.Errorf("clock_jumps.backward_fraction: %v is outside 0 to 1", j.BackwardFraction)
	}
	if p.ClockDriftPPM < 0 || p.ClockDriftPPM > 100_000 || math.IsNaN(p.ClockDriftPPM) {
		return errors.Errorf("clock_drift_ppm: %v is outside 0 to 100000", p.ClockDriftPPM)
	}
	n := p.Network
	if n.LatencyMax < n.LatencyMin || time.Duration(n.LatencyMax) > time.Second {
		return errors.Errorf("network.latency_min %v and network.latency_max %v: they must rise and stay under 1s", time.Duration(n.LatencyMin), time.Duration(n.LatencyMax))
	}
	if (n.LatencyMin == 0) != (n.LatencyMax == 0) {
		return errors.New("network.latency_min, network.latency_max: give both or neither")
	}
	if err := rate("network.drops_per_link_hour", n.DropsPerLinkHour, MaxPerHour); err != nil {
		return err
	}
	for k := range p.Sources {
		if !strings.Contains(sourceFields, " "+k+" ") {
			return errors.Errorf("sources: %q names no field of the profile (%s)", k, strings.TrimSpace(sourceFields))
		}
	}
	return nil
}

// sourceFields are the names Sources may cite.
const sourceFields = " horizon workload pauses starvations partitions node_crashes clock_jumps clock_drift_ppm network "

// starvations is the profile's starvations as Arrivals (nil for none).
func (p Profile) starvations() *Arrivals {
	if p.Starvations == nil {
		return nil
	}
	return &p.Starvations.Arrivals
}

func (p Profile) jumps() *Arrivals {
	if p.ClockJumps == nil {
		return nil
	}
	return &p.ClockJumps.Arrivals
}

func rate(field string, v, max float64) error {
	if v < 0 || v > max || math.IsNaN(v) || math.IsInf(v, 0) {
		return errors.Errorf("%s: %v is outside 0 to %v", field, v, max)
	}
	return nil
}

// HorizonOrDefault is the run's virtual time.
func (p Profile) HorizonOrDefault() time.Duration {
	if p.Horizon == 0 {
		return DefaultHorizon
	}
	return time.Duration(p.Horizon)
}

// JSON renders the profile as an indented document Parse reads back.
func (p Profile) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
