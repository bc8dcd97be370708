package model_test

import (
	"strings"
	"testing"

	"locksim/model"
	"locksim/model/invariant"
)

// TestReadersOnlyJudgeNoWrites: a read-write lock whose readers are all
// its clients writes nothing, so stale-write, lost-update and fencing are
// not judged (a "held" would judge nothing), counting one is refused, and
// with one writer among the clients they are judged again (issue 37,
// point 7).
func TestReadersOnlyJudgeNoWrites(t *testing.T) {
	all := model.Spec{Design: model.ReadWriteLock, Clients: []string{"A", "B", "C"}, Workload: model.Workload{Readers: 3}}
	cfg := all.WithDefaults().CheckConfig()
	for _, id := range []invariant.ID{invariant.StaleWrite, invariant.LostUpdate, invariant.Fencing} {
		if ok, why := cfg.Judged(id); ok || !strings.Contains(why, "no client writes") {
			t.Errorf("%s with every client a reader: judged %v (%s), want not judged: no client writes", id, ok, why)
		}
	}
	if err := all.CanCount([]invariant.ID{invariant.LostUpdate}); err == nil || !strings.Contains(err.Error(), "no client writes") {
		t.Errorf("counting lost-update with every client a reader: %v, want a refusal", err)
	}
	r, err := model.Run(all, 1)
	if err != nil || r.Err != nil {
		t.Fatalf("run: %v %v", err, r.Err)
	}
	for _, e := range r.History {
		if e.Kind == "write" {
			t.Fatalf("a reader wrote: %s", e.Line())
		}
	}
	one := all
	one.Workload.Readers = 2
	cfg = one.WithDefaults().CheckConfig()
	for _, id := range []invariant.ID{invariant.StaleWrite, invariant.LostUpdate} {
		if ok, why := cfg.Judged(id); !ok {
			t.Errorf("%s with a writer among the clients: not judged (%s)", id, why)
		}
	}
}
