package script

import "github.com/yuin/gopher-lua/ast"

// astWalker visits every expression of a chunk, innermost first, and
// replaces each by what expr returns. It runs after checkChunk, which
// bounds the nesting and so the walker's recursion.
type astWalker struct {
	expr func(ast.Expr) ast.Expr
}

func (w *astWalker) block(stmts []ast.Stmt) {
	for _, s := range stmts {
		w.stmt(s)
	}
}

func (w *astWalker) exprs(es []ast.Expr) {
	for i := range es {
		es[i] = w.walk(es[i])
	}
}

func (w *astWalker) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		w.exprs(s.Lhs)
		w.exprs(s.Rhs)
	case *ast.LocalAssignStmt:
		w.exprs(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = w.walk(s.Expr)
	case *ast.DoBlockStmt:
		w.block(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = w.walk(s.Condition)
		w.block(s.Stmts)
	case *ast.RepeatStmt:
		w.block(s.Stmts)
		s.Condition = w.walk(s.Condition)
	case *ast.IfStmt:
		s.Condition = w.walk(s.Condition)
		w.block(s.Then)
		w.block(s.Else)
	case *ast.NumberForStmt:
		s.Init, s.Limit, s.Step = w.walk(s.Init), w.walk(s.Limit), w.walk(s.Step)
		w.block(s.Stmts)
	case *ast.GenericForStmt:
		w.exprs(s.Exprs)
		w.block(s.Stmts)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			s.Name.Func, s.Name.Receiver = w.walk(s.Name.Func), w.walk(s.Name.Receiver)
		}
		w.block(s.Func.Stmts)
	case *ast.ReturnStmt:
		w.exprs(s.Exprs)
	}
}

func (w *astWalker) walk(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case nil:
		return nil
	case *ast.AttrGetExpr:
		e.Object, e.Key = w.walk(e.Object), w.walk(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			f.Key, f.Value = w.walk(f.Key), w.walk(f.Value)
		}
	case *ast.FuncCallExpr:
		e.Func, e.Receiver = w.walk(e.Func), w.walk(e.Receiver)
		w.exprs(e.Args)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = w.walk(e.Lhs), w.walk(e.Rhs)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = w.walk(e.Lhs), w.walk(e.Rhs)
	case *ast.StringConcatOpExpr:
		e.Lhs, e.Rhs = w.walk(e.Lhs), w.walk(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = w.walk(e.Lhs), w.walk(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		e.Expr = w.walk(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = w.walk(e.Expr)
	case *ast.UnaryLenOpExpr:
		e.Expr = w.walk(e.Expr)
	case *ast.FunctionExpr:
		w.block(e.Stmts)
	}
	return w.expr(e)
}
