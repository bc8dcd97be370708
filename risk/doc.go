// Package risk estimates how likely a lock design breaks in a given
// environment: the probability, per acquisition, that an acquisition is
// involved in a violation of each invariant, and the expected count per
// hour, each with a 95% interval and the method that made it
// (`locksim risk`, docs/risk.md).
//
// The environment is a Profile: rates and distributions of pauses, CPU
// starvations of one task (the renewal timer by default),
// partitions, node crashes, clock jumps and drift, message loss, and the
// workload (Default is the built-in one, default.json, every number with
// its source; ReadGCTrace and ReadJVMGC import pauses from GC logs). A
// Sampler draws fault schedules from it as Poisson processes per process,
// node and link over a run's virtual horizon, and knows each schedule's
// density; it is never the bug-hunting generator of `check`, whose draws
// have no probability under any environment.
//
// Rare violations are reached by importance sampling: runs are drawn from
// a defensive mixture of the profile and a tilted profile (rare fault
// processes raised, sizes drawn from the tails), each weighted by the
// likelihood ratio, which the mixture caps at 1/DefensiveShare. The tilt is
// chosen by a seeded pilot and then fixed, so shards draw the same runs and
// their tallies, kept as exact sums (Sum), merge into the bytes one process
// makes. With no violating run the estimate is an upper bound, never zero.
//
// The advisor (Advise, advise.go) estimates a design on a fixed grid of
// settings (TTL, retry backoff and jitter, acquire wait, watchdog period,
// masters, fencing, drift allowance), sorted by a stated order of
// preference, and recommends the first whose every upper bound meets a
// target, within a budget of runs.
//
// Runs the simulator alone cannot make (a real client's, package
// realclient's Risk) come through Config.Judge: the harness runs each
// sampled schedule and counts it with Count; the sampler then makes no
// fault-free reference run (NewExternalSampler).
//
// Files: profile.go and fields.go (the format and its errors), dist.go
// (distributions from quantiles or histograms), import.go (GC logs),
// sampler.go (schedules and their densities), window.go (danger windows,
// from a reference run or followed from the run itself, Tilt.Follow; not
// used by the auto method), estimate.go (runs, tallies, intervals),
// risk.go (the pilot, Run and Merge), fsum.go (exact sums), advise.go (the
// advisor), point.go (a danger point's chance); testdata/ holds the
// redlock-clock-steps scenario profile of the speed table.
//
// Invariant: no wall clock and no global randomness: a run's schedule is a
// function of (profile, design, seed, run index, proposal).
package risk
