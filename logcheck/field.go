package logcheck

import (
	"time"

	"locksim/model/invariant"
)

// The field judgements a log can make (issue 37's premature-loss,
// acquire-deadline and available, judged from what the clients saw).

// checkPremature judges whether b's grant shows that a's lease was lost
// before the validity promised to a ran out: b was granted the key at an
// instant inside a's belief, while a had a deadline (the validity its
// grant or last renewal reported), had not released and had not logged
// the lease lost. A log has no store-side truth; another client's grant is
// the evidence that the key had gone. With d the offset of a's host minus
// b's, the grant falls inside when a.from - b.from < d < a.to - b.from.
//
// A belief without a validity (trusted until release) promises nothing
// and is not judged, nor a revived one (a renewal after the validity ran
// out: mutual-exclusion judges that), nor a revived b (its start is a
// renewal, not a grant).
func (c *Checker) checkPremature(ks *keyState, a, b *belief) {
	if a.deadline == noDeadline || a.revived || b.revived {
		return
	}
	s := c.bound(a.host, b.host)
	lo, hi := a.from-b.from, a.to-b.from
	if lo >= hi || lo >= s || hi <= -s {
		return
	}
	if s == 0 && !(lo < 0 && hi > 0) {
		return
	}
	v := Violation{Invariant: invariant.PrematureLoss, Key: ks.name, Clients: []string{a.client, b.client},
		Hosts: []string{a.host, b.host}, Where: []string{a.promisedAt, b.grantAt}, From: b.from, To: a.deadline}
	if a.token != 0 || b.token != 0 {
		v.Tokens = []int64{a.token, b.token}
	}
	promise := "its grant"
	if a.promisedAt != a.grantAt {
		promise = "its renewal"
	}
	text := a.client + "'s lease was promised until " + fmtTime(a.deadline) + " by " + promise + " at " + fmtTime(a.promisedFrom) +
		" (" + a.promisedAt + "); " + b.client + " was granted the key at " + fmtTime(b.from) + " (" + b.grantAt + ")"
	if a.host != b.host {
		text += ", on host " + b.host
	}
	text += ", before " + a.client + " released it or logged it lost (its belief ended at " + fmtTime(a.to) + ": " + a.endHow + ")"
	if lo < -s && hi > s {
		v.Certainty = Certain
		if s > 0 {
			text += ", inside " + a.client + "'s promise whatever the clocks' offsets within the bound (±" + time.Duration(s).String() + " between the hosts)"
		} else {
			text += ", inside " + a.client + "'s promise on one clock"
		}
	} else {
		v.Certainty = Possible
		v.OffsetMin, v.OffsetMax = time.Duration(max(lo, -s)), time.Duration(min(hi, s))
		text += ", inside " + a.client + "'s promise only if " + offsetPhrase(a.host, b.host, v.OffsetMin, v.OffsetMax) +
			" (the bound allows ±" + time.Duration(s).String() + " between them)"
	}
	v.Explanation = text + ": the key was gone from under " + a.client + " before its validity ran out (a log does not show faults that end leases by themselves, such as a failover, a node's restart or clock step: judge such a log knowing them)"
	c.add(v)
}

// checkRefusedEarly judges a lost event whose cause is the store's word
// (a renewal or check answered that the key is gone or another's) logged
// before the validity the belief's grant or last renewal promised ran
// out: the key had gone by then, so it went early. Both times are the
// holder's own host clock: certain, whatever the offsets.
func (c *Checker) checkRefusedEarly(ks *keyState, b *belief, e Event) {
	if b.deadline == noDeadline || b.revived || e.Time >= b.deadline {
		return
	}
	promise := "its grant"
	if b.promisedAt != b.grantAt {
		promise = "its renewal"
	}
	c.add(Violation{Invariant: invariant.PrematureLoss, Certainty: Certain, Key: ks.name, Clients: []string{b.client}, Hosts: []string{b.host},
		Where: []string{b.promisedAt, e.Where()}, From: e.Time, To: b.deadline, Tokens: nonzeroToken(b.token),
		Explanation: b.client + "'s lease was promised until " + fmtTime(b.deadline) + " by " + promise + " at " + fmtTime(b.promisedFrom) +
			" (" + b.promisedAt + "), but at " + fmtTime(e.Time) + " (" + e.Where() + "), " + time.Duration(b.deadline-e.Time).String() +
			" before that, the store answered that the key was gone (lost, cause refused): it went before its validity ran out" +
			" (both times on host " + b.host + "'s clock; a log does not show faults that end leases by themselves)"})
}

func nonzeroToken(t int64) []int64 {
	if t == 0 {
		return nil
	}
	return []int64{t}
}

// checkDeadline judges one acquisition given a deadline that returned
// (granted or refused) at end, or had not returned when its host's log
// ended (how ""): late past start+deadline by more than the tolerance.
// Both times are on the client's own host clock, so no offset between
// hosts enters: the verdict is certain or nothing. The log does not show
// pauses of the process or time a Redis call was outstanding, which the
// simulation's acquire-deadline leaves out; they count here.
func (c *Checker) checkDeadline(ks *keyState, ck *clientKey, a *pending, end int64, endAt, how string) {
	if a.deadline <= 0 {
		return
	}
	due := a.start + int64(a.deadline)
	late := time.Duration(end - due)
	if late <= c.opt.AcquireTolerance {
		return
	}
	ret := "returned (" + how + ") at " + fmtTime(end) + " (" + endAt + ")"
	if how == "" {
		ret = "had not returned when its host's log ended at " + fmtTime(end)
	}
	c.add(Violation{Invariant: invariant.AcquireDeadline, Certainty: Certain, Key: ks.name, Clients: []string{ck.client}, Hosts: []string{ck.host},
		Where: []string{a.at, endAt}, From: due, To: end,
		Explanation: ck.client + " started acquiring at " + fmtTime(a.start) + " (" + a.at + ") with a deadline of " + a.deadline.String() +
			", due by " + fmtTime(due) + ", and " + ret + ": " + late.String() + " late, beyond the tolerance of " + c.opt.AcquireTolerance.String() +
			" (both times on host " + ck.host + "'s clock, so no clock offset changes it)"})
}
