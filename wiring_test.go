package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// maxCmdFuncLines is the longest a non-test function of cmd/ may be:
// a command is wiring (flags to options, one library call, one report
// call), and logic that needs more lives in the package below, tested
// there (issue 27).
const maxCmdFuncLines = 60

// cmdLongAllowed are the cmd/ functions that may be longer, each with
// its reason (none now); NewCmd* builders may be too (their length is
// the help text and the flag declarations). A listed function that is
// gone or has become short fails the test, so the list only shrinks.
var cmdLongAllowed = map[string]string{}

// tableVerb is a printf verb with a field width (%-14s, %6d, %7.1f): the
// column alignment of a table, which report's writers do.
var tableVerb = regexp.MustCompile(`%[-+ 0#]*[1-9][0-9]*(\.[0-9]+)?[sdfgevqt]`)

// cmdFuncs parses the non-test files of dir and calls fn with each
// function's key (file:Recv.Name) and declaration, and call with each
// call expression.
func cmdFuncs(t *testing.T, dir string, fn func(key string, lines int, d *ast.FuncDecl), call func(pos token.Position, c *ast.CallExpr)) {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if d, ok := decl.(*ast.FuncDecl); ok && d.Body != nil {
				n := fset.Position(d.End()).Line - fset.Position(d.Pos()).Line + 1
				fn(filepath.ToSlash(p)+":"+funcName(d), n, d)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				call(fset.Position(c.Pos()), c)
			}
			return true
		})
	}
}

// TestCmdIsWiring fails on a cmd/ function over maxCmdFuncLines lines
// that is neither a NewCmd* builder nor listed in cmdLongAllowed, on a
// listed one that is no longer long, and on a printf call in cmd/ whose
// format aligns columns (tables are report's).
func TestCmdIsWiring(t *testing.T) {
	checkCmdWiring(t, "cmd")
}

func checkCmdWiring(t *testing.T, dir string) {
	t.Helper()
	long := map[string]int{}
	cmdFuncs(t, dir, func(key string, n int, d *ast.FuncDecl) {
		if n > maxCmdFuncLines && !(d.Recv == nil && strings.HasPrefix(d.Name.Name, "NewCmd")) {
			long[key] = n
		}
	}, func(pos token.Position, c *ast.CallExpr) {
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok {
			return
		}
		if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "fmt" || !strings.Contains(sel.Sel.Name, "rintf") {
			return
		}
		for _, a := range c.Args {
			lit, ok := a.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && tableVerb.MatchString(s) {
				t.Errorf("%s: fmt.%s formats a table (%q): write it with a report type", pos, sel.Sel.Name, tableVerb.FindString(s))
			}
		}
	})
	var keys []string
	for k := range long {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := cmdLongAllowed[k]; !ok {
			t.Errorf("%s is %d lines (at most %d in cmd/: move its logic to the package below and test it there)", k, long[k], maxCmdFuncLines)
		}
	}
	for k := range cmdLongAllowed {
		if _, ok := long[k]; !ok {
			t.Errorf("%s is listed in cmdLongAllowed but is no longer over %d lines: remove it", k, maxCmdFuncLines)
		}
	}
}
