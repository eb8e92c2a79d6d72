package report

import (
	"reflect"
	"testing"

	"github.com/wolong-dev/wolong/importer"
)

func TestExternalNotes(t *testing.T) {
	if n := ExternalNotes(&importer.Written{}); n != nil {
		t.Errorf("no external data: %q", n)
	}
	got := ExternalNotes(&importer.Written{Copied: 2, CopiedBytes: 3 << 20, DataFile: "out.onnx.data", Referenced: 1, ReferencedBytes: 1024, ReferencedFiles: []string{"w.bin"}})
	want := []string{
		"--emit-onnx: 2 weight(s), " + Bytes(3<<20) + ", written as external data to out.onnx.data",
		"--emit-onnx: 1 weight(s), " + Bytes(1024) + ", left in w.bin and referenced from the written model (keep it beside the model)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}
