package main

import (
	"slices"
	"time"

	"locksim/model"
)

// optionFlags are the design-option flags a command offers: the rows of
// model.OptionTable that name the command in their Flags. The table gives
// each its flag, help, type, limits and how it sets model.Options, so a
// new design option needs no code here.
type optionFlags struct {
	rows []model.OptionRow
	vals []any // *bool, *time.Duration, *int or *float64, as the row's Kind
}

// addOptionFlags registers cmd's design-option flags; prefix starts each
// help line ("what if: ").
func addOptionFlags(fs *flags, cmd, prefix string) *optionFlags {
	of := &optionFlags{}
	for _, r := range model.OptionTable {
		if !slices.Contains(r.Flags, cmd) {
			continue
		}
		help := prefix + r.Doc + " (default " + r.Default + ")"
		var v any
		switch r.Kind {
		case model.OptBool:
			v = fs.Bool(r.Key, false, help)
		case model.OptDuration:
			v = fs.Duration(r.Key, 0, help)
		case model.OptCount:
			v = fs.Int(r.Key, 0, help)
		case model.OptFraction:
			v = fs.Float64(r.Key, 0, help)
		}
		of.rows, of.vals = append(of.rows, r), append(of.vals, v)
	}
	return of
}

// names are the flags' names, in the table's order.
func (of *optionFlags) names() []string {
	var out []string
	if of != nil {
		for _, r := range of.rows {
			out = append(out, r.Key)
		}
	}
	return out
}

// check refuses a given flag's impossible value, and one that does not
// apply to s's design (as the spec is before the flags are applied); an
// explicit 0 is refused rather than read as "the default".
func (of *optionFlags) check(fs *flags, s model.Spec) error {
	if of == nil {
		return nil
	}
	for i, r := range of.rows {
		if !flagSet(fs, r.Key) {
			continue
		}
		switch v := of.vals[i].(type) {
		case *time.Duration:
			if *v <= 0 || *v > r.Max {
				return usagef("--%s %v: give a positive duration up to %v", r.Key, *v, r.Max)
			}
		case *int:
			if *v < r.Lo || *v > r.Hi {
				return usagef("--%s %d: give %d to %d", r.Key, *v, r.Lo, r.Hi)
			}
		case *float64:
			if !(*v >= 0 && *v < 1) {
				return usagef("--%s %v: give a number in [0, 1)", r.Key, *v)
			}
		}
		if why := r.Refusal("--"+r.Key, s); why != "" {
			return usagef("%s", why)
		}
	}
	return nil
}

// apply puts the given flags into s's options. A boolean flag turns its
// option on; false leaves the spec's (a scenario's) value.
func (of *optionFlags) apply(fs *flags, s *model.Spec) {
	if of == nil {
		return
	}
	for i, r := range of.rows {
		if !flagSet(fs, r.Key) {
			continue
		}
		switch v := of.vals[i].(type) {
		case *bool:
			if *v {
				r.Set(&s.Options, true)
			}
		case *time.Duration:
			r.Set(&s.Options, *v)
		case *int:
			r.Set(&s.Options, *v)
		case *float64:
			r.Set(&s.Options, *v)
		}
	}
}
