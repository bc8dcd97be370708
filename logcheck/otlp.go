package logcheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/pkg/errors"
)

// OTLP trace files (docs/check-log.md, "From traces"): an OTLP JSON
// document (ExportTraceServiceRequest, as OTLP/HTTP JSON and the
// collector's file exporter write it) whose spans are lock calls and
// protected writes, named by these span names and attributes. No tracing
// SDK is needed to read it: the document is plain JSON.
const (
	SpanAcquire = "lock.acquire" // acquire-attempt at its start; granted or refused at its end
	SpanRenew   = "lock.renew"   // renewed or lost at its end
	SpanRelease = "lock.release" // released at its start
	SpanWrite   = "lock.write"   // write or write-rejected at its end, sent at its start

	AttrKey      = "lock.key"         // the lock's key (required)
	AttrClient   = "lock.client"      // the client (default: the resource's service.instance.id)
	AttrOutcome  = "lock.outcome"     // granted|refused (acquire), renewed|lost (renew), accepted|rejected (write)
	AttrValidity = "lock.validity_ms" // the validity the call reported, in ms
	AttrToken    = "lock.token"       // the fencing token
	// AttrDeadline, on lock.acquire, is how long the call may wait, in
	// ms (its context's deadline minus the span's start).
	AttrDeadline = "lock.deadline_ms"
	AttrValue    = "lock.value" // the lock value
	// The host is the resource's host.name, else its service.instance.id.
)

// MaxOTLPBytes bounds an OTLP file: the document is read whole (JSON has
// no line to stream by).
const MaxOTLPBytes = 256 << 20

// IsOTLP reports whether a file's first bytes are an OTLP JSON document
// (an object whose first key is resourceSpans) rather than lock-log lines.
func IsOTLP(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	head = bytes.TrimLeft(head[1:], " \t\r\n")
	return bytes.HasPrefix(head, []byte(`"resourceSpans"`))
}

type otlpDoc struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []otlpAttr `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Spans []otlpSpan `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type otlpSpan struct {
	Name       string     `json:"name"`
	Start      string     `json:"startTimeUnixNano"`
	End        string     `json:"endTimeUnixNano"`
	Attributes []otlpAttr `json:"attributes"`
	Status     struct {
		Code json.RawMessage `json:"code"`
	} `json:"status"`
}

type otlpAttr struct {
	Key   string `json:"key"`
	Value struct {
		String *string          `json:"stringValue"`
		Int    *json.RawMessage `json:"intValue"` // a string or a number in OTLP JSON
		Double *float64         `json:"doubleValue"`
		Bool   *bool            `json:"boolValue"`
	} `json:"value"`
}

func (a otlpAttr) text() string {
	v := a.Value
	switch {
	case v.String != nil:
		return *v.String
	case v.Int != nil:
		var s string
		if json.Unmarshal(*v.Int, &s) == nil {
			return s
		}
		return string(*v.Int)
	case v.Double != nil:
		return strconv.FormatFloat(*v.Double, 'f', -1, 64)
	case v.Bool != nil:
		return strconv.FormatBool(*v.Bool)
	}
	return ""
}

func attrs(as []otlpAttr) map[string]string {
	m := make(map[string]string, len(as))
	for _, a := range as {
		m[a.Key] = a.text()
	}
	return m
}

// statusError reports whether a span's status is ERROR (code 2, or its
// enum name).
func statusError(raw json.RawMessage) bool {
	s := string(raw)
	return s == "2" || s == `"STATUS_CODE_ERROR"`
}

