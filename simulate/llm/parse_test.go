package llm

import (
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// TestParseNames runs the flag parsers built on parseName and llmDType on
// good spellings (any case, defaults) and bad ones, checking the value or
// the whole error line.
func TestParseNames(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func() (string, error)
		want string // value, or the error when wantErr
		err  bool
	}{
		{"recompute default", func() (string, error) { r, err := ParseRecompute(""); return string(r), err }, "none", false},
		{"recompute case", func() (string, error) { r, err := ParseRecompute("Selective"); return string(r), err }, "selective", false},
		{"recompute bad", func() (string, error) { r, err := ParseRecompute("half"); return string(r), err }, `unknown recompute "half" (want none, selective or full)`, true},
		{"dtype default", func() (string, error) { d, err := llmDType("serving", ir.Undefined); return d.String(), err }, "bfloat16", false},
		{"dtype kept", func() (string, error) { d, err := llmDType("serving", ir.Float16); return d.String(), err }, "float16", false},
		{"dtype bad", func() (string, error) { d, err := llmDType("training", ir.Float32); return d.String(), err }, "training dtype float32 (want bfloat16, float16 or float8e4m3fn)", true},
	} {
		got, err := c.run()
		if c.err {
			if err == nil || err.Error() != c.want {
				t.Errorf("%s: error %v, want %q", c.name, err, c.want)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}
