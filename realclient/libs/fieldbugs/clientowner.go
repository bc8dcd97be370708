package fieldbugs

import (
	"sync"
	"weak"

	"github.com/redis/go-redis/v9"
	"time"
)

// ClientOwner is SharedOwner's reentrant lock with its owner named by the
// Redis client it runs on: the library draws an owner id the first time
// it sees a *redis.Client and gives every lock built on that client the
// same one ("one id per connection pool"). The buggy build uses that id
// as the lock's value, so it is correct while each goroutine has a client
// of its own and breaks as soon as the goroutines of a service share one
// client, as services do: A.2 finds A.1's value in the key, "re-enters"
// and works beside A.1. The fixed build adds a number per lock handle, as
// SharedOwner's fix does.
//
// Source: the same class as SharedOwner (holder named by client instance
// alone instead of instance and thread); this variant keys the instance
// by the Redis client, so only a shared client exposes it. No single
// public issue is cited.
//
// Mechanism: with realclient.WithGoroutines(2) and Env.SharedClients, A.1
// and A.2 build their locks on one *redis.Client and get one owner id.
// A.1 holds the key; A.2's Lock finds its own value there and returns at
// once. With Env.Clients (a client per goroutine) the ids differ and the
// buggy build holds.
func NewClientOwner(rdb *redis.Client, key string, ttl time.Duration, o Options) *SharedOwner {
	return NewSharedOwner(rdb, key, ttl, ownerOf(rdb), o)
}

// owners are the owner ids by client; a client that is gone no longer
// keeps its entry's key alive.
var owners struct {
	mu sync.Mutex
	by map[weak.Pointer[redis.Client]]*Owner
}

// ownerOf returns rdb's owner, drawing it at the first call.
func ownerOf(rdb *redis.Client) *Owner {
	owners.mu.Lock()
	defer owners.mu.Unlock()
	if owners.by == nil {
		owners.by = map[weak.Pointer[redis.Client]]*Owner{}
	}
	k := weak.Make(rdb)
	o := owners.by[k]
	if o == nil {
		for old := range owners.by {
			if old.Value() == nil {
				delete(owners.by, old) // a client of an earlier run
			}
		}
		o = NewOwner()
		owners.by[k] = o
	}
	return o
}