// ReadOTLP reads an OTLP JSON trace file and returns its lock spans as an
// Input of lock-log lines in time order, so the checks read it as they
// read a log; a span the mapping cannot place is an error naming it (its
// position: resource, scope, span). Spans with other names are skipped.
func ReadOTLP(name string, r io.Reader) (Input, int, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxOTLPBytes+1))
	if err != nil {
		return Input{}, 0, errors.Wrapf(err, "read %s", name)
	}
	if len(b) > MaxOTLPBytes {
		return Input{}, 0, errors.Errorf("%s: an OTLP file is at most %d bytes (it is read whole)", name, MaxOTLPBytes)
	}
	var doc otlpDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return Input{}, 0, errors.Errorf("%s: not an OTLP JSON trace document: %v", name, err)
	}
	type timed struct {
		at   int64
		seq  int
		line []byte
	}
	var out []timed
	spans := 0
	for ri, rs := range doc.ResourceSpans {
		res := attrs(rs.Resource.Attributes)
		host := cmpOr(res["host.name"], res["service.instance.id"])
		for si, ss := range rs.ScopeSpans {
			for pi, sp := range ss.Spans {
				where := name + " span " + strconv.Itoa(ri) + "/" + strconv.Itoa(si) + "/" + strconv.Itoa(pi) + " (" + sp.Name + ")"
				if sp.Name != SpanAcquire && sp.Name != SpanRenew && sp.Name != SpanRelease && sp.Name != SpanWrite {
					continue
				}
				spans++
				at := attrs(sp.Attributes)
				start, err1 := strconv.ParseInt(sp.Start, 10, 64)
				end, err2 := strconv.ParseInt(sp.End, 10, 64)
				switch {
				case err1 != nil || err2 != nil || end < start:
					return Input{}, 0, errors.Errorf("%s: startTimeUnixNano and endTimeUnixNano must be integers, the end not before the start", where)
				case at[AttrKey] == "":
					return Input{}, 0, errors.Errorf("%s: no %s attribute", where, AttrKey)
				case host == "":
					return Input{}, 0, errors.Errorf("%s: its resource has no host.name or service.instance.id", where)
				}
				ev := map[string]any{"host": host, "client": cmpOr(at[AttrClient], res["service.instance.id"]), "key": at[AttrKey]}
				if ev["client"] == "" {
					return Input{}, 0, errors.Errorf("%s: no %s attribute and no service.instance.id", where, AttrClient)
				}
				if v := at[AttrValue]; v != "" {
					ev["value"] = v
				}
				if v := at[AttrToken]; v != "" {
					n, err := strconv.ParseInt(v, 10, 64)
					if err != nil {
						return Input{}, 0, errors.Errorf("%s: %s %q is not an integer", where, AttrToken, v)
					}
					ev["token"] = n
				}
				validity := func() error {
					if v := at[AttrValidity]; v != "" {
						ms, err := strconv.ParseFloat(v, 64)
						if err != nil || ms < 0 {
							return errors.Errorf("%s: %s %q is not a number of milliseconds", where, AttrValidity, v)
						}
						ev["validity"] = int64(ms * float64(time.Millisecond))
					}
					return nil
				}
				outcome, failed := at[AttrOutcome], statusError(sp.Status.Code)
				add := func(t int64, kind string) {
					e := map[string]any{"time": t, "kind": kind}
					for k, v := range ev {
						e[k] = v
					}
					line, _ := json.Marshal(e)
					out = append(out, timed{t, len(out), line})
				}
				switch sp.Name {
				case SpanAcquire:
					tok, hasTok := ev["token"]
					delete(ev, "token")
					if v := at[AttrDeadline]; v != "" {
						ms, err := strconv.ParseFloat(v, 64)
						if err != nil || ms <= 0 {
							return Input{}, 0, errors.Errorf("%s: %s %q is not a positive number of milliseconds", where, AttrDeadline, v)
						}
						ev["deadline"] = int64(ms * float64(time.Millisecond))
					}
					add(start, string(AcquireAttempt))
					delete(ev, "deadline")
					if outcome == "refused" || outcome == "" && failed {
						add(end, string(Refused))
						continue
					}
					if err := validity(); err != nil {
						return Input{}, 0, err
					}
					if hasTok {
						ev["token"] = tok
					}
					add(end, string(Granted))
				case SpanRenew:
					if outcome == "lost" || outcome == "" && failed {
						// lock.outcome lost is the lock's word that the lease
						// is gone; a bare error status says nothing more.
						ev["cause"] = CauseUnknown
						if outcome == "lost" {
							ev["cause"] = CauseRefused
						}
						add(end, string(Lost))
						delete(ev, "cause")
						continue
					}
					if err := validity(); err != nil {
						return Input{}, 0, err
					}
					add(end, string(Renewed))
				case SpanRelease:
					add(start, string(Released))
				case SpanWrite:
					ev["sent"] = start
					if outcome == "rejected" || outcome == "" && failed {
						add(end, string(WriteRejected))
					} else {
						add(end, string(Write))
					}
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b timed) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return a.seq - b.seq
	})
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	for _, t := range out {
		w.Write(t.line)
		w.WriteByte('\n')
	}
	w.Flush()
	return Input{Name: name + " (its lock spans as log lines, in time order)", R: &buf}, spans, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
