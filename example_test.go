package locksim_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"locksim"
	"locksim/model"
	"locksim/model/invariant"
	"locksim/sim"
)

// myLock is a user's own design: SET NX PX to acquire, but a plain DEL to
// release, which deletes whoever holds the key by then.
type myLock struct{}

func (myLock) Name() string { return "my-lock" }

func (myLock) TryAcquire(c *model.Client, value string) (model.Lease, bool, error) {
	g := c.Masters()[0]
	r, err := c.Call(g, "SET", c.Key, value, "NX", "PX", c.TTLms())
	if err != nil {
		return model.Lease{}, false, err // outcome unknown: retried with the same value
	}
	return model.Lease{Key: c.Key, Value: value, Nodes: []string{c.Primary(g)}}, r.Str == "OK", nil
}

func (myLock) Release(c *model.Client, l *model.Lease) error {
	c.Releasing(l) // about to give the key back: stories pause here (stale-release)
	_, err := c.Call(c.Masters()[0], "DEL", c.Key)
	return err
}

// Example_dataSurvives asks the narrower question for the catalogue's
// fenced design with fenced reads: under pauses and delays, does the data
// survive, even though the lease breaks?
func Example_dataSurvives() {
	t := &recorder{}
	locksim.Check(t, model.Fenced,
		locksim.WithFencing(model.FenceStrictReads),
		locksim.WithFaults(sim.FaultPause, sim.FaultDelay),
		locksim.WithInvariants(invariant.LostUpdate),
		locksim.WithCaseDir(tempDir()))
	fmt.Println("test failed:", t.failed)
	// Output:
	// test failed: false
}

// In a test you write locksim.Check(t, myLock{}, ...) with the test's own
// *testing.T; this example passes a recorder so it can show the outcome.
func Example_customDesign() {
	t := &recorder{}
	locksim.Check(t, myLock{}, locksim.WithFaults(sim.FaultPause), locksim.WithCaseDir(tempDir()))
	fmt.Println("test failed:", t.failed)
	fmt.Println("names the design:", strings.Contains(t.errors, "locksim: design my-lock broke"))
	fmt.Println("shows the schedule:", strings.Contains(t.logs, "fault schedule:"))
	fmt.Println("shows how to replay:", strings.Contains(t.logs, "c.Replay(yourDesign)"))
	// Output:
	// test failed: true
	// names the design: true
	// shows the schedule: true
	// shows how to replay: true
}

// recorder is a rapid.TB that records instead of failing.
type recorder struct {
	testing.TB
	failed       bool
	errors, logs string
}

func (r *recorder) Helper()                         {}
func (r *recorder) Name() string                    { return "Example_customDesign" }
func (r *recorder) Logf(format string, args ...any) { r.logs += fmt.Sprintf(format, args...) + "\n" }
func (r *recorder) Log(args ...any)                 { r.logs += fmt.Sprint(args...) + "\n" }
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.errors += fmt.Sprintf(format, args...)
}
func (r *recorder) Error(args ...any)                 { r.failed = true; r.errors += fmt.Sprint(args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...) }
func (r *recorder) FailNow()                          { r.failed = true }
func (r *recorder) Fail()                             { r.failed = true }
func (r *recorder) Failed() bool                      { return r.failed }
func (r *recorder) Skipf(string, ...any)              {}
func (r *recorder) Skip(...any)                       {}
func (r *recorder) SkipNow()                          {}

// ExampleMatrix puts your own design in the design x scenario matrix next
// to a catalogue design.
func ExampleMatrix() {
	m, err := locksim.Matrix(myLock{}, []string{model.SetPxLua}, locksim.WithSeeds(1))
	if err != nil {
		panic(err)
	}
	cell := m.Cells[[2]string{"my-lock", "stale-release"}]
	fmt.Println("designs:", m.Designs)
	fmt.Println("stale-release breaks my-lock:", cell.Results[0].Broken)
	// Output:
	// designs: [set-px-lua my-lock]
	// stale-release breaks my-lock: true
}

// ExampleSweep maps where your design breaks: pause length x TTL.
func ExampleSweep() {
	sw, err := locksim.Sweep(myLock{}, "pause", locksim.WithSeeds(1))
	if err != nil {
		panic(err)
	}
	fmt.Println(sw.XName, "x", sw.YName, len(sw.Xs), "x", len(sw.Ys), "reference lines:", len(sw.Refs))
	// Output:
	// ttl x pause 20 x 20 reference lines: 1
}

// ExampleDanger: where in myLock's protocol one fault breaks what.
func ExampleDanger() {
	r, err := locksim.Danger(myLock{}, locksim.WithFaults(sim.FaultPause))
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Guarantee())
	for _, d := range r.Danger {
		if d.Trigger == "A acquired #1" || d.Trigger == "A released #1" {
			fmt.Println(d.Trigger, "->", d.Harm)
		}
	}
	// Output:
	// explored all 140 one-fault schedules of design my-lock (at 36 points of the fault-free run, each of 1 fault kind where it applies, with 5 duration classes): 13 broke mutual-exclusion, 34 broke stale-write, 8 broke lost-update, 0 broke liveness, 0 broke acquire-deadline
	// A acquired #1 -> data
	// A released #1 -> none
}

// tempDir is a fresh directory for an example's saved cases (an earlier
// run's case would be replayed first).
func tempDir() string {
	d, err := os.MkdirTemp("", "locksim-example-")
	if err != nil {
		panic(err)
	}
	return d
}
