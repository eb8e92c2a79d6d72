package calibrate

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSharedFamiliesComplete: every shared model has exactly one family, and
// every listed model exists.
func TestSharedFamiliesComplete(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "models")
	if _, err := os.Stat(root); err != nil {
		t.Skip("../shared/models absent")
	}
	seen := map[string]string{}
	for _, f := range SharedFamilies {
		for _, m := range f.Models {
			if prev, dup := seen[m]; dup {
				t.Errorf("%s is in %s and %s", m, prev, f.Name)
			}
			seen[m] = f.Name
		}
	}
	found := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".onnx") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		found++
		if _, ok := seen[rel]; !ok {
			t.Errorf("%s has no family in SharedFamilies", rel)
		}
		return nil
	})
	if found != len(seen) {
		t.Errorf("%d shared models, %d listed", found, len(seen))
	}
}

func TestModelFamily(t *testing.T) {
	for _, c := range []struct {
		model, family string
		shared        bool
	}{
		{"rnn/silero_vad_v5.onnx", "silero_vad", true},
		{"/x/shared/models/cnn/mnist-external/mnist.onnx", "mnist", true},
		{"/tmp/heldout/wakeword/alexa_v0.1.onnx", "wakeword", false},
		{"ocr_det.onnx", "ocr_det", false},
		{"mnist.onnx", "mnist", false}, // a file named like a shared one is not one
	} {
		f, s := ModelFamily(c.model)
		if f != c.family || s != c.shared {
			t.Errorf("ModelFamily(%q) = %q, %v; want %q, %v", c.model, f, s, c.family, c.shared)
		}
	}
	a, b := FamilyFolds()
	if len(a)+len(b) != len(SharedFamilies) || len(a) == 0 || len(b) == 0 {
		t.Errorf("folds %d + %d of %d families", len(a), len(b), len(SharedFamilies))
	}
	for n := range a {
		if b[n] {
			t.Errorf("family %s in both folds", n)
		}
	}
}
