package realclient

import (
	"testing"

	"locksim/sim/resp"
)

// A reply is written as a node writes it on a connection of each
// protocol: RESP3's own types after HELLO 3, their RESP2 forms before.
func TestEncodeReplyByProtocol(t *testing.T) {
	bulk := resp.BulkReply
	for _, c := range []struct {
		r           resp.Reply
		resp2, rsp3 string
	}{
		{resp.Nil, "$-1\r\n", "_\r\n"},
		{resp.Reply{Kind: resp.NilArray}, "*-1\r\n", "_\r\n"},
		{resp.Reply{Kind: resp.Map, Elems: []resp.Reply{bulk("f"), bulk("v")}}, "*2\r\n$1\r\nf\r\n$1\r\nv\r\n", "%1\r\n$1\r\nf\r\n$1\r\nv\r\n"},
		{resp.Reply{Kind: resp.Set, Elems: []resp.Reply{bulk("a")}}, "*1\r\n$1\r\na\r\n", "~1\r\n$1\r\na\r\n"},
		{resp.Reply{Kind: resp.Push, Elems: []resp.Reply{bulk("invalidate"), resp.Nil}}, "*2\r\n$10\r\ninvalidate\r\n$-1\r\n", ">2\r\n$10\r\ninvalidate\r\n_\r\n"},
		{resp.Reply{Kind: resp.Double, Str: "1.5"}, "$3\r\n1.5\r\n", ",1.5\r\n"},
		{resp.Reply{Kind: resp.Bool, Int: 1}, ":1\r\n", "#t\r\n"},
		{resp.IntReply(7), ":7\r\n", ":7\r\n"},
	} {
		if got := string(encodeReply(nil, c.r, false)); got != c.resp2 {
			t.Errorf("%s in RESP2: %q, want %q", c.r, got, c.resp2)
		}
		got := encodeReply(nil, c.r, true)
		if string(got) != c.rsp3 {
			t.Errorf("%s in RESP3: %q, want %q", c.r, got, c.rsp3)
		}
		back, err := resp.ParseAll(got)
		if want := c.r; err != nil || back.String() != want.String() {
			t.Errorf("%q parses back as %s (%v), want %s", got, back, err, want)
		}
	}
}
