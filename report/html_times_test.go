package report

import (
	"testing"
	"time"
)

func TestMsText(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0 ms"},
		{us(1049101), "1,049.1 ms"},
		{us(1049151), "1,049.2 ms"},
		{1500 * time.Millisecond, "1,500.0 ms"},
		{us(55127), "55.1 ms"},
		{us(2949), "2.9 ms"},
		{us(100), "0.1 ms"},
		{us(12), "0.012 ms"},
		{1500 * time.Nanosecond, "0.002 ms"},
		{us(99999), "100.0 ms"},
		{-2 * time.Second, "-2,000.0 ms"},
		{60 * time.Second, "60,000.0 ms"},
		{us(1234567890), "1,234,567.9 ms"},
	} {
		if got := msText(tc.d); got != tc.want {
			t.Errorf("msText(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestMsProse(t *testing.T) {
	for _, tc := range []struct{ in, plain, html string }{
		{"overlap for 0.055127s.", "overlap for 55.1 ms.",
			`overlap for <span class="ms" title="0.055127s">55.1 ms</span>.`},
		{"A paused for 1.5s, until 1.502949s", "A paused for 1,500.0 ms, until 1,502.9 ms",
			`A paused for <span class="ms" title="1.5s">1,500.0 ms</span>, until <span class="ms" title="1.502949s">1,502.9 ms</span>`},
		{"ttl 250ms, 14us, 1m30s and +2s", "ttl 250.0 ms, 0.014 ms, 90,000.0 ms and +2,000.0 ms", ""},
		// Names and values that end like a duration stay as they are.
		{"value A:x5s on r1s, B:5s, lock:1s, 3sx", "value A:x5s on r1s, B:5s, lock:1s, 3sx", ""},
		{"a <b> & 1s", "a <b> & 1,000.0 ms", `a &lt;b&gt; &amp; <span class="ms" title="1s">1,000.0 ms</span>`},
	} {
		if got := msPlain(tc.in); got != tc.plain {
			t.Errorf("msPlain(%q) = %q, want %q", tc.in, got, tc.plain)
		}
		if tc.html != "" {
			if got := string(msHTML(tc.in)); got != tc.html {
				t.Errorf("msHTML(%q) = %q, want %q", tc.in, got, tc.html)
			}
		}
	}
}
