package importer

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// sharedDir locates ../shared from the repository root.
func sharedDir(t testing.TB) string {
	d, _ := filepath.Abs("../../shared")
	if _, err := os.Stat(d); err != nil {
		t.Skip("../shared not present")
	}
	return d
}

// onnxFiles lists .onnx files under dir (sorted, as WalkDir visits).
func onnxFiles(t testing.TB, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".onnx") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestLoadSharedModels(t *testing.T) {
	files := onnxFiles(t, filepath.Join(sharedDir(t), "models"))
	if len(files) < 50 {
		t.Fatalf("found only %d models", len(files))
	}
	for _, p := range files {
		m, err := Load(p, Options{})
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if err := ir.Verify(m); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		m.Close()
	}
}

// TestRoundTrip exports every shared model and the node tests and
// re-imports them: the graph must come back the same.
func TestRoundTrip(t *testing.T) {
	sh := sharedDir(t)
	files := onnxFiles(t, filepath.Join(sh, "models"))
	files = append(files, onnxFiles(t, filepath.Join(sh, "onnx-node-tests", "light"))...)
	nodeTests := onnxFiles(t, filepath.Join(sh, "onnx-node-tests", "node"))
	step := 1
	if testing.Short() {
		step = 7
	}
	for i := 0; i < len(nodeTests); i += step {
		files = append(files, nodeTests[i])
	}
	for _, p := range files {
		a, err := Load(p, Options{})
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		var buf bytes.Buffer
		if err := Export(a, &buf); err != nil {
			t.Errorf("%s: export: %v", p, err)
			a.Close()
			continue
		}
		b, err := Decode(buf.Bytes(), Options{})
		if err != nil {
			t.Errorf("%s: re-import: %v", p, err)
		} else if err := equalModels(a, b); err != nil {
			t.Errorf("%s: round trip: %v", p, err)
		} else {
			// A second export is byte-identical (determinism).
			var buf2 bytes.Buffer
			if err := Export(b, &buf2); err != nil || !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
				t.Errorf("%s: second export differs (err %v)", p, err)
			}
		}
		a.Close()
	}
}

// TestZeroCopy checks that initializer data is a view of the mapped file
// at the recorded offset, not a copy.
func TestZeroCopy(t *testing.T) {
	p := filepath.Join(sharedDir(t), "models")
	var checked int
	for _, f := range onnxFiles(t, p) {
		m, err := Load(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		file, _ := os.ReadFile(f)
		for _, v := range m.Graph.Initializers {
			c := v.Const
			if len(c.Raw) < 64 || c.Loc.External {
				continue
			}
			if c.Loc.File != f || !bytes.Equal(file[c.Loc.Offset:c.Loc.Offset+c.Loc.Length], c.Raw) {
				t.Errorf("%s: %s: location %+v does not hold its bytes", f, v.Name, c.Loc)
			}
			checked++
		}
		m.Close()
	}
	if checked == 0 {
		t.Fatal("no raw initializers checked")
	}
}

func TestExternalDataShared(t *testing.T) {
	found := 0
	for _, f := range onnxFiles(t, filepath.Join(sharedDir(t), "models")) {
		m, err := Load(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range m.Graph.Initializers {
			if v.Const.Loc.External {
				found++
				if !strings.HasPrefix(v.Const.Loc.File, filepath.Dir(f)) && !strings.Contains(v.Const.Loc.File, "shared") {
					t.Errorf("%s: external file %s outside the folder", f, v.Const.Loc.File)
				}
			}
		}
		m.Close()
	}
	if found == 0 {
		t.Fatal("no external-data initializers in the shared models (MANIFEST lists two)")
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty.onnx", nil, "empty file"},
		{"text.onnx", []byte("hello, this is not a model\n"), ""},
		{"nograph.onnx", []byte{0x08, 0x07}, "no graph"},
	} {
		_, err := Load(write(tc.name, tc.data), Options{})
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), tc.name) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q: want one line naming the file and %q", tc.name, err, tc.want)
		}
		var ie *Error
		if !errors.As(err, &ie) {
			t.Errorf("%s: error is %T, want *importer.Error", tc.name, err)
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.onnx"), Options{}); err == nil || !strings.Contains(err.Error(), "missing.onnx") {
		t.Errorf("missing file: %v", err)
	}
}

// TestInfoRoundTrip: a node's overload, doc string and metadata and a
// graph input's and output's doc string and metadata (ir.NodeInfo,
// ir.ValueInfo) survive export and re-import; nodes and values without
// them carry no Info.
func TestInfoRoundTrip(t *testing.T) {
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.TensorType(ir.Float32, ir.ShapeOf(2, 3)))
	x.SetInfo("the input", []ir.StringPair{{Key: "unit", Value: "m"}})
	relu := g.AddNode("Relu", "", "relu", []*ir.Value{x}, []string{"y"})
	relu.SetInfo("", "rectifies", []ir.StringPair{{Key: "k", Value: "v"}, {Key: "k2", Value: "v2"}})
	neg := g.AddNode("Neg", "", "neg", []*ir.Value{relu.Outputs[0]}, []string{"z"})
	g.Outputs = []*ir.Value{neg.Outputs[0]}
	neg.Outputs[0].SetInfo("the output", nil)
	m := &ir.Model{IRVersion: 8, Opsets: []ir.OpsetID{{Domain: "", Version: 17}}, Graph: g}
	var buf bytes.Buffer
	if err := Export(m, &buf); err != nil {
		t.Fatal(err)
	}
	b, err := Decode(buf.Bytes(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := equalModels(m, b); err != nil {
		t.Fatal(err)
	}
	bg := b.Graph
	if bg.Nodes[0].Doc() != "rectifies" || len(bg.Nodes[0].Metadata()) != 2 || bg.Inputs[0].Doc() != "the input" || bg.Outputs[0].Doc() != "the output" {
		t.Errorf("infos lost: node %+v, input %+v, output %+v", bg.Nodes[0].Info, bg.Inputs[0].Info, bg.Outputs[0].Info)
	}
	if bg.Nodes[1].Info != nil || bg.Nodes[0].Outputs[0].Info != nil {
		t.Errorf("a node or value without doc or metadata has an Info: %+v, %+v", bg.Nodes[1].Info, bg.Nodes[0].Outputs[0].Info)
	}
}
