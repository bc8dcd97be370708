package script

import (
	"github.com/pkg/errors"
	"github.com/yuin/gopher-lua/ast"
)

// Limits on what is compiled, checked before gopher-lua's compiler runs
// (for EVAL, SCRIPT LOAD, loadstring and load). The compiler is not
// linear: it looks each constant up in a list of the function's constants
// so far (80,000 distinct constants take 25 s), and its time grows faster
// than the square of an expression's nesting (x+x+...+x with 16,000 terms:
// 2.5 s). Real lock scripts are a few hundred bytes with a few dozen
// constants.
const (
	// MaxScriptBytes bounds a script's source, in bytes: parsing costs up
	// to ~600 bytes of allocation per source byte.
	MaxScriptBytes = 64 << 10
	// maxSyntaxDepth bounds the nesting of gopher-lua's syntax tree, where
	// Lua 5.1's own limit (syntaxlevels.go: 200 levels, as Redis) does not
	// reach: a left-associative chain a + b + ... or a suffix chain
	// f()()... costs Lua one level but nests the tree once per term, and
	// gopher-lua's compiler takes time superlinear in that nesting.
	maxSyntaxDepth = 1000
	// maxConstantWork bounds one function's constant lookups (uses times
	// distinct constants, what the compiler's search costs at most).
	maxConstantWork = 1 << 24
)

// parseBytes is what parsing and compiling allocate per source byte, at
// most (measured on gopher-lua v1.1.1: 40 for plain code, ~600 for deeply
// nested table constructors); loadstring charges it.
const parseBytes = 600

func errScriptTooLarge(n int) error {
	return errors.Errorf("script of %d bytes exceeds the limit of %d bytes (limits: max-script-source-bytes)", n, MaxScriptBytes)
}

// checkSource refuses a source longer than MaxScriptBytes.
func checkSource(src string) error {
	if len(src) > MaxScriptBytes {
		return errScriptTooLarge(len(src))
	}
	return nil
}

// checkChunk refuses a parsed chunk that would take the compiler too long.
func checkChunk(chunk []ast.Stmt) error {
	c := &chunkChecker{}
	c.function(chunk, 0)
	return c.err
}

type chunkChecker struct {
	err error
	fn  *constCount // the function being walked
}

// constCount counts one function's constant uses and distinct constants.
type constCount struct {
	uses     int
	distinct map[string]struct{}
}

func (k *constCount) add(kind byte, v string) {
	k.uses++
	k.distinct[string(kind)+v] = struct{}{}
}

func (c *chunkChecker) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

func (c *chunkChecker) deeper(depth int) bool {
	if depth > maxSyntaxDepth {
		c.fail(errors.Errorf("chunk nests more than %d expressions or blocks (limits: max-script-tree-depth)", maxSyntaxDepth))
		return false
	}
	return c.err == nil
}

// function walks a function body with its own constant table; nesting
// goes on counting across functions.
func (c *chunkChecker) function(stmts []ast.Stmt, depth int) {
	outer := c.fn
	c.fn = &constCount{distinct: map[string]struct{}{}}
	c.block(stmts, depth)
	if work := c.fn.uses * len(c.fn.distinct); work > maxConstantWork {
		c.fail(errors.Errorf("a function with %d uses of %d distinct constants would take too long to compile (more than %d lookups) (limits: max-script-constants)",
			c.fn.uses, len(c.fn.distinct), maxConstantWork))
	}
	c.fn = outer
}

func (c *chunkChecker) block(stmts []ast.Stmt, depth int) {
	if !c.deeper(depth) {
		return
	}
	for _, s := range stmts {
		c.stmt(s, depth+1)
	}
}

func (c *chunkChecker) exprs(es []ast.Expr, depth int) {
	for _, e := range es {
		c.expr(e, depth)
	}
}

