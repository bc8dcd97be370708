package sim

import (
	"strings"
	"testing"

	"locksim/sim/resp"
)

// A huge argument or reply is recorded cut, with its length; short ones
// are recorded as they are, without a copy.
func TestRecordedArgsBounded(t *testing.T) {
	big := strings.Repeat("x", 10*MaxRecordedBytes)
	got := boundArgs([]string{"SET", "k", big})
	if len(got[2]) > MaxRecordedBytes+40 || !strings.HasSuffix(got[2], "...(40960 bytes)") || got[1] != "k" {
		t.Errorf("bounded to %d bytes: %.40q...%q", len(got[2]), got[2], got[2][len(got[2])-20:])
	}
	short := []string{"GET", "k"}
	if b := boundArgs(short); &b[0] != &short[0] {
		t.Error("short arguments were copied")
	}
	if boundText(big) == big || boundText("OK") != "OK" {
		t.Error("boundText")
	}
}

// A reply is recorded as boundText of its whole rendering, byte for byte,
// without rendering more than the head: strings of every length around
// the cut, the quoting's chunk and the fast path's limit (a quarter of
// the cut), with escapes, multi-byte characters and
// invalid bytes straddling both; arrays, errors and statuses.
func TestRecordedReplyIsTheBoundedRendering(t *testing.T) {
	var replies []resp.Reply
	pieces := []string{"x", "é", "\n", "\x00", "\xff", "日本", "\"", "\\", "\u2028", "\xe6\x97"}
	for _, p := range pieces {
		for _, n := range []int{0, 1, (MaxRecordedBytes-2)/4/len(p) - 1, (MaxRecordedBytes - 2) / 4 / len(p), (MaxRecordedBytes-2)/4/len(p) + 1, MaxRecordedBytes/len(p) - 2, MaxRecordedBytes/len(p) + 1, (16<<10)/len(p) + 1, 40 << 10} {
			for _, pre := range []string{"", "a", "ab", "abc"} {
				s := pre + strings.Repeat(p, n)
				replies = append(replies, resp.BulkReply(s), resp.Reply{Kind: resp.Status, Str: s}, resp.ErrorReply(s))
			}
		}
	}
	replies = append(replies, resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.BulkReply(strings.Repeat("é", 3000)), resp.IntReply(-7), resp.Nil, resp.BulkReply(strings.Repeat("\xff", 2000))}},
		resp.Reply{Kind: resp.Array, Elems: []resp.Reply{{Kind: resp.Array, Elems: []resp.Reply{resp.OK}}, {Kind: resp.NilArray}}}, resp.IntReply(3), resp.IntReply(-1<<63), resp.IntReply(1234567), resp.Nil, resp.Reply{Kind: resp.NilArray}, resp.Reply{Kind: resp.Status})
	for i, r := range replies {
		if got, want := recordedReply(r), boundText(r.String()); got != want {
			t.Fatalf("reply %d (%d bytes rendered): recorded %d bytes %.60q...%q, want %d bytes %.60q...%q", i, len(r.String()),
				len(got), got, got[max(0, len(got)-30):], len(want), want, want[max(0, len(want)-30):])
		}
	}
}
