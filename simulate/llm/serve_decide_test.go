package llm

import (
	"math"
	"testing"
)

func TestMemoryOverflowing(t *testing.T) {
	for _, tc := range []struct {
		m    Memory
		want string
	}{
		{Memory{WeightsGB: 70, CommBuffersGB: 5, RuntimeGB: 6, CapacityGB: 80}, "the weights"},
		{Memory{WeightsGB: 40, ActivationsGB: 30, KVCacheGB: 20, CapacityGB: 80}, "the prefill's working set"},
		{Memory{WeightsGB: 40, ActivationsGB: 10, KVCacheGB: 50, CapacityGB: 80}, "the KV cache"},
	} {
		if got := tc.m.Overflowing(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.m, got, tc.want)
		}
	}
}

func TestServeLoadNote(t *testing.T) {
	for _, tc := range []struct {
		l    ServeLoad
		want string
	}{
		{ServeLoad{Workload: make([]WorkloadRequest, 3), Rate: 2}, "--workload: 3 requests as listed"},
		{ServeLoad{}, "--rate max: every request arrives at once (the offline / max-load scenario trtllm-bench and MLPerf Offline measure)"},
		{ServeLoad{Rate: 2.5, Seed: 7}, "--rate 2.5: Poisson arrivals (seed 7)"},
	} {
		if got := tc.l.Note(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.l, got, tc.want)
		}
	}
}

func TestOverlapTP(t *testing.T) {
	fw, err := FrameworkPreset("megatron-core")
	if err != nil {
		t.Fatal(err)
	}
	before := *fw
	fw.OverlapTP()
	if fw.TPOverlap != TPOverlapDeployed || before.TPOverlap == TPOverlapDeployed {
		t.Errorf("TPOverlap %v (before %v), want %v", fw.TPOverlap, before.TPOverlap, TPOverlapDeployed)
	}
	if again, _ := FrameworkPreset("megatron-core"); again.TPOverlap == TPOverlapDeployed {
		t.Error("OverlapTP changed the preset itself")
	}
}

func TestServeLoadValidate(t *testing.T) {
	for _, tc := range []struct {
		l    ServeLoad
		want string
	}{
		{ServeLoad{}, ""},
		{ServeLoad{Requests: 1000, BlockSize: 16, KVFraction: 0.9}, ""},
		{ServeLoad{BlockSize: -1}, "block-size -1: want 1..16777216"},
		{ServeLoad{MaxTokens: MaxServeCount + 1}, "max-tokens 16777217: want 1..16777216"},
		{ServeLoad{Requests: MaxRequests + 1}, "requests 1048577: want 1..1048576"},
		{ServeLoad{KVFraction: 1.5}, "kv-fraction 1.5: want 0 < f <= 1"},
		{ServeLoad{KVFraction: math.NaN()}, "kv-fraction NaN: want 0 < f <= 1"},
	} {
		err := tc.l.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.l, got, tc.want)
		}
	}
}

func TestDefaultFramework(t *testing.T) {
	if n, note := DefaultFramework(3, true); n != "fsdp" || note == "" {
		t.Errorf("zero 3 pipelined: %q %q", n, note)
	}
	for _, tc := range []struct {
		zero      int
		pipelined bool
	}{{1, true}, {3, false}, {0, false}} {
		if n, note := DefaultFramework(tc.zero, tc.pipelined); n != "megatron-core" || note != "" {
			t.Errorf("%+v: %q %q", tc, n, note)
		}
	}
	if _, err := FrameworkPreset("fsdp"); err != nil {
		t.Error(err)
	}
}
