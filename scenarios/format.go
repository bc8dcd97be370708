package scenarios

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"locksim/clock"
	"locksim/model"
)

// Format renders the scenario in the file syntax, canonically: one
// directive per line in a fixed order, zero values left out, no comments.
// Parse(name, s.Format()) gives back an equal scenario (File and Source
// aside), so a generated run can be saved as a file and replayed.
//
// Format renders only what the syntax can say: a Spec that came from
// elsewhere loses Custom, Lua, Network.Links and clock jumps.
func (s *Scenario) Format() []byte {
	var b strings.Builder
	line := func(words ...string) {
		b.WriteString(strings.Join(words, " "))
		b.WriteByte('\n')
	}
	sp := &s.Spec
	line("name", s.Name)
	line("title", s.Title)
	if s.Design != "" {
		line("design", s.Design)
	}
	if s.Designs != nil {
		line(append([]string{"designs"}, s.Designs...)...)
	}
	t := sp.Topology
	topo := []string{}
	if s.Layout != nil {
		topo = append(topo, "masters="+strconv.Itoa(s.Layout.Masters), "replicas="+strconv.Itoa(s.Layout.Replicas))
	}
	if t.Persistence != "" {
		topo = append(topo, "persistence="+string(t.Persistence))
	}
	if t.MinReplicasToWrite != 0 {
		topo = append(topo, "min-replicas-to-write="+strconv.Itoa(t.MinReplicasToWrite))
	}
	if t.MinReplicasMaxLag != 0 {
		topo = append(topo, "min-replicas-max-lag="+fmtDur(t.MinReplicasMaxLag))
	}
	if len(topo) > 0 {
		line(append([]string{"topology"}, topo...)...)
	}
	if t.MaxMemory > 0 {
		w := []string{"maxmemory", strconv.FormatInt(t.MaxMemory, 10)}
		if t.Policy != "" {
			w = append(w, string(t.Policy))
		}
		line(w...)
	}
	if f := t.Fill; f.Every > 0 {
		w := []string{"fill", "every=" + fmtDur(f.Every), "size=" + strconv.Itoa(f.Size)}
		if f.TTL > 0 {
			w = append(w, "ttl="+fmtDur(f.TTL))
		}
		if f.Start > 0 {
			w = append(w, "start="+fmtDur(f.Start))
		}
		line(w...)
	}
	if t.Sentinel.Enabled {
		w := []string{"sentinel"}
		if t.Sentinel.DownAfter != 0 {
			w = append(w, "down-after="+fmtDur(t.Sentinel.DownAfter))
		}
		if t.Sentinel.DiscoveryDelay != 0 {
			w = append(w, "discovery="+fmtDur(t.Sentinel.DiscoveryDelay))
		}
		line(w...)
	}
	if t.Cluster {
		w := []string{"cluster"}
		if t.ClusterNodeTimeout != 0 {
			w = append(w, "node-timeout="+fmtDur(t.ClusterNodeTimeout))
		}
		line(w...)
	}
	for _, n := range sortedNodes(t.Priorities) {
		line("priority", n+"="+strconv.Itoa(t.Priorities[n]))
	}
	if len(sp.Clients) > 0 {
		line(append([]string{"clients"}, sp.Clients...)...)
	}
	dur := func(word string, d time.Duration) {
		if d != 0 {
			line(word, fmtDur(d))
		}
	}
	num := func(word string, n int) {
		if n != 0 {
			line(word, strconv.Itoa(n))
		}
	}
	dur("ttl", sp.Options.TTL)
	dur("work", sp.Workload.Work)
	dur("think", sp.Workload.Think)
	dur("stagger", sp.Workload.Start)
	dur("duration", sp.Workload.Duration)
	num("cycles", sp.Workload.Cycles)
	num("reentry", sp.Workload.Reentry)
	num("readers", sp.Workload.Readers)
	if l := sp.Network.Default; l.Min != 0 || l.Max != 0 {
		line("latency", fmtDur(l.Min), fmtDur(l.Max))
	}
	if sp.Network.LossPPM != 0 {
		line("loss", strconv.FormatInt(sp.Network.LossPPM, 10)+"ppm")
	}
	if sp.Fencing != "" {
		line("fencing", string(sp.Fencing))
	}
	if opts := formatOptions(sp.Options); len(opts) > 0 {
		line(append([]string{"option"}, opts...)...)
	}
	clocks := func(m map[string]clock.Config, names []string) {
		for _, n := range names {
			c, ok := m[n]
			if !ok {
				continue
			}
			w := []string{"clock", n}
			if c.Offset != 0 {
				w = append(w, "offset="+fmtSigned(c.Offset))
			}
			if c.RatePPM != 0 || c.Offset == 0 {
				w = append(w, "rate="+fmtPPM(c.RatePPM))
			}
			line(w...)
		}
	}
	clocks(t.NodeClocks, sortedNodes(t.NodeClocks))
	clocks(t.ClientClocks, sp.Clients)
	dur("until", sp.Until)
	if lim := sp.Limits; lim.MaxEvents != 0 || lim.MaxTime != 0 {
		w := []string{"limits"}
		if lim.MaxEvents != 0 {
			w = append(w, "events="+strconv.Itoa(lim.MaxEvents))
		}
		if lim.MaxTime != 0 {
			w = append(w, "time="+fmtDur(lim.MaxTime))
		}
		line(w...)
	}
	for _, f := range sp.Faults {
		line("fault", FormatFault(f))
	}
	for _, e := range s.Expect {
		line("expect", e.Kind, e.Text)
	}
	if s.Text != "" {
		line(Separator)
		line(s.Text)
	}
	return []byte(b.String())
}

// formatOptions renders the non-zero options as key=value words, in
// optionKeys order (model.Options.Words).
func formatOptions(o model.Options) []string { return o.Words() }

// sortedNodes returns a map's node names in node order (r2 before r10).
func sortedNodes[V any](m map[string]V) []string {
	ns := make([]string, 0, len(m))
	for n := range m {
		ns = append(ns, n)
	}
	slices.SortFunc(ns, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	return ns
}
