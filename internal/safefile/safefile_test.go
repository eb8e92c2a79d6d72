package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.onnx")
	os.WriteFile(in, []byte("model"), 0o644)
	link := filepath.Join(dir, "link.onnx")
	os.Symlink(in, link)
	out := filepath.Join(dir, "out.json")

	if err := Write(out, []string{in}, func(w io.Writer) error { _, err := io.WriteString(w, "ok"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "ok" {
		t.Fatalf("content %q", b)
	}
	for _, p := range []string{in, link, filepath.Join(dir, ".", "in.onnx")} {
		if err := Write(p, []string{in}, func(w io.Writer) error { return nil }); err == nil {
			t.Errorf("%s: overwrite of the input allowed", p)
		}
	}
	if b, _ := os.ReadFile(in); string(b) != "model" {
		t.Fatal("input changed")
	}
	// A failing writer leaves neither the file nor a temporary.
	fail := filepath.Join(dir, "fail.json")
	if err := Write(fail, nil, func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("boom") }); err == nil {
		t.Fatal("no error")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "in.onnx" && e.Name() != "link.onnx" && e.Name() != "out.json" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestBatch checks that a batch's files appear together at Commit or not
// at all, that Check refuses what Write would refuse before any work, and
// that no message names a temporary file.
func TestBatch(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.onnx")
	os.WriteFile(in, []byte("model"), 0o644)
	put := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	for _, tc := range []struct {
		path string
		want string
	}{
		{filepath.Join(dir, "missing", "x.json"), "folder " + filepath.Join(dir, "missing") + " does not exist"},
		{dir, "is a directory"},
		{in, "refusing to overwrite the input file"},
		{filepath.Join(in, "x.json"), "is not a folder"},
	} {
		err := NewBatch(in).Check(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("Check(%s) = %v, want %q", tc.path, err, tc.want)
		}
	}
	b := NewBatch(in)
	a, c := filepath.Join(dir, "a.json"), filepath.Join(dir, "c.json")
	if err := b.Check(a); err != nil {
		t.Fatal(err)
	}
	if err := b.Check(filepath.Join(dir, ".", "a.json")); err == nil || !strings.Contains(err.Error(), "written twice") {
		t.Errorf("the same output twice: %v", err)
	}
	if err := b.Write(a, nil, put("A")); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(c, nil, put("C")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); err == nil {
		t.Fatal("a staged file is visible before Commit")
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{a: "A", c: "C"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != want || st.Mode().Perm() != Mode {
			t.Errorf("%s: %q, mode %v; want %q, %v", p, b, st.Mode().Perm(), want, os.FileMode(Mode))
		}
	}
	// A failing writer after a staged file: nothing appears, nothing left.
	sub := filepath.Join(dir, "new", "deeper")
	b = NewBatch()
	if err := b.MkdirAll(sub); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(filepath.Join(sub, "one.pb"), nil, put("1")); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(filepath.Join(sub, "two.pb"), nil, func(io.Writer) error { return errors.New("boom") }); err == nil {
		t.Fatal("no error")
	}
	b.Abort()
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Error("Abort left the folders it created")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestWriteChecked: a failing check leaves the old file and no temporary;
// the check sees the finished content.
func TestWriteChecked(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.onnx")
	os.WriteFile(out, []byte("old"), 0o644)
	write := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	var seen string
	err := WriteChecked(out, nil, write, func(tmp string) error {
		b, _ := os.ReadFile(tmp)
		seen = string(b)
		return errors.New("bad model")
	})
	if err == nil || err.Error() != "bad model" {
		t.Fatalf("err %v, want the check's", err)
	}
	if seen != "new" {
		t.Errorf("check saw %q, want the written content", seen)
	}
	if b, _ := os.ReadFile(out); string(b) != "old" {
		t.Errorf("file replaced although the check failed: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %d entries", len(ents))
	}
	if err := WriteChecked(out, nil, write, func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "new" {
		t.Errorf("content %q after a passing check", b)
	}
}
