package serve

import (
	"bytes"
	"strconv"

	"github.com/pkg/errors"

	"locksim/sim/resp"
)

// appendReply appends r in RESP2 wire form: what a Redis node would send.
func appendReply(b []byte, r resp.Reply) []byte {
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
	case resp.NilBulk:
		b = append(b, "$-1"...)
	case resp.NilArray:
		b = append(b, "*-1"...)
	case resp.Array:
		b = append(b, '*')
		b = strconv.AppendInt(b, int64(len(r.Elems)), 10)
		b = append(b, '\r', '\n')
		for _, e := range r.Elems {
			b = appendReply(b, e)
		}
		return b
	default:
		b = append(b, "-ERR locksim: reply of unknown kind"...)
	}
	return append(b, '\r', '\n')
}

// errIncomplete means the buffer ends inside a command.
var errIncomplete = errors.New("incomplete")

// maxArgs and maxBulk bound one command: a client that sends more is cut
// off with an error instead of growing the endpoint's memory.
const (
	maxArgs = 1 << 16
	maxBulk = 16 << 20
)

// parseCommand parses one command from the front of buf: a RESP array of
// bulk strings (what every client library sends) or an inline command
// (words on one line, as telnet or redis-cli --no-raw send). It returns
// the arguments and the bytes consumed, or errIncomplete.
func parseCommand(buf []byte) ([]string, int, error) {
	if len(buf) == 0 {
		return nil, 0, errIncomplete
	}
	if buf[0] != '*' {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			if len(buf) > 64<<10 {
				return nil, 0, errors.New("an inline command longer than 64 KiB")
			}
			return nil, 0, errIncomplete
		}
		words := bytes.Fields(buf[:i])
		args := make([]string, len(words))
		for j, w := range words {
			args[j] = string(w)
		}
		return args, i + 1, nil
	}
	n, pos, err := intLine(buf, 1)
	if err != nil {
		return nil, 0, err
	}
	if n < 1 || n > maxArgs {
		return nil, 0, errors.Errorf("a command with %d arguments", n)
	}
	args := make([]string, 0, min(n, 64))
	for range n {
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
		if l < 0 || l > maxBulk {
			return nil, 0, errors.Errorf("a command argument of length %d", l)
		}
		if p+l+2 > len(buf) {
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
		if len(buf)-from > 32 {
			return 0, 0, errors.Errorf("bad length %q", firstLine(buf[from:]))
		}
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
