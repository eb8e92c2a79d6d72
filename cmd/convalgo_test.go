package cmd

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestConvAlgo: --conv-algo direct turns the GPU presets' Winograd off
// (longer device time, same FLOPs), winograd forces it, and a value it
// does not know is a usage error.
func TestConvAlgo(t *testing.T) {
	model := filepath.Join("..", "testdata", "models", "sample_cnn.onnx")
	busy := func(algo string) (ms, flops float64) {
		t.Helper()
		stdout, stderr, code := run("profile", model, "--hw", "v100", "--dim", "N=64", "--format", "json", "--conv-algo", algo)
		if code != 0 {
			t.Fatalf("--conv-algo %s: exit %d: %s", algo, code, stderr)
		}
		var v struct {
			DeviceBusyMs float64 `json:"device_busy_ms"`
			FLOPs        float64 `json:"flops"`
		}
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatal(err)
		}
		return v.DeviceBusyMs, v.FLOPs
	}
	auto, fa := busy("auto")
	direct, fd := busy("direct")
	wino, fw := busy("winograd")
	if !(direct > auto) || wino != auto {
		t.Errorf("device busy: auto %.4f ms, direct %.4f ms, winograd %.4f ms: want direct > auto = winograd on v100", auto, direct, wino)
	}
	if fa != fd || fa != fw {
		t.Errorf("FLOPs differ between algorithms: %g %g %g", fa, fd, fw)
	}
	if _, _, code := run("profile", model, "--conv-algo", "fft"); code != 2 {
		t.Errorf("--conv-algo fft: exit %d, want 2", code)
	}
}
