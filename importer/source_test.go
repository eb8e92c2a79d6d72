package importer

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestSmallReads: reads of up to smallRead bytes through Sources over one
// file, at random offsets and in random order (the cached block missing
// and hitting), near the end and past it, give the file's bytes.
func TestSmallReads(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	data := make([]byte, 3*blockSize+123)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	path := filepath.Join(t.TempDir(), "w.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := mapFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ms mappings
	ms.add(m)
	defer ms.Close()
	for i := 0; i < 2000; i++ {
		off := int64(r.IntN(len(data)))
		n := int64(1 + r.IntN(min(len(data)-int(off), 300)))
		s := &fileSource{m: m, off: off, n: n}
		p := make([]byte, 1+r.IntN(smallRead))
		at := int64(r.IntN(int(n)))
		k, err := s.ReadAt(p, at)
		want := data[off+at : off+min(n, at+int64(len(p)))]
		if k != len(want) || !bytes.Equal(p[:k], want) {
			t.Fatalf("read %d at %d of [%d, +%d): %d bytes, want %d", len(p), at, off, n, k, len(want))
		}
		if (err == io.EOF) != (at+int64(len(p)) > n) || err != nil && err != io.EOF {
			t.Fatalf("read %d at %d of %d bytes: error %v", len(p), at, n, err)
		}
	}
}
