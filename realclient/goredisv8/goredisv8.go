// Package goredisv8 runs lock libraries built on go-redis v8
// (github.com/go-redis/redis/v8) in locksim's realclient harness: Clients
// gives one v8 client per master, dialing through the simulation, with
// the harness's ordering hook (Env.Turn) and closed when the client
// process ends (Env.Own), as realclient's own v9 clients are.
//
// It is a module of its own, requiring go-redis v8.4.0 (the oldest v8
// release), so that importing it raises nobody's v8 pin and a user of v9
// never links v8.
//
//	realclient.Check(t, func(env realclient.Env) (realclient.Lock, error) {
//		clients := goredisv8.Clients(env, nil)
//		return newMyV8Lock(clients[0], env.Key, env.TTL), nil
//	}, realclient.WithName("my-v8-lock"))
//
// go-redis v6 (github.com/go-redis/redis, used by bsm/redis-lock) has no
// Dialer with a context and no hooks; see docs/realclient.md for why it
// has no adapter.
package goredisv8

import (
	"context"
	"fmt"
	"strconv"

	"github.com/go-redis/redis/v8"

	"locksim/model"
	"locksim/realclient"
)

// Clients returns one go-redis v8 client per master of the run (m1..mN,
// as env.Clients), each dialing through the simulation with PoolSize 10
// (not 10 x GOMAXPROCS: a run must not depend on the machine). tweak, if
// non-nil, changes the options first (timeouts, retries); leave Addr and
// Dialer. Call it from a Setup.
func Clients(env realclient.Env, tweak func(*redis.Options)) []*redis.Client {
	out := make([]*redis.Client, len(env.Clients))
	for i := range out {
		group := model.GroupName(i)
		opt := &redis.Options{Addr: group + ":6379", Dialer: env.Dialer, PoolSize: 10}
		if tweak != nil {
			tweak(opt)
		}
		c := redis.NewClient(opt)
		c.AddHook(gate{env: env, group: group})
		env.Own(c, opt.PoolSize)
		out[i] = c
	}
	return out
}

// gate is the ordering hook: each command, or pipeline, waits for its
// turn before go-redis takes a connection from its pool.
type gate struct {
	env   realclient.Env
	group string
}

func (h gate) BeforeProcess(ctx context.Context, cmd redis.Cmder) (context.Context, error) {
	h.env.Turn(h.group, args(nil, cmd)...)
	return ctx, nil
}

func (h gate) AfterProcess(context.Context, redis.Cmder) error { return nil }

func (h gate) BeforeProcessPipeline(ctx context.Context, cmds []redis.Cmder) (context.Context, error) {
	var a []string
	for _, c := range cmds {
		a = args(a, c)
	}
	h.env.Turn(h.group, a...)
	return ctx, nil
}

func (h gate) AfterProcessPipeline(context.Context, []redis.Cmder) error { return nil }

// args appends a command's arguments as text.
func args(out []string, c redis.Cmder) []string {
	for _, a := range c.Args() {
		switch a := a.(type) {
		case string:
			out = append(out, a)
		case int:
			out = append(out, strconv.Itoa(a))
		case int64:
			out = append(out, strconv.FormatInt(a, 10))
		default:
			out = append(out, fmt.Sprint(a))
		}
	}
	return out
}
