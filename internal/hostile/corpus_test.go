package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestWriteFuzzCorpus refreshes importer/testdata/fuzz/FuzzDecode with the
// hostile cases (run with WOLONG_WRITE_CORPUS=1), so the fuzzer starts
// from them and `go test ./importer` replays them on every run.
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("WOLONG_WRITE_CORPUS") == "" {
		t.Skip("set WOLONG_WRITE_CORPUS=1 to rewrite the fuzz corpus")
	}
	dir := filepath.Join("..", "..", "importer", "testdata", "fuzz", "FuzzDecode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, c := range Cases() {
		p, err := c.Write(tmp)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil || len(data) > 256<<10 {
			continue
		}
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(data)))
		if err := os.WriteFile(filepath.Join(dir, "hostile-"+c.Name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
