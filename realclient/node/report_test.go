package node

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// doneBytes builds a D record as host.cjs's encodeDone writes it.
func doneBytes(id uint32, ok bool, token, until *float64, caps byte, hasCaps bool, err string) []byte {
	flags := byte(0)
	if ok {
		flags |= 1
	}
	if token != nil {
		flags |= 2
	}
	if until != nil {
		flags |= 4
	}
	if hasCaps {
		flags |= 8
	}
	b := []byte{'D'}
	b = binary.BigEndian.AppendUint32(b, id)
	b = append(b, flags)
	if token != nil {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(*token))
	}
	if until != nil {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(*until))
	}
	if hasCaps {
		b = append(b, caps)
	}
	if !ok {
		b = binary.BigEndian.AppendUint32(b, uint32(len(err)))
		b = append(b, err...)
	}
	return b
}

// TestDecodeDoneRecords: a finished call's record (host.cjs, encodeDone)
// decodes to what the Node side said (its id, outcome, token, until, caps
// and error), records follow one another, and a cut record is refused
// with an error, never a panic.
func TestDecodeDoneRecords(t *testing.T) {
	tok, until := 42.0, 946684801234.5
	var rep []byte
	ends := map[int]bool{} // where a record ends: a report cut there is whole
	rep = append(rep, doneBytes(1, true, nil, nil, 1|2, true, "")...)
	ends[len(rep)] = true
	rep = append(rep, doneBytes(7, true, &tok, &until, 0, false, "")...)
	ends[len(rep)] = true
	rep = append(rep, doneBytes(9, false, nil, nil, 0, false, "LockError: Exceeded 10 attempts é")...)
	ends[len(rep)] = true
	rep = append(rep, 'N')
	rep = binary.BigEndian.AppendUint64(rep, math.Float64bits(5e9))
	r, err := decodeReport(rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Done) != 3 || r.Next != 5e9 {
		t.Fatalf("decoded %+v", r)
	}
	d := r.Done
	if d[0].ID != 1 || !d[0].OK || !slices.Equal(d[0].Caps, []string{"extend", "until"}) || d[0].Token != nil || d[0].Until != nil {
		t.Errorf("setup's record: %+v", d[0])
	}
	if d[1].ID != 7 || !d[1].OK || d[1].Token == nil || *d[1].Token != tok || d[1].Until == nil || *d[1].Until != until || d[1].Caps != nil {
		t.Errorf("acquire's record: %+v", d[1])
	}
	if d[2].ID != 9 || d[2].OK || d[2].Err != "LockError: Exceeded 10 attempts é" {
		t.Errorf("failed call's record: %+v", d[2])
	}
	for n := 1; n < len(rep); n++ {
		if _, err := decodeReport(rep[:n]); err == nil && !ends[n] {
			t.Errorf("a report cut at %d of %d bytes decoded without an error", n, len(rep))
		}
	}
}
