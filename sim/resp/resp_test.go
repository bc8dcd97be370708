package resp

import "testing"

func TestParseAndString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"+OK\r\n", "OK"},
		{"-ERR no\r\n", "(error) ERR no"},
		{":42\r\n", "(integer) 42"},
		{"$5\r\nhello\r\n", `"hello"`},
		{"$-1\r\n", "(nil)"},
		{"*-1\r\n", "(nil)"},
		{"*3\r\n:1\r\n$1\r\na\r\n*1\r\n+OK\r\n", `[(integer) 1, "a", [OK]]`},
	}
	for _, tc := range cases {
		r, err := ParseAll([]byte(tc.in))
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if got := r.String(); got != tc.want {
			t.Errorf("%q: String() = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"", "+OK", "$5\r\nhi\r\n", "*2\r\n:1\r\n", "?x\r\n", ":x\r\n"} {
		if _, err := ParseAll([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
