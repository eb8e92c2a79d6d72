package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sharedSeeds loads the shared models and the hostile cases, or skips.
func sharedSeeds(t *testing.T) []*seedModel {
	t.Helper()
	root := filepath.Join("..", "..", "..", "shared", "models")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no shared models at %s", root)
	}
	seeds, err := collectSeeds([]string{root, filepath.Join("..", "..", "testdata", "models")}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return seeds
}

// TestTreeRoundTrip: parsing and re-encoding a model changes no byte, so
// a variant differs from its seed only where a mutation acted.
func TestTreeRoundTrip(t *testing.T) {
	parsed := 0
	for _, s := range sharedSeeds(t) {
		if s.tree == nil {
			continue
		}
		parsed++
		if got := s.tree.encode(nil); !bytes.Equal(got, s.data) {
			t.Errorf("%s: re-encoded tree differs from the file (%d vs %d bytes)", s.name, len(got), len(s.data))
		}
		if got := s.tree.clone().encode(nil); !bytes.Equal(got, s.data) {
			t.Errorf("%s: clone differs from the file", s.name)
		}
	}
	if parsed < 60 {
		t.Errorf("only %d seed models parsed as trees, want every shared model", parsed)
	}
}

// TestVariantsDeterministic: a variant depends only on the sweep seed, its
// index and its seed model, and differs from the seed model.
func TestVariantsDeterministic(t *testing.T) {
	seeds := sharedSeeds(t)
	ops := opList(seeds)
	same := 0
	for i := 0; i < 200; i++ {
		s := seeds[i%len(seeds)]
		a, b := makeVariant(7, i, s, ops), makeVariant(7, i, s, ops)
		if !bytes.Equal(a.data, b.data) || strings.Join(a.log, "|") != strings.Join(b.log, "|") {
			t.Fatalf("variant %d of %s differs between two draws", i, s.name)
		}
		if len(a.kinds) == 0 {
			t.Errorf("variant %d of %s: no mutation applied", i, s.name)
		}
		if bytes.Equal(a.data, s.data) {
			same++
		}
		if c := makeVariant(8, i, s, ops); bytes.Equal(c.data, a.data) && len(a.data) > 0 {
			same++
		}
	}
	// A mutation can be a no-op (a field swapped with itself, a value set
	// to what it was); most must not be.
	if same > 20 {
		t.Errorf("%d of 400 variants equal their seed model or another seed's variant", same)
	}
}

// TestEveryMutatorApplies: each protobuf-aware mutation finds a site in
// some shared model and changes the encoding there.
func TestEveryMutatorApplies(t *testing.T) {
	seeds := sharedSeeds(t)
	ops := opList(seeds)
	for _, m := range mutators {
		changed := false
		for i, s := range seeds {
			if s.tree == nil || len(s.data) > 1<<20 {
				continue
			}
			c := &mctx{r: makeVariant(1, i, s, ops).r, root: s.tree.clone(), ops: ops}
			if m.apply(c) && !bytes.Equal(c.root.encode(nil), s.data) {
				if len(c.log) != 1 {
					t.Errorf("%s logged %d entries, want 1", m.name, len(c.log))
				}
				changed = true
				break
			}
		}
		if !changed {
			t.Errorf("%s changed no shared model", m.name)
		}
	}
}

// TestSchedule: every seed gets a variant when n allows, the counts follow
// the weights, and the total is n.
func TestSchedule(t *testing.T) {
	seeds := []*seedModel{{weight: 1}, {weight: 1}, {weight: 0.05}, {weight: 0.5}}
	noShuffle := func(int, func(i, j int)) {}
	for _, tc := range []struct {
		n    int
		want []int
	}{
		{4, []int{1, 1, 1, 1}},
		{3, []int{1, 1, 0, 1}},
		{104, []int{40, 40, 3, 21}},
	} {
		got := make([]int, len(seeds))
		order := schedule(seeds, tc.n, noShuffle)
		for _, i := range order {
			got[i]++
		}
		if len(order) != tc.n || !slices.Equal(got, tc.want) {
			t.Errorf("n=%d: counts %v (total %d), want %v", tc.n, got, len(order), tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		exit       int
		stderr     string
		timeout    bool
		overMemory bool
		want       string
	}{
		{0, "", false, false, outOK},
		{0, "warning: node X: unknown operator\n", false, false, outOK},
		{1, "wolong: m.onnx: truncated\n", false, false, outError},
		{2, "warning: w\nwolong: --dim: no dim Q\n", false, false, outError},
		{1, "wolong: a\nwolong: b\n", false, false, outGarbled},
		{1, "", false, false, outGarbled},
		{1, "wolong: name \x1b[31mred\n", false, false, outGarbled},
		{1, "wolong: bad \xff\n", false, false, outGarbled},
		{4, "wolong: x\n", false, false, outGarbled},
		{3, "wolong: internal error: index out of range\n", false, false, outPanic},
		{2, "panic: runtime error\n\ngoroutine 1 [running]:\n", false, false, outPanic},
		{2, "fatal error: runtime: out of memory\n", false, false, outPanic},
		{-1, "", false, false, outPanic},
		{-1, "", true, false, outTimeout},
		{-1, "", false, true, outMemory},
		{0, "", false, true, outMemory},
	} {
		if got := classify(tc.exit, tc.stderr, tc.timeout, tc.overMemory); got != tc.want {
			t.Errorf("classify(%d, %q, %v, %v) = %s, want %s", tc.exit, tc.stderr, tc.timeout, tc.overMemory, got, tc.want)
		}
	}
}
