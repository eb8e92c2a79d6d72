package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
