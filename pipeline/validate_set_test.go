package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestValidateSet: every latency record of the folder is a row with its
// measured time and what Predict said of its model; other JSON files are
// skipped, a folder of none has no rows, a CPU other than the one the
// hardware was fitted on is listed, and a record whose cache probe saw no
// quiet pass among those pooled is marked.
func TestValidateSet(t *testing.T) {
	src := filepath.Join("..", "testdata", "measured", "cpu")
	files, err := LatencyFiles(src)
	if err != nil || len(files) < 2 {
		t.Fatalf("%d records in %s (%v)", len(files), src, err)
	}
	dir := t.TempDir()
	for i, f := range files[:2] {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 { // the harness's cache probe saw no quiet pass pooled
			b = []byte(strings.Replace(string(b), "{", `{"cache_probe_kb": 2048, "quiet_passes": 0, "fast_quiet_passes": 0, `, 1))
		}
		os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "other.json"), []byte(`{"x": 1}`), 0o644)
	h, err := hw.Preset("cpu-1t")
	if err != nil {
		t.Fatal(err)
	}
	hf := *h
	hf.Fitted = &hw.Fitted{CPU: "a CPU no record names"}
	var asked []string
	res, err := ValidateSet(SetOptions{Dir: dir, HW: &hf, Predict: func(model string, lat *Latency) (float64, error) {
		asked = append(asked, model)
		return 2 * lat.TargetUs() / 1e3, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 3 || len(res.Rows) != 2 || len(asked) != 2 {
		t.Fatalf("files %d, rows %d, predicted %q: want 3 files, 2 rows", res.Files, len(res.Rows), asked)
	}
	for _, r := range res.Rows {
		if r.PredictedMs != 2*r.MeasuredMs || r.MeasuredMs <= 0 || !strings.HasSuffix(r.Record, ".json") || r.Family == "" {
			t.Errorf("row %+v", r)
		}
	}
	if res.Rows[0].CacheShared || !res.Rows[1].CacheShared {
		t.Errorf("cache shared %v, %v: want the second record's (its probe saw no quiet pass) only", res.Rows[0].CacheShared, res.Rows[1].CacheShared)
	}
	if len(res.OtherHosts) == 0 {
		t.Errorf("no other host listed against %q", hf.Fitted.CPU)
	}
	res, err = ValidateSet(SetOptions{Dir: t.TempDir(), HW: h})
	if err != nil || res.Files != 0 || len(res.Rows) != 0 {
		t.Errorf("empty folder: %+v, %v", res, err)
	}
}
