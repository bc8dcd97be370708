package risk

import (
	"slices"
	"time"

	"github.com/pkg/errors"

	"locksim/model"
	"locksim/model/history"
	"locksim/sim"
)

// window is a union of disjoint spans of a run, sorted: where a windowed
// tilt puts a tail-sized fault.
type window struct {
	spans []span
	total time.Duration
}

type span struct{ from, to time.Duration }

// at is the instant a share u (0 to 1) of the way through the window's
// total length.
func (w window) at(u float64) time.Duration {
	left := time.Duration(u * float64(w.total))
	for _, s := range w.spans {
		if left < s.to-s.from {
			return s.from + left
		}
		left -= s.to - s.from
	}
	return w.spans[len(w.spans)-1].to - 1
}

// contains reports whether t is in the window.
func (w window) contains(t time.Duration) bool {
	i, found := slices.BinarySearchFunc(w.spans, t, func(s span, t time.Duration) int {
		switch {
		case s.to <= t:
			return -1
		case s.from > t:
			return 1
		}
		return 0
	})
	return found && i < len(w.spans)
}

// add puts [from, to) into the window, clipped to [0, h).
func (w *window) add(from, to, h time.Duration) {
	from, to = max(from, 0), min(to, h)
	if to <= from {
		return
	}
	w.spans = append(w.spans, span{from, to})
}

// merge sorts the spans, joins the ones that touch, and totals them.
func (w *window) merge() {
	slices.SortFunc(w.spans, func(a, b span) int { return int(a.from - b.from) })
	var out []span
	for _, s := range w.spans {
		if n := len(out); n > 0 && s.from <= out[n-1].to {
			out[n-1].to = max(out[n-1].to, s.to)
			continue
		}
		out = append(out, s)
	}
	w.spans, w.total = out, 0
	for _, s := range out {
		w.total += s.to - s.from
	}
}

// dangerWindows runs the design once without faults and returns each
// client's spans from an acquire-start to the end of its critical section,
// and their union: where a fault hurts most.
func dangerWindows(s model.Spec, h time.Duration) (map[string]window, window, error) {
	s.Faults = nil
	res, err := model.Run(s, 1)
	if err != nil {
		return nil, window{}, errors.Wrap(err, "the fault-free reference run")
	}
	if res.Err != nil {
		return nil, window{}, errors.Wrap(res.Err, "the fault-free reference run stopped early")
	}
	ix := history.New(res.History)
	own := map[string]window{}
	var all window
	for _, sec := range ix.Sections {
		from := sec.From
		if sec.Start >= 0 {
			from = ix.H[sec.Start].At
		}
		w := own[sec.Client]
		w.add(from, sec.To, h)
		own[sec.Client] = w
		all.add(from, sec.To, h)
	}
	for c, w := range own {
		w.merge()
		own[c] = w
	}
	all.merge()
	return own, all, nil
}

// RunSeed is the simulation seed of run index of a campaign drawn with
// seed: the campaign and the pilot run Draw(seed, index) with it, and a
// Follow tilt makes its windows' run with it.
func RunSeed(seed uint64, index int) uint64 { return seed + uint64(index) }

// followWindows makes the run s (the faults drawn so far, none of the
// tilted kind's) with its simulation seed and returns the danger windows
// of every process, by its key (followKey): a client's spans from each
// acquire-start to the end of its section (its pauses, starvations and
// its links' drops), a node's the holds that lose their quorum if the
// node loses the key, from the acquisition to the end of the section.
// A run that fails to run gives no windows (every window empty: the tilt
// draws as unwindowed, the weight still exact).
func (sm *Sampler) followWindows(s model.Spec, seed uint64) map[string]window {
	out := map[string]window{}
	rs, err := s.Resolve()
	if err != nil {
		return out
	}
	cfg, err := rs.Config()
	if err != nil {
		return out
	}
	w, err := sim.New(cfg, seed)
	if err != nil {
		return out
	}
	h, err := w.Run()
	if err != nil {
		return out
	}
	ix := history.New(h)
	H := sm.span()
	quorum := max(1, sm.base.Options.Quorum)
	for _, sec := range ix.Sections {
		from := sec.From
		if sec.Start >= 0 {
			from = ix.H[sec.Start].At
		}
		for _, k := range []string{sec.Client + "\x00", "\x00" + sec.Client} {
			win := out[k]
			win.add(from, sec.To, H)
			out[k] = win
		}
		if len(sec.Nodes) > quorum {
			continue // a node's loss leaves it a quorum
		}
		for _, n := range sec.Nodes {
			win := out[n+"\x00"]
			win.add(sec.From, sec.To, H)
			out[n+"\x00"] = win
		}
	}
	for k, win := range out {
		win.merge()
		out[k] = win
	}
	return out
}
