package report

import (
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/optimize"
)

func TestUnifiedDiff(t *testing.T) {
	for _, tc := range []struct {
		name, a, b, want string
	}{
		{"equal", "x\ny\n", "x\ny\n", ""},
		{"one change in the middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"insert at start", "b\nc\n", "a\nb\nc\n", "--- a\n+++ b\n@@ -1,2 +1,3 @@\n+a\n b\n c\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "x\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ny\n",
			"--- a\n+++ b\n@@ -1,4 +1,4 @@\n-1\n+x\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+y\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if have := UnifiedDiff(tc.a, tc.b, "a", "b"); have != tc.want {
				t.Errorf("have\n%s\nwant\n%s", have, tc.want)
			}
		})
	}
}

func TestRewriteLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    optimize.Rewrite
		want string
	}{
		{"fusion", optimize.Rewrite{Before: []string{"Conv_3", "Relu_4"}, After: []string{"fused_conv_0"}, Sep: "+", Remark: "r"},
			"Conv_3 + Relu_4 -> fused_conv_0  (r)"},
		{"batching", optimize.Rewrite{Before: []string{"MatMul_q", "MatMul_k", "MatMul_v"}, After: []string{"batched_matmul_1", "split_2"}, Sep: "||"},
			"MatMul_q || MatMul_k || MatMul_v -> batched_matmul_1, split_2"},
		{"removal", optimize.Rewrite{Before: []string{"Identity_0"}, Remark: "Identity"}, "Identity_0 -> (removed)  (Identity)"},
		{"long list elided", optimize.Rewrite{Before: strings.Split("a b c d e f g h i j", " "), After: []string{"x"}, Sep: "||"},
			"a || b || c || d || e || f || ... (5 more) || j -> x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if have := RewriteLine(tc.r); have != tc.want {
				t.Errorf("have %q, want %q", have, tc.want)
			}
		})
	}
}
