package realclient

import "time"

// WithAcquireBound states the library's availability claim: on three or
// more masters (WithTopology) with its quorum (model.Options.Quorum,
// default a majority), while at most masters-quorum of them are down,
// slow or cut off (a node crash or stall, a partition whose one side holds
// only masters, in either mode) and no other fault acts, a client that
// wants the lock while nobody holds it gets it within d
// (invariant.Available). Without it a real client is not judged on
// availability: the harness cannot know what the library promises. Give
// it after WithOptions, which sets every option at once.
func WithAcquireBound(d time.Duration) Option {
	return func(c *config) { c.Base.Options.AcquireBound = d }
}
