package scenarios

import "testing"

// ByteDraws is deterministic, reads each choice from the input, and takes
// the low end once the input is used up.
func TestByteDraws(t *testing.T) {
	d := ByteDraws([]byte{7, 1, 0})
	if got := d.Int64Range(0, 9, "a"); got != 7 {
		t.Errorf("first draw %d, want 7", got)
	}
	if got := d.Int64Range(0, 1000, "b"); got != (1<<8|0)%1001 {
		t.Errorf("two-byte draw %d, want %d", got, (1<<8|0)%1001)
	}
	if got := d.Int64Range(5, 9, "c"); got != 5 {
		t.Errorf("draw past the input %d, want the low end", got)
	}
}
