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
// re-runs only from Go, with the design). Its JSON is the "campaign"
// object of locksim.check/v1 and what ConfigHash hashes.
type Campaign struct {
	// Base is the design and its configuration. Zero fields take the
	// design's defaults, or, with Gen.Swarm, are drawn per run.
	Base model.Spec `json:"base"`
	// Gen says what each run draws: its configuration and faults.
	Gen scenarios.Gen `json:"gen"`
	// Runs is how many runs to make; 0 means DefaultRuns, or no cap when
	// For is set.
	Runs int `json:"runs,omitempty"`
	// For, if set, stops starting runs once this much wall time has passed
	// (measured with CheckConfig.Now). The result is deterministic given
	// the number of runs it reached, which it reports.
	For time.Duration `json:"for_ns,omitempty"`
	// Seed is the base seed: run i uses seed Seed+i.
	Seed uint64 `json:"seed"`
	// Shard and Shards select this shard's runs: those with index %
	// Shards == Shard. Shards 0 means 1.
	Shard  int `json:"shard"`
	Shards int `json:"shards"`
	// Invariants are the invariants that count as a failure; nil means
	// all. The others are still tallied, as not counted.
	Invariants []invariant.ID `json:"invariants,omitempty"`
	// ShrinkRuns bounds the runs spent shrinking the first failure; 0
	// means 200.
	ShrinkRuns int `json:"shrink_runs,omitempty"`
}

// campaignOf is the campaign of c as its JSON records it: Shards at least 1.
func campaignOf(c CheckConfig) Campaign {
	camp := c.Campaign
	camp.Shards = max(camp.Shards, 1)
	return camp
}

// Config returns the check a campaign describes.
func (c Campaign) Config() CheckConfig { return CheckConfig{Campaign: c} }

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
