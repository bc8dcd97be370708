package realclient

import (
	"github.com/redis/go-redis/v9"
)

// NewClusterClient returns go-redis's own cluster client
// (redis.NewClusterClient) for a run on a cluster (model.Topology.Cluster):
// it reads CLUSTER SLOTS from the simulated nodes, sends each command to
// the node serving its key's slot, and follows MOVED and ASK redirects
// as it would in production. Its seed addresses are the shards' primaries
// ("r1:6379", ...). tweak, if non-nil, changes the options first
// (timeouts, MaxRedirects); leave Addrs and Dialer. The client is closed
// when the process's program ends. Lock libraries that take a
// redis.UniversalClient or redis.Scripter (redsync's goredis pool,
// redislock) take it as they take a plain client.
//
// On a run that is not on a cluster it returns nil.
func (e Env) NewClusterClient(tweak func(*redis.ClusterOptions)) *redis.ClusterClient {
	addrs := e.p.d.w.ClusterSeeds()
	if addrs == nil {
		return nil
	}
	opt := &redis.ClusterOptions{
		Addrs:    addrs,
		Dialer:   e.Dialer,
		PoolSize: 10, // not 10 x GOMAXPROCS: a run must not depend on the machine
	}
	disableMaintNotifications(opt)
	if tweak != nil {
		tweak(opt)
	}
	e.p.notePoolSize(opt.PoolSize)
	c := redis.NewClusterClient(opt)
	c.AddHook(gateHook{p: e.p, group: "cluster"})
	e.p.closeAtExit(c)
	return c
}
