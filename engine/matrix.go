package engine

import (
	"context"
	"strconv"

	"locksim/model"
	"locksim/scenarios"
)

// MatrixConfig is a designs x scenarios table.
type MatrixConfig struct {
	// Designs are the columns: each a spec naming a catalogue design
	// (Design), a Lua design (Lua) or a Go design (Custom), with optional
	// Fencing and Options. nil means the catalogue's designs.
	Designs []model.Spec
	// Scenarios are the rows; nil means the catalogue's.
	Scenarios []*scenarios.Scenario
	// Seeds is how many seeds (1..Seeds) each cell runs; 0 means 3.
	Seeds int
	// Workers runs that many cells at once; 0 means GOMAXPROCS. The table
	// does not depend on it.
	Workers int
	// Context, if set, stops the matrix between cells when it is done
	// (SIGINT, SIGTERM): the cells started finish, the others stay unrun
	// ("-"), and the result says Interrupted.
	Context context.Context
}

// Matrix runs every design against every scenario, each cell over seeds
// 1..Seeds, and returns the table (report.MatrixText and the others render it). A
// catalogue design runs where the scenario's `designs` line and layout
// allow; your own design wherever its traits fit the layout.
func Matrix(c MatrixConfig) (*MatrixResult, error) {
	designs := c.Designs
	if designs == nil {
		for _, id := range model.DesignIDs() {
			designs = append(designs, model.Spec{Design: id})
		}
	}
	scs := c.Scenarios
	if scs == nil {
		scs = scenarios.All()
	}
	seeds := c.Seeds
	if seeds == 0 {
		seeds = 3
	}
	m := &MatrixResult{Title: "locksim: which design survives which scenario"}
	for _, d := range designs {
		m.Designs = append(m.Designs, designName(d))
	}
	type job struct {
		sc *scenarios.Scenario
		d  model.Spec
	}
	var jobs []job
	for _, sc := range scs {
		m.Scenarios = append(m.Scenarios, sc.Name)
		for _, d := range designs {
			jobs = append(jobs, job{sc, d})
		}
	}
	// A pair that cannot run (InScenario's or model.Run's error) is a
	// cell with an error, as a run that stopped is: shown as such, never
	// as a cell that judged nothing, and the table is kept.
	var more func(int) bool
	if c.Context != nil {
		more = func(int) bool { return c.Context.Err() == nil }
	}
	n := ordered(len(jobs), c.Workers, more, func(j int) MatrixCell {
		spec, na, err := InScenario(jobs[j].sc, jobs[j].d)
		if err != nil {
			return MatrixCell{Errors: 1, Error: err.Error()}
		}
		if na != "" {
			return MatrixCell{NA: na}
		}
		var runs []*model.Result
		for s := 1; s <= seeds; s++ {
			r, err := model.Run(spec, uint64(s))
			if err != nil {
				return MatrixCell{Errors: 1, Error: "seed " + strconv.Itoa(s) + ": " + err.Error()}
			}
			runs = append(runs, r)
		}
		return CellOf(runs)
	}, func(j int, cell MatrixCell) bool {
		m.Set(designName(jobs[j].d), jobs[j].sc.Name, cell)
		return true
	})
	m.Interrupted = n < len(jobs)
	return m, nil
}

// InScenario puts design d into a scenario: for a catalogue design the
// scenario's own spec for it, for your design the scenario with it in the
// default design's place. na says why the pair does not apply.
func InScenario(sc *scenarios.Scenario, d model.Spec) (spec model.Spec, na string, err error) {
	if d.Lua == nil && d.Custom == nil {
		if ok, why := sc.Applies(d.Design); !ok {
			return model.Spec{}, why, nil
		}
		spec, err = sc.SpecFor(d.Design)
		if d.Fencing != "" {
			spec.Fencing = d.Fencing
		}
		return spec, "", err
	}
	if ok, why := sc.Fits(designName(d), d.Traits(), sc.Spec.Options); !ok {
		return model.Spec{}, why, nil
	}
	spec, err = sc.SpecWith(d)
	return spec, "", err
}

// designName names a design spec: its Go design's name, else its ID.
func designName(s model.Spec) string {
	if s.Custom != nil {
		return s.Custom.Name()
	}
	return s.Design
}
