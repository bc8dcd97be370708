package report

import (
	"html/template"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The HTML page shows times for people, in one unit: milliseconds with
// one decimal and commas between thousands ("1,049.1 ms", "1,500.0 ms"),
// three decimals below 0.1 ms ("0.012 ms"). The exact value (as the text report prints it) stays in
// the element's title. The text report and JSON keep sim.FormatTime.
// report.js's fmtMs follows the same rule; the page's self-test compares
// the two.

// msText renders a duration or a true time by the HTML rule.
func msText(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	if d == 0 {
		return "0 ms"
	}
	if d < 100*time.Microsecond {
		us := (d + 500*time.Nanosecond) / time.Microsecond
		return sign + "0." + pad3(int64(us)) + " ms"
	}
	tenths := int64((d + 50*time.Microsecond) / (100 * time.Microsecond))
	return sign + commas(tenths/10) + "." + strconv.FormatInt(tenths%10, 10) + " ms"
}

func pad3(n int64) string {
	s := strconv.FormatInt(n, 10)
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}

// commas renders n >= 0 with commas between thousands: 1049 -> "1,049".
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// durRE matches a time or duration as the reports write them in prose:
// sim.FormatTime ("1.049101s") and time.Duration.String with u for micro
// ("1.5s", "250ms", "14us", "1m30s", "1h0m0s").
var durRE = regexp.MustCompile(`(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?(?:ms|us|µs|ns|s)`)

// durations finds the times in s that stand as words: not part of a name
// or a value ("A:x5s"), as [start, end) byte offsets.
func durations(s string) [][2]int {
	var out [][2]int
	for _, m := range durRE.FindAllStringIndex(s, -1) {
		if m[0] > 0 && strings.IndexByte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:", s[m[0]-1]) >= 0 {
			continue
		}
		if m[1] < len(s) && strings.IndexByte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", s[m[1]]) >= 0 {
			continue
		}
		if _, err := time.ParseDuration(s[m[0]:m[1]]); err != nil {
			continue
		}
		out = append(out, [2]int{m[0], m[1]})
	}
	return out
}

// msPlain rewrites the times in a sentence by the HTML rule, as plain
// text (for hover texts, which the script shows as text).
func msPlain(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range durations(s) {
		d, _ := time.ParseDuration(s[m[0]:m[1]])
		b.WriteString(s[last:m[0]])
		b.WriteString(msText(d))
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// msHTML renders a sentence for the page, escaped, with each time by the
// HTML rule in a span whose title keeps the exact text:
// <span class="ms" title="1.049101s">1,049.1 ms</span>.
func msHTML(s string) template.HTML {
	var b strings.Builder
	last := 0
	for _, m := range durations(s) {
		d, _ := time.ParseDuration(s[m[0]:m[1]])
		b.WriteString(template.HTMLEscapeString(s[last:m[0]]))
		b.WriteString(`<span class="ms" title="` + template.HTMLEscapeString(s[m[0]:m[1]]) + `">` + msText(d) + `</span>`)
		last = m[1]
	}
	b.WriteString(template.HTMLEscapeString(s[last:]))
	return template.HTML(b.String())
}
