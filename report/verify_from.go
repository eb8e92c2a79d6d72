package report

// This file builds verify's report from pipeline's result, so that the
// command makes one call.

import "github.com/wolong-dev/wolong/pipeline"

// FromVerification is res as verify prints it.
func FromVerification(res *pipeline.Verification) *Verify {
	r := &Verify{Models: []string{res.Model}, Against: res.Against, Inputs: res.Inputs, RTol: res.Tolerance.RTol, ATol: res.Tolerance.ATol,
		OK: res.OK, Warnings: res.Warnings, Runtime: res.Runtime}
	for _, o := range res.Outputs {
		r.Outputs = append(r.Outputs, VerifyOutput{Name: o.Name, Type: o.Type, MaxAbsErr: o.MaxAbs, MaxRelErr: o.MaxRel,
			Mismatches: o.Mismatches, Elements: o.Elements, Problem: o.Problem, OK: o.OK()})
	}
	return r
}

// Verdict says whether v's outputs match: "all 3 outputs match", "1 of
// 3 outputs differs".
func (v *Verify) Verdict() string {
	bad := 0
	for _, o := range v.Outputs {
		if !o.OK {
			bad++
		}
	}
	return Verdict(bad, len(v.Outputs), "output")
}
