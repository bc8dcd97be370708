package invariant

// Harm is what breaking an invariant costs the user of the lock, from
// least to worst. Reports colour verdicts by it: the lease broke but the
// data is safe is a different finding from the data is lost.
type Harm uint8

// The harms.
const (
	// HarmNone: nothing broke.
	HarmNone Harm = iota
	// HarmLiveness: a lock nobody held could not be taken in time.
	HarmLiveness
	// HarmLease: the lock broke (two holders, a reader beside a writer, a
	// waiter passed in a fair queue, a token issued twice, a write
	// accepted outside its writer's lease or let past the fence, hold
	// counts off), but every update survived.
	HarmLease
	// HarmData: an update was lost.
	HarmData
)

// Worst returns the worst harm of a set of broken invariants.
func Worst(ids []ID) Harm {
	w := HarmNone
	for _, id := range ids {
		w = max(w, HarmOf(id))
	}
	return w
}

// String names the harm as reports write it.
func (h Harm) String() string {
	switch h {
	case HarmLiveness:
		return "liveness"
	case HarmLease:
		return "lease"
	case HarmData:
		return "data"
	}
	return "none"
}

// MarshalText writes the name.
func (h Harm) MarshalText() ([]byte, error) { return []byte(h.String()), nil }
