package modelgen

import (
	"bytes"
	"io"
	"testing"
)

// TestTiledWeight checks that a tiled weight's bytes, read at any offset
// and length, are its tile repeated, and that reads past the end say EOF.
func TestTiledWeight(t *testing.T) {
	b := New("tiled", suiteOpset)
	tt := b.TiledWeight("w", 300, 1000).Const // 1.2 MB: 4.6 tiles
	if tt == nil || tt.Raw != nil || tt.Src == nil || tt.Src.Size() != 4*300*1000 {
		t.Fatalf("tiled weight: raw %d bytes, source %v", len(tt.Raw), tt.Src)
	}
	all := make([]byte, tt.Src.Size())
	if n, err := tt.Src.ReadAt(all, 0); n != len(all) || err != nil {
		t.Fatalf("whole read: %d bytes, %v", n, err)
	}
	tile := all[:4*tileElems]
	for off := 0; off < len(all); off += len(tile) {
		if !bytes.Equal(all[off:min(off+len(tile), len(all))], tile[:min(len(tile), len(all)-off)]) {
			t.Fatalf("bytes at %d are not the tile's", off)
		}
	}
	p := make([]byte, 777)
	if n, err := tt.Src.ReadAt(p, 262141); n != len(p) || err != nil || !bytes.Equal(p, all[262141:262141+777]) {
		t.Errorf("read across a tile's end: %d bytes, %v", n, err)
	}
	if n, err := tt.Src.ReadAt(p, int64(len(all))-10); n != 10 || err != io.EOF {
		t.Errorf("read past the end: %d bytes, %v; want 10, EOF", n, err)
	}
}
