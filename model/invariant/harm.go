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
	// accepted outside its writer's lease, hold counts off), but every
	// update survived.
	HarmLease
	// HarmData: an update was lost, or the fence let through a token its
	// rule must reject.
	HarmData
)

// harms is the one table of what each invariant's violation costs.
var harms = map[ID]Harm{
	MutualExclusion: HarmLease,
	StaleWrite:      HarmLease,
	LostUpdate:      HarmData,
	TokenUnique:     HarmLease,
	Fencing:         HarmData,
	Liveness:        HarmLiveness,
	Reentrancy:      HarmLease,
	FIFO:            HarmLease,
	RWExclusion:     HarmLease,
}

// HarmOf returns what breaking id costs.
func HarmOf(id ID) Harm { return harms[id] }

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

// About says in one line what each invariant asks, for listings.
var About = map[ID]string{
	MutualExclusion: "no two clients hold the lock at the same instant of true time",
	StaleWrite:      "the resource accepts no write from a client whose lease was already lost",
	LostUpdate:      "every accepted write builds on the previous one (read-modify-write)",
	TokenUnique:     "no fencing token is granted twice, and tokens grow with grant order",
	Fencing:         "the resource accepts no token its rule forbids",
	Liveness:        "after the faults heal, a wanted lock nobody holds is acquired in time",
	Reentrancy:      "a reentrant lock's hold counts go up and back to zero",
	FIFO:            "a fair lock grants in the order requests reached Redis (a waiter is never passed)",
	RWExclusion:     "a read-write lock holds many readers or one writer, never a writer with anyone else",
}
