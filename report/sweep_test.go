package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"locksim/model/invariant"
	"strings"
	"testing"
)

// sampleSweep is pause length (y) against TTL (x): long pauses break,
// short ones are safe, the border is mixed; one cell was not run and one
// did no work (idle).
func sampleSweep() *Sweep {
	s := &Sweep{Title: "gc-pause on set-px-lua", XName: "ttl", YName: "pause",
		Xs: []string{"250ms", "500ms", "1s", "2s", "4s"}, Ys: []string{"100ms", "500ms", "1s", "3s"}}
	broken := []invariant.ID{"mutual-exclusion", "stale-write"}
	for i := range s.Ys {
		var row []SweepCell
		for j := range s.Xs {
			c := SweepCell{Runs: 4}
			switch {
			case i-j >= 1:
				c.Broken, c.Invariants = 4, broken
			case i-j == 0 && i > 0:
				c.Broken, c.Invariants = 2, broken[:1]
			}
			row = append(row, c)
		}
		s.Cells = append(s.Cells, row)
	}
	s.Cells[0][4] = SweepCell{}
	s.Cells[0][0].Idle = 4 // safe, but no run's resource accepted a write
	return s
}

func TestSweepText(t *testing.T) {
	var b bytes.Buffer
	if err := SweepText(&b, sampleSweep()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sweep.txt", b.Bytes())
}

func TestSweepSVG(t *testing.T) {
	var b bytes.Buffer
	if err := SweepSVG(&b, sampleSweep()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sweep.svg", b.Bytes())
	svg := b.String()
	// Well-formed XML, and nothing fetched (the namespace is a name only).
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
	}
	if n := strings.Count(svg, "http"); n != 1 || !strings.Contains(svg, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Errorf("the SVG has %d http references, want only its namespace", n)
	}
	for _, want := range []string{`data-state="safe"`, `data-state="idle"`, `data-state="broken"`, `data-state="mixed"`, `data-state="none"`, `<g id="boundary"`, "<line "} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %s", want)
		}
	}
}

func TestSweepValidate(t *testing.T) {
	s := sampleSweep()
	s.Cells = s.Cells[1:]
	var b bytes.Buffer
	if err := SweepText(&b, s); err == nil || !strings.Contains(err.Error(), "sweep has 3 rows of cells for 4 y values") {
		t.Errorf("got %v, want a shape error", err)
	}
	s = sampleSweep()
	s.Cells[1][2].Broken = 9
	if err := SweepSVG(&b, s); err == nil || !strings.Contains(err.Error(), "broken 9 of 4 runs") {
		t.Errorf("got %v, want a count error", err)
	}
	if err := SweepSVG(&b, nil); err == nil {
		t.Error("nil sweep returned no error")
	}
}

func TestSweepColor(t *testing.T) {
	for _, tc := range []struct {
		c    SweepCell
		want string
	}{
		{SweepCell{}, "#f3f4f6"},
		{SweepCell{Runs: 4}, "#86efac"},
		{SweepCell{Runs: 4, Broken: 4}, "#dc2626"},
		{SweepCell{Runs: 4, Broken: 2}, "#f97316"},
	} {
		if got := sweepColor(tc.c); got != tc.want {
			t.Errorf("sweepColor(%+v) = %s, want %s", tc.c, got, tc.want)
		}
	}
}
