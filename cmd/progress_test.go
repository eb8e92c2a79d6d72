package cmd

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgress(t *testing.T) {
	var buf bytes.Buffer
	(&progress{w: &buf, on: false}).Printf("hidden %d", 1)
	var nilp *progress
	nilp.Printf("nil is silent")
	nilp.Done()
	if buf.Len() != 0 {
		t.Fatalf("progress printed while off: %q", buf.String())
	}
	p := &progress{w: &buf, on: true}
	p.Printf("importing %s", strings.Repeat("x", 200))
	p.Done()
	s := buf.String()
	if !strings.HasPrefix(s, "\r\x1b[Kimporting ") || !strings.HasSuffix(s, "\r\x1b[K") || strings.Count(s, "x") > 100 {
		t.Fatalf("progress output %q", s)
	}
	// Commands run through Main with a non-terminal stderr show none.
	_, errs, code := run("inspect", "../testdata/models/sample_cnn.onnx")
	if code != 0 || strings.Contains(errs, "\x1b[K") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}
