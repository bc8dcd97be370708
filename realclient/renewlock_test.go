package realclient

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	goredislib "github.com/redis/go-redis/v9"
)

// renewLock is a small go-redis lock written for the interleaving tests,
// with its own renewal goroutine (a watchdog the library runs, not the
// workload's Extender). With lateArm it has the bug of Redisson issue
// #7272: the renewal is armed from a goroutine started as Lock returns,
// after that goroutine's first command (a PTTL script that schedules the first
// renewal), and Unlock cancels it only after its release command; nothing
// orders the two, so when the caller unlocks at once, Unlock can look for
// the renewal before it is armed, find none, and the renewal, armed just
// after, re-sets the key every TTL/3 with no owner check: the lock is held
// by nobody, for ever. The correct twin (lateArm off) registers the
// renewal before Lock returns, cancels it before the release command, and
// renews with a compare-and-PEXPIRE that stops once the key is not its
// own.
type renewLock struct {
	c       *goredislib.Client
	key     string
	name    string
	ttl     time.Duration
	lateArm bool

	n     int
	value string
	until time.Time

	mu    sync.Mutex
	armed map[int]chan struct{} // hold number -> its renewal's stop
}

var (
	renewExtend = goredislib.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`)
	renewRelease = goredislib.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)
	// renewLeft asks how long the key has left, to schedule the first
	// renewal. (Its script's SHA1 sorts before renewRelease's, so the
	// fixed order hands it first when both are pending: with other texts
	// the fixed order would see the race in every run instead, which is
	// the point: a fixed order sees one of the two orders.)
	renewLeft     = goredislib.NewScript(`return redis.call('PTTL', KEYS[1])`)
	errRenewTaken = errors.New("renew-lock: lock taken")
)

func newRenewLock(lateArm bool) Setup {
	return func(env Env) (Lock, error) {
		return &renewLock{c: env.Clients[0], key: env.Key, name: env.Client, ttl: env.TTL, lateArm: lateArm,
			armed: map[int]chan struct{}{}}, nil
	}
}

func (l *renewLock) Lock(ctx context.Context) error {
	l.n++
	hold := l.n
	l.value = l.name + ":" + strconv.Itoa(hold)
	for {
		sent := time.Now()
		ok, err := l.c.SetNX(ctx, l.key, l.value, l.ttl).Result()
		if err == nil && ok {
			l.until = sent.Add(l.ttl)
			if !l.lateArm {
				l.arm(hold) // registered before anyone can Unlock
			}
			go l.renew(hold, l.value)
			return nil
		}
		select {
		case <-ctx.Done():
			return errRenewTaken
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// arm registers hold's renewal and returns its stop channel.
func (l *renewLock) arm(hold int) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	stop := make(chan struct{})
	l.armed[hold] = stop
	return stop
}

// disarm stops hold's renewal, if it is armed.
func (l *renewLock) disarm(hold int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if stop, ok := l.armed[hold]; ok {
		close(stop)
		delete(l.armed, hold)
	}
}

// renew is the library's watchdog for one hold: it asks how long the key
// has left, arms itself (lateArm) or finds its registration (gone if
// Unlock came first), and renews every TTL/3 until stopped.
func (l *renewLock) renew(hold int, value string) {
	ctx := context.Background()
	if err := renewLeft.Run(ctx, l.c, []string{l.key}).Err(); err != nil {
		return
	}
	var stop chan struct{}
	if l.lateArm {
		stop = l.arm(hold) // whether or not Unlock already ran: the race
	} else {
		l.mu.Lock()
		stop = l.armed[hold]
		l.mu.Unlock()
		if stop == nil {
			return // unlocked before the renewal started
		}
	}
	for {
		select {
		case <-stop:
			return
		case <-time.After(l.ttl / 3):
		}
		if l.lateArm {
			// Re-assert the key, trusting the registration: no owner check.
			if l.c.Set(ctx, l.key, value, l.ttl).Err() != nil {
				return
			}
			continue
		}
		n, err := renewExtend.Run(ctx, l.c, []string{l.key}, value, l.ttl.Milliseconds()).Int64()
		if err != nil || n == 0 {
			return
		}
	}
}

func (l *renewLock) Unlock(ctx context.Context) error {
	hold := l.n
	if !l.lateArm {
		l.disarm(hold) // before the release: no renewal can follow it
	}
	n, err := renewRelease.Run(ctx, l.c, []string{l.key}, l.value).Int64()
	if l.lateArm {
		l.disarm(hold) // after the release's reply: too late if not armed yet
	}
	if err != nil {
		return err
	}
	if n == 0 {
		return errRenewTaken
	}
	return nil
}

func (l *renewLock) Until() time.Time { return l.until }