func (c *chunkChecker) stmt(s ast.Stmt, depth int) {
	if !c.deeper(depth) {
		return
	}
	switch s := s.(type) {
	case *ast.GotoStmt:
		// Lua 5.2's goto and labels, which gopher-lua has and Redis's Lua
		// 5.1 does not: there `goto x` is "'=' expected near 'x'" and
		// `::x::` "unexpected symbol near ':'". The text is gopher-lua's
		// form of a syntax error, as for every other one (doc.go).
		c.fail(errors.Errorf("<string> line:%d near '%s':   syntax error (Redis's Lua 5.1 has no goto)", s.Line(), s.Label))
	case *ast.LabelStmt:
		c.fail(errors.Errorf("<string> line:%d near '::':   syntax error (Redis's Lua 5.1 has no labels)", s.Line()))
	case *ast.AssignStmt:
		c.exprs(s.Lhs, depth+1)
		c.exprs(s.Rhs, depth+1)
	case *ast.LocalAssignStmt:
		c.exprs(s.Exprs, depth+1)
	case *ast.FuncCallStmt:
		c.expr(s.Expr, depth+1)
	case *ast.DoBlockStmt:
		c.block(s.Stmts, depth+1)
	case *ast.WhileStmt:
		c.expr(s.Condition, depth+1)
		c.block(s.Stmts, depth+1)
	case *ast.RepeatStmt:
		c.block(s.Stmts, depth+1)
		c.expr(s.Condition, depth+1)
	case *ast.IfStmt:
		c.expr(s.Condition, depth+1)
		c.block(s.Then, depth+1)
		c.block(s.Else, depth+1) // elseif chains nest here
	case *ast.NumberForStmt:
		c.exprs([]ast.Expr{s.Init, s.Limit, s.Step}, depth+1)
		c.block(s.Stmts, depth+1)
	case *ast.GenericForStmt:
		c.exprs(s.Exprs, depth+1)
		c.block(s.Stmts, depth+1)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			c.exprs([]ast.Expr{s.Name.Func, s.Name.Receiver}, depth+1)
			if s.Name.Method != "" {
				c.fn.add('s', s.Name.Method)
			}
		}
		c.expr(s.Func, depth+1)
	case *ast.ReturnStmt:
		c.exprs(s.Exprs, depth+1)
	}
}

func (c *chunkChecker) expr(e ast.Expr, depth int) {
	if e == nil || !c.deeper(depth) {
		return
	}
	d := depth + 1
	switch e := e.(type) {
	case *ast.NumberExpr:
		c.fn.add('n', e.Value)
	case *ast.StringExpr:
		c.fn.add('s', e.Value)
	case *ast.IdentExpr:
		c.fn.add('s', e.Value) // a global's name is a constant; locals count too (an upper bound)
	case *ast.AttrGetExpr:
		c.expr(e.Object, d)
		c.expr(e.Key, d)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			c.expr(f.Key, d)
			c.expr(f.Value, d)
		}
	case *ast.FuncCallExpr:
		c.expr(e.Func, d)
		c.expr(e.Receiver, d)
		if e.Method != "" {
			c.fn.add('s', e.Method)
		}
		c.exprs(e.Args, d)
	case *ast.LogicalOpExpr:
		c.expr(e.Lhs, d)
		c.expr(e.Rhs, d)
	case *ast.RelationalOpExpr:
		c.expr(e.Lhs, d)
		c.expr(e.Rhs, d)
	case *ast.StringConcatOpExpr:
		c.expr(e.Lhs, d)
		c.expr(e.Rhs, d)
	case *ast.ArithmeticOpExpr:
		c.expr(e.Lhs, d)
		c.expr(e.Rhs, d)
	case *ast.UnaryMinusOpExpr:
		c.expr(e.Expr, d)
	case *ast.UnaryNotOpExpr:
		c.expr(e.Expr, d)
	case *ast.UnaryLenOpExpr:
		c.expr(e.Expr, d)
	case *ast.FunctionExpr:
		c.function(e.Stmts, d)
	}
}
