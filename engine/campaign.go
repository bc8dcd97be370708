package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"locksim/model"
	"locksim/model/invariant"
	"locksim/scenarios"
)

// Campaign is the part of a CheckConfig that says which runs a check
// makes: enough, in its JSON, for `locksim merge` (Merge) to re-derive any
// run of any shard (a Go design is named, not saved: such a campaign
// re-runs only from Go, with the design).
type Campaign struct {
	Base       model.Spec     `json:"base"`
	Gen        scenarios.Gen  `json:"gen"`
	Runs       int            `json:"runs,omitempty"`
	For        time.Duration  `json:"for_ns,omitempty"`
	Seed       uint64         `json:"seed"`
	Shard      int            `json:"shard"`
	Shards     int            `json:"shards"`
	Invariants []invariant.ID `json:"invariants,omitempty"`
	ShrinkRuns int            `json:"shrink_runs,omitempty"`
}

func campaignOf(c CheckConfig) Campaign {
	return Campaign{Base: c.Base, Gen: c.Gen, Runs: c.Runs, For: c.For, Seed: c.Seed,
		Shard: c.Shard, Shards: max(c.Shards, 1), Invariants: c.Invariants, ShrinkRuns: c.ShrinkRuns}
}

// Config returns the check a campaign describes.
func (c Campaign) Config() CheckConfig {
	return CheckConfig{Base: c.Base, Gen: c.Gen, Runs: c.Runs, For: c.For, Seed: c.Seed,
		Shard: c.Shard, Shards: c.Shards, Invariants: c.Invariants, ShrinkRuns: c.ShrinkRuns}
}

// ConfigHash is the hash of the check a campaign is a shard of: its JSON
// with the shard index left out, so every shard of one check has the same
// hash and any other check (another flag, seed, run count, design or
// script) another. A shard's JSON records it as config_hash; merge
// refuses a file whose hash is not its campaign's (an edited file) or
// not the other shards'.
func ConfigHash(c Campaign) string {
	c.Shard = 0
	b, err := encode(c, "")
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:16])
}
