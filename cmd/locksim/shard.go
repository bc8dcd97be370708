package main

import (
	"fmt"
	"strconv"
)

// The environment --shard auto reads: the engine that runs the shards says
// which one this process is.
const (
	// envShardIndex is this shard's index, 0-based, for a CI matrix: the
	// workflow sets it (GitHub Actions: ${{ strategy.job-index }} or a
	// matrix value).
	envShardIndex = "LOCKSIM_SHARD_INDEX"
	// envShardCount is how many shards there are (GitHub Actions:
	// ${{ strategy.job-total }}; a Kubernetes Job: its completions).
	envShardCount = "LOCKSIM_SHARD_COUNT"
	// envJobIndex is the index Kubernetes gives each pod of an Indexed Job
	// (completionMode: Indexed), 0 to completions-1.
	envJobIndex = "JOB_COMPLETION_INDEX"
)

const shardHelp = `--shard auto takes the shard from the environment of the engine that runs
it. The index: LOCKSIM_SHARD_INDEX (a CI matrix sets it), else
JOB_COMPLETION_INDEX (each pod of a Kubernetes Indexed Job has it); if both
are set they must agree. The count: --shards N, else LOCKSIM_SHARD_COUNT
(for a Job: its completions); if both are given they must agree. Missing or
inconsistent values are an error (exit 2). Each shard saves its case to
locksim-failure-shardIofN.json; 'locksim merge' combines the shards' JSON
(--format json -o shard-I.json) into the unsharded summary.`

// resolveShard turns --shard (i/n, auto or "") and --shards into this
// process's shard i of n; from says where auto found them ("" otherwise).
func resolveShard(spec string, shards int, shardsSet bool, getenv func(string) (string, bool)) (i, n int, from string, err error) {
	if spec != "auto" {
		if shardsSet {
			return 0, 0, "", usagef("--shards goes with --shard auto (--shard i/n names the count itself)")
		}
		i, n, err := parseShard(spec)
		return i, n, "", err
	}
	lookup := func(name string) (string, bool) {
		v, ok := getenv(name)
		return v, ok && v != ""
	}
	li, lok := lookup(envShardIndex)
	ji, jok := lookup(envJobIndex)
	var idxVar, idx string
	switch {
	case lok && jok && li != ji:
		return 0, 0, "", usagef("--shard auto: %s=%s and %s=%s disagree: which shard is this?", envShardIndex, li, envJobIndex, ji)
	case lok:
		idxVar, idx = envShardIndex, li
	case jok:
		idxVar, idx = envJobIndex, ji
	default:
		return 0, 0, "", usagef("--shard auto: no shard index in the environment: set %s (a CI matrix), or run as a Kubernetes Indexed Job (%s)", envShardIndex, envJobIndex)
	}
	i, err = strconv.Atoi(idx)
	if err != nil || i < 0 {
		return 0, 0, "", usagef("--shard auto: %s=%q: want a shard index 0, 1, 2, ...", idxVar, idx)
	}
	lc, cok := lookup(envShardCount)
	var countFrom string
	switch {
	case shardsSet && cok && lc != strconv.Itoa(shards):
		return 0, 0, "", usagef("--shard auto: --shards %d and %s=%s disagree", shards, envShardCount, lc)
	case shardsSet:
		n, countFrom = shards, fmt.Sprintf("--shards %d", shards)
	case cok:
		if n, err = strconv.Atoi(lc); err != nil {
			return 0, 0, "", usagef("--shard auto: %s=%q: want the number of shards", envShardCount, lc)
		}
		countFrom = envShardCount + "=" + lc
	default:
		return 0, 0, "", usagef("--shard auto: %s=%s gives the index, but nothing gives the count: pass --shards N or set %s (for a Kubernetes Job, its completions)", idxVar, idx, envShardCount)
	}
	switch {
	case n < 1:
		return 0, 0, "", usagef("--shard auto: %s: want at least 1 shard", countFrom)
	case i >= n:
		return 0, 0, "", usagef("--shard auto: %s=%d is not a shard of %d (%s): the indices are 0 to %d", idxVar, i, n, countFrom, n-1)
	}
	return i, n, idxVar + "=" + idx + ", " + countFrom, nil
}
