package llm

import (
	"testing"

	"github.com/wolong-dev/wolong/ir"
)

// BenchmarkSearchServe is the serving search over a 64-GPU pool (the
// issue's target: <= 10 s).
func BenchmarkSearchServe(b *testing.B) {
	l70, _ := TransformerPreset("llama3-70b")
	c := serveCluster(b, "h100", 8, 8)
	for i := 0; i < b.N; i++ {
		if _, err := SearchServe(l70, c, ServeOptions{Prompt: 1024, Output: 256, DType: ir.Float8E4M3FN, Load: &ServeLoad{Rate: 200, SLO: SLO{TTFTMs: 1000, TPOTMs: 60}}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServeOffline is one max-load run of 3,000 requests (an anchor
// row's size).
func BenchmarkServeOffline(b *testing.B) {
	l8, _ := TransformerPreset("llama3-8b")
	c := serveCluster(b, "h100", 1, 1)
	for i := 0; i < b.N; i++ {
		if _, err := SimulateServe(l8, c, ServeOptions{Prompt: 1000, Output: 1000, DType: ir.Float8E4M3FN, Load: &ServeLoad{Requests: 3000}}); err != nil {
			b.Fatal(err)
		}
	}
}
