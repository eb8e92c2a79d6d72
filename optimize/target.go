package optimize

// This file names the runtimes an optimized model is written for.

import "fmt"

// Target is the runtime an optimized model is written for.
type Target int

const (
	// TargetONNX is standard ONNX for any runtime: fused groups stay fused
	// kernels, exported as model-local functions (ToONNX).
	TargetONNX Target = iota
	// TargetORT is ONNX Runtime 1.30's CPU execution provider: the ort
	// pass writes each fused group ORT has a fused operator for as that
	// operator and inlines the rest into their members, as ORT would
	// inline a function it has no kernel for, so the prediction is what
	// ORT runs.
	TargetORT
)

// ParseTarget reads "onnx" or "ort".
func ParseTarget(s string) (Target, error) {
	switch s {
	case "", "onnx":
		return TargetONNX, nil
	case "ort":
		return TargetORT, nil
	}
	return 0, fmt.Errorf("%q: want onnx or ort", s)
}

func (t Target) String() string {
	if t == TargetORT {
		return "ort"
	}
	return "onnx"
}
