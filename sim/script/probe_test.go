package script

import (
	"os"
	"strings"
	"testing"
)

func TestProbe(t *testing.T) {
	scripts := strings.Split(os.Getenv("PROBE"), "\n@@\n")
	_, fe := newNode(t, Options{})
	_, se := newNode(t, Options{Slow: true})
	fc, sc := fe.NewConn(), se.NewConn()
	for _, s := range scripts {
		f := fc.Do("EVAL", s, "0")
		sl := sc.Do("EVAL", s, "0")
		mark := "SAME"
		if f.String() != sl.String() {
			mark = "DIFF"
		}
		t.Logf("%s %q\n  fast: %s\n  slow: %s", mark, s, f, sl)
	}
}
