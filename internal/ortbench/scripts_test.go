package ortbench

import (
	"bytes"
	"strings"
	"testing"
)

// TestScriptData checks how the embedded scripts are written into a
// harness folder: a script that imports the input module names its hashed
// file, none keeps the repo spelling, and a hashed name follows the
// written bytes (so it changes with the module a script imports).
func TestScriptData(t *testing.T) {
	hashed := []byte("'./" + scriptName("inputs.mjs") + "'")
	for _, c := range []struct {
		name    string
		imports bool
	}{{"measure.mjs", true}, {"run.mjs", false}, {"inputs.mjs", false}} {
		data := scriptData(c.name)
		if bytes.Contains(data, []byte(sharedInputs)) {
			t.Errorf("%s: still imports %s", c.name, sharedInputs)
		}
		if got := bytes.Contains(data, hashed); got != c.imports {
			t.Errorf("%s: imports %s = %v, want %v", c.name, hashed, got, c.imports)
		}
		raw, _ := scripts.ReadFile("js/" + c.name)
		if c.imports == bytes.Equal(raw, data) {
			t.Errorf("%s: written bytes equal embedded = %v, want %v", c.name, !c.imports, c.imports)
		}
		if n := scriptName(c.name); !strings.HasPrefix(n, strings.TrimSuffix(c.name, ".mjs")+"-") {
			t.Errorf("%s: hashed name %s", c.name, n)
		}
	}
}
