package fieldbugs

import (
	"context"
	"crypto/rand"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// leased is the part the libraries with a validity share: SET NX PX with
// polling, a validity from the start of the successful request, and a
// compare-and-delete release. Its methods are safe for concurrent use (an
// extension goroutine reads what Lock wrote).
type leased struct {
	rdb *redis.Client
	key string
	ttl time.Duration

	mu    sync.Mutex
	value string
	until time.Time
}

// Lock takes the key, polling until ctx ends.
func (l *leased) Lock(ctx context.Context) error {
	value := rand.Text()
	for {
		start := time.Now()
		ok, err := l.rdb.SetNX(ctx, l.key, value, l.ttl).Result()
		if err != nil {
			return err
		}
		if ok {
			l.mu.Lock()
			l.value, l.until = value, start.Add(l.ttl)
			l.mu.Unlock()
			return nil
		}
		if err := wait(ctx, PollEvery); err != nil {
			return ErrNotObtained
		}
	}
}

// Unlock deletes the key if it still holds this hold's value.
func (l *leased) Unlock(ctx context.Context) error {
	return release(ctx, l.rdb, l.key, l.Value())
}

// Until is when the current hold ends unless extended.
func (l *leased) Until() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.until
}

// Value is the value of the current hold.
func (l *leased) Value() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.value
}

// setUntil records a successful extension.
func (l *leased) setUntil(t time.Time) {
	l.mu.Lock()
	l.until = t
	l.mu.Unlock()
}
