package realclient

import (
	"bytes"
	"strconv"

	"github.com/pkg/errors"

	"locksim/sim/resp"
)

// encodeReply appends r in wire form, as a Redis node sends it on a
// connection speaking RESP3 (after HELLO 3) or RESP2: RESP3 has one null
// ("_"); its maps, sets, doubles, booleans and pushes (which the nodes
// send only to a RESP3 connection) are written as RESP2 writes them
// otherwise.
func encodeReply(b []byte, r resp.Reply, resp3 bool) []byte {
	switch r.Kind {
	case resp.Status:
		b = append(b, '+')
		b = append(b, r.Str...)
	case resp.Error:
		b = append(b, '-')
		b = append(b, r.Str...)
	case resp.Int:
		b = append(b, ':')
		b = strconv.AppendInt(b, r.Int, 10)
	case resp.Bulk:
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(r.Str)), 10)
		b = append(b, '\r', '\n')
		b = append(b, r.Str...)
	case resp.NilBulk, resp.NilArray:
		switch {
		case resp3:
			b = append(b, '_')
		case r.Kind == resp.NilBulk:
			b = append(b, "$-1"...)
		default:
			b = append(b, "*-1"...)
		}
	case resp.Double:
		if !resp3 {
			return encodeReply(b, resp.BulkReply(r.Str), false)
		}
		b = append(b, ',')
		b = append(b, r.Str...)
	case resp.Bool:
		if !resp3 {
			return encodeReply(b, resp.IntReply(r.Int), false)
		}
		if r.Int != 0 {
			b = append(b, "#t"...)
		} else {
			b = append(b, "#f"...)
		}
	case resp.Array, resp.Map, resp.Set, resp.Push:
		t, n := byte('*'), len(r.Elems)
		if resp3 {
			switch r.Kind {
			case resp.Map:
				t, n = '%', n/2
			case resp.Set:
				t = '~'
			case resp.Push:
				t = '>'
			}
		}
		b = append(b, t)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, '\r', '\n')
		for _, e := range r.Elems {
			b = encodeReply(b, e, resp3)
		}
		return b
	default:
		b = append(b, "-ERR locksim: reply of unknown kind"...)
	}
	return append(b, '\r', '\n')
}

// errIncomplete means the buffer ends inside a command.
var errIncomplete = errors.New("incomplete")

// parseCommand parses one client command (a RESP array of bulk strings,
// as every client library sends) from the front of buf and returns it with
// the bytes consumed, or errIncomplete.
func parseCommand(buf []byte) ([]string, int, error) {
	if len(buf) == 0 {
		return nil, 0, errIncomplete
	}
	if buf[0] != '*' {
		return nil, 0, errors.Errorf("a command must be a RESP array, got %q", firstLine(buf))
	}
	n, pos, err := intLine(buf, 1)
	if err != nil {
		return nil, 0, err
	}
	if n < 1 || n > 1<<20 {
		return nil, 0, errors.Errorf("a command with %d arguments", n)
	}
	args := make([]string, 0, n)
	for i := 0; i < n; i++ {
		if pos >= len(buf) {
			return nil, 0, errIncomplete
		}
		if buf[pos] != '$' {
			return nil, 0, errors.Errorf("a command argument must be a bulk string, got %q", firstLine(buf[pos:]))
		}
		l, p, err := intLine(buf, pos+1)
		if err != nil {
			return nil, 0, err
		}
		if l < 0 || p+l+2 > len(buf) {
			if l < 0 {
				return nil, 0, errors.Errorf("a nil command argument")
			}
			return nil, 0, errIncomplete
		}
		args = append(args, string(buf[p:p+l]))
		pos = p + l + 2
	}
	return args, pos, nil
}

// intLine parses the integer from buf[from] to the next CRLF.
func intLine(buf []byte, from int) (int, int, error) {
	i := bytes.Index(buf[from:], []byte("\r\n"))
	if i < 0 {
		return 0, 0, errIncomplete
	}
	v, err := strconv.Atoi(string(buf[from : from+i]))
	if err != nil {
		return 0, 0, errors.Errorf("bad length %q", buf[from:from+i])
	}
	return v, from + i + 2, nil
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if len(b) > 40 {
		b = b[:40]
	}
	return string(b)
}
