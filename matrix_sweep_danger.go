package locksim

import (
	"github.com/pkg/errors"

	"locksim/engine"
	"locksim/model"
	"locksim/report"
	"locksim/scenarios"
)

// WithSeeds sets how many seeds each Matrix or Sweep cell runs (1..n).
func WithSeeds(n int) Option { return func(c *config) { c.seeds = n } }

// WithAxes replaces a Sweep's default axes (see engine.ParseAxis); an
// axis without values keeps its default.
func WithAxes(x, y engine.Axis) Option { return func(c *config) { c.x, c.y = x, y } }

// Matrix runs a design against every catalogue scenario (the same table
// as `locksim matrix`), for report.MatrixText, MatrixMarkdown or
// MatrixHTML to render. design is as for Check; compare extra designs
// (catalogue IDs) in the same table with also. WithFencing and
// WithOptions apply to your design; WithSeeds sets the seeds per cell
// (default 3). A cell with a run that stopped with an error (shown ERR)
// returns the table and an error naming the first: no verdict there.
func Matrix(design any, also []string, opts ...Option) (*report.Matrix, error) {
	c, err := mapConfig(design, opts)
	if err != nil {
		return nil, err
	}
	var cols []model.Spec
	for _, id := range also {
		cols = append(cols, model.Spec{Design: id})
	}
	cols = append(cols, c.check.Base)
	m, err := engine.Matrix(engine.MatrixConfig{Designs: cols, Scenarios: scenarios.All(), Seeds: c.seeds, Workers: c.check.Workers, Context: c.Context})
	if err != nil {
		return nil, err
	}
	if n, first := m.ErrorCells(); n > 0 {
		return m, errors.Errorf("no verdict in %d cell(s): a run stopped with an error; the first: %s", n, first)
	}
	return m, nil
}

// Sweep maps where a design breaks over two parameters (the same map as
// `locksim sweep --param param`, see engine.SweepParams), for
// report.SweepText or SweepSVG to render. WithAxes changes the axes,
// WithSeeds the seeds per cell (default 2), WithInvariants which count.
// A cell with a run that stopped with an error (shown E) returns the map
// and an error naming the first: no verdict there.
func Sweep(design any, param string, opts ...Option) (*report.Sweep, error) {
	c, err := mapConfig(design, opts)
	if err != nil {
		return nil, err
	}
	sw, err := engine.Sweep(engine.SweepConfig{Param: param, Design: c.check.Base, X: c.x, Y: c.y,
		Seeds: c.seeds, Workers: c.check.Workers, Invariants: c.check.Invariants, Progress: c.Progress, Context: c.Context})
	if err != nil {
		return nil, err
	}
	if n, first := sw.ErrorCells(); n > 0 {
		return sw, errors.Errorf("no verdict in %d cell(s): a run stopped with an error; the first: %s", n, first)
	}
	return sw, nil
}

func mapConfig(design any, opts []Option) (config, error) {
	var c config
	if err := setDesign(&c.Base, design); err != nil {
		return c, err
	}
	for _, o := range opts {
		o(&c)
	}
	if err := c.OptionError(); err != nil {
		return c, err
	}
	c.resolve()
	return c, nil
}

// Danger runs exhaustive mode on a design (the same run as `locksim check
// --exhaustive`, see WithExhaustive: depth 1 unless WithExhaustive says 2)
// and returns its result, whose Guarantee, Breaks and Danger a program can
// read; report.DangerMap(r) gives report.DangerText or DangerHTML the
// danger map to draw. The options fix the configuration as for Check.
func Danger(design any, opts ...Option) (*engine.ExhaustiveResult, error) {
	c, err := mapConfig(design, opts)
	if err != nil {
		return nil, err
	}
	x, err := c.exhaustiveConfig()
	if err != nil {
		return nil, err
	}
	return engine.Exhaustive(x)
}
