package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is the longest a non-test function may be, counted from
// its func line to its closing brace.
const maxFuncLines = 150

// longFuncAllowed names the functions that may be longer: registration
// tables, whose length is one line per entry rather than logic. A key is
// the file's path from the repository root, then the function's name
// (Recv.Name for a method).
var longFuncAllowed = map[string]bool{
	// eval's element-wise kernels: one register call per op, each with
	// its scalar function inline
	"eval/elementwise.go:registerElementwise": true,
}

// longFuncs maps every function over maxFuncLines lines in the non-test
// Go files below root (testdata and hidden folders left out), keyed as
// longFuncAllowed, to its length in lines.
func longFuncs(t *testing.T, root string) map[string]int {
	t.Helper()
	found := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > maxFuncLines {
				found[filepath.ToSlash(rel)+":"+funcName(fn)] = n
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// funcName is fn's name, Recv.Name for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	if ix, ok := typ.(*ast.IndexListExpr); ok {
		typ = ix.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// TestNoLongFunctions fails on a non-test function over maxFuncLines
// lines that is not a listed registration table, and on a listed one
// that is gone or has become short (so the list stays honest).
func TestNoLongFunctions(t *testing.T) {
	found := longFuncs(t, ".")
	var names []string
	for k := range found {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !longFuncAllowed[k] {
			t.Errorf("%s is %d lines (at most %d; split it, or list it in longFuncAllowed if it is a registration table)", k, found[k], maxFuncLines)
		}
	}
	for k := range longFuncAllowed {
		if _, ok := found[k]; !ok {
			t.Errorf("%s is listed in longFuncAllowed but is no longer over %d lines: remove it", k, maxFuncLines)
		}
	}
}
