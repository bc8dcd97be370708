package consensus

import (
	"testing"

	"locksim/model"
	"locksim/scenarios"
)

// BenchmarkEtcdLeaseRun measures one generated run of etcd-lease (the
// swarm's configurations and default fault kinds), the unit every check,
// sweep and matrix cell pays.
func BenchmarkEtcdLeaseRun(b *testing.B) {
	g := scenarios.Gen{Swarm: true}
	events := 0
	for i := range b.N {
		s := g.Run(scenarios.Rand(uint64(i%50)), model.Spec{Design: EtcdLease})
		r, err := model.Run(s, uint64(i%50))
		if err != nil {
			b.Fatal(err)
		}
		events += len(r.History)
	}
	b.ReportMetric(float64(events)/float64(b.N), "history-events/run")
}
