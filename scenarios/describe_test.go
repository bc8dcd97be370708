package scenarios

import (
	"strings"
	"testing"

	"locksim/model"
)

// Describe names what the spec changed from its design's defaults: an
// exhaustive guarantee or a check's configuration line that left out
// quorum=2 or the fencing rule would describe another design.
func TestDescribeNamesTheDesignSettings(t *testing.T) {
	for _, tc := range []struct {
		spec      model.Spec
		want, not string
	}{
		{model.Spec{Design: model.Redlock, Options: model.Options{Quorum: 2}}, "; options quorum=2", ""},
		{model.Spec{Design: model.SetPxLua, Options: model.Options{Deadline: true}}, "; options deadline=true", ""},
		{model.Spec{Design: model.Fenced, Fencing: model.FenceStrictReads}, "; fencing strict-reads", "options"},
		{model.Spec{Design: model.Redlock}, "5 master(s)", "options"},
	} {
		got := Describe(tc.spec)
		if !strings.Contains(got, tc.want) || tc.not != "" && strings.Contains(got, tc.not) {
			t.Errorf("%s %+v: %q, want %q and not %q", tc.spec.Design, tc.spec.Options, got, tc.want, tc.not)
		}
	}
}
