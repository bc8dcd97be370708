package main

import (
	"locksim/model"
	"locksim/sim"
)

// addServerFlag defines --redis, the Redis or Valkey release the simulated
// nodes model (check and run), and returns what puts it into a spec,
// refusing an unknown release and one the design cannot run on (set-ifeq
// on redis-7.0) with the reason.
func addServerFlag(fs *flags) func(*model.Spec) error {
	release := fs.String("redis", "", "the Redis or Valkey release the nodes model: "+sim.VersionNames()+"; default the first that has what the design sends (redis-8.4 for set-ifeq)")
	return func(s *model.Spec) error {
		if !flagSet(fs, "redis") {
			return nil
		}
		s.Topology.Server = *release
		if _, err := s.ServerVersion(); err != nil {
			return usagef("--redis: %v", err)
		}
		return nil
	}
}
