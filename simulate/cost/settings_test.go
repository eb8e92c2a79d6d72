package cost

import (
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/ir"
	"github.com/wolong-dev/wolong/simulate/hw"
)

// TestSettingsNames: the assumptions name no caller setting unless the
// caller names its settings (a command: its flags).
func TestSettingsNames(t *testing.T) {
	h, err := hw.Preset("h100")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{TF32: true, Trip: 7, DType: ir.Float16}
	plain := strings.Join(New(h, nil, opt).Assumptions(), "\n")
	if strings.Contains(plain, "--") || !strings.Contains(plain, "loops without a static trip count run 7 times\n") && !strings.HasSuffix(plain, "run 7 times") {
		t.Errorf("without settings' names:\n%s", plain)
	}
	opt.Settings = Settings{TF32: "--tf32", Trip: "--trip", DType: "--dtype"}
	named := strings.Join(New(h, nil, opt).Assumptions(), "\n")
	for _, want := range []string{"costed as float16 (--dtype)", "TF32 tensor cores (--tf32)", "run 7 times (--trip)"} {
		if !strings.Contains(named, want) {
			t.Errorf("with settings' names: no %q in\n%s", want, named)
		}
	}
}
