package serve

import (
	"strings"
	"testing"

	"github.com/pkg/errors"

	"locksim/sim/resp"
)

func TestParseCommand(t *testing.T) {
	for _, c := range []struct {
		in   string
		args string // joined by |, or "incomplete", or "error: TEXT"
		used int
	}{
		{"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", "GET|k", 20},
		{"*2\r\n$3\r\nGET\r\n$1\r\n", "incomplete", 0},
		{"*2\r\n$3\r\nGET", "incomplete", 0},
		{"PING\r\n", "PING", 6},
		{"SET k v\n", "SET|k|v", 8},
		{"PING", "incomplete", 0},
		{"*0\r\n", "error: a command with 0 arguments", 0},
		{"*99999999\r\n", "error: a command with 99999999 arguments", 0},
		{"*1\r\n:1\r\n", "error: must be a bulk string", 0},
		{"*1\r\n$-1\r\n", "error: of length -1", 0},
		{"*1\r\n$999999999\r\n", "error: of length 999999999", 0},
		{"*x\r\n", "error: bad length", 0},
		{"*1" + strings.Repeat("1", 40), "error: bad length", 0},
	} {
		args, used, err := parseCommand([]byte(c.in))
		got := strings.Join(args, "|")
		switch {
		case errors.Is(err, errIncomplete):
			got = "incomplete"
		case err != nil:
			got = "error: " + err.Error()
		}
		if !strings.HasPrefix(c.args, "error: ") && got != c.args || strings.HasPrefix(c.args, "error: ") && !strings.Contains(got, strings.TrimPrefix(c.args, "error: ")) || used != c.used {
			t.Errorf("%q: got %q (%d bytes), want %q (%d)", c.in, got, used, c.args, c.used)
		}
	}
}

func TestAppendReply(t *testing.T) {
	r := resp.Reply{Kind: resp.Array, Elems: []resp.Reply{resp.BulkReply("a"), resp.IntReply(-2), {Kind: resp.NilBulk}, resp.ErrorReply("ERR x"), resp.OK}}
	if got := string(appendReply(nil, r)); got != "*5\r\n$1\r\na\r\n:-2\r\n$-1\r\n-ERR x\r\n+OK\r\n" {
		t.Errorf("got %q", got)
	}
}
