package hostile

import (
	"os"
	"testing"
)

// TestCasesWrite writes every case (into $HOSTILE_DIR when set, to look at
// them by hand) and checks each produces a file.
func TestCasesWrite(t *testing.T) {
	dir := os.Getenv("HOSTILE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	seen := map[string]bool{}
	for _, c := range Cases() {
		if seen[c.Name] {
			t.Errorf("duplicate case %s", c.Name)
		}
		seen[c.Name] = true
		p, err := c.Write(dir)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}
