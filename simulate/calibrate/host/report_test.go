package host

import "testing"

func TestGroupErrors(t *testing.T) {
	ms := []ModelResult{
		{Name: "a", Group: "gemm", MeasuredUs: 100, PredictedUs: 110},
		{Name: "b", Group: "gemm", MeasuredUs: 100, PredictedUs: 70, HeldOut: true},
		{Name: "c", Group: "rnn", MeasuredUs: 100, PredictedUs: 100},
	}
	g := GroupErrors(ms)
	if len(g) != 2 || g[0].Group != "gemm" || g[0].N != 1 || g[0].NHeld != 1 || g[0].FitMAPE != 10 || g[0].HeldMAPE != 30 || g[1].FitMAPE != 0 {
		t.Errorf("%+v", g)
	}
	if Count(ms, true) != 1 || Count(ms, false) != 2 {
		t.Error("Count")
	}
}
