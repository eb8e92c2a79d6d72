package pbwire

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// FuzzWire checks the primitives against protowire's, byte for byte and
// error for error (the sign of the length: protowire's codes are not
// part of the contract).
func FuzzWire(f *testing.F) {
	for _, s := range [][]byte{{}, {0x08, 0x96, 0x01}, {0x0b, 0x08, 0x01, 0x0c}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, {0x12, 0x03, 'a', 'b'}, {0x0c}, {0x0e}, {0x00}} {
		f.Add(s, uint64(len(s))*0x9e3779b97f4a7c15)
	}
	f.Fuzz(func(t *testing.T, b []byte, v uint64) {
		if got, want := AppendVarint(nil, v), protowire.AppendVarint(nil, v); !bytes.Equal(got, want) {
			t.Fatalf("AppendVarint(%d) = %x, want %x", v, got, want)
		}
		if SizeVarint(v) != protowire.SizeVarint(v) {
			t.Fatalf("SizeVarint(%d)", v)
		}
		if got, want := AppendFixed64(AppendFixed32(nil, uint32(v)), v), protowire.AppendFixed64(protowire.AppendFixed32(nil, uint32(v)), v); !bytes.Equal(got, want) {
			t.Fatalf("AppendFixed %x, want %x", got, want)
		}
		num, typ := Number(v>>35), Type(v&7)
		if got, want := AppendTag(nil, num, typ), protowire.AppendTag(nil, protowire.Number(num), protowire.Type(typ)); !bytes.Equal(got, want) {
			t.Fatalf("AppendTag(%d, %d) = %x, want %x", num, typ, got, want)
		}
		if got, want := AppendString(AppendBytes(nil, b), string(b)), protowire.AppendString(protowire.AppendBytes(nil, b), string(b)); !bytes.Equal(got, want) {
			t.Fatal("AppendBytes/AppendString differ")
		}
		same := func(what string, n, m int) {
			t.Helper()
			if n != m && (n >= 0 || m >= 0) {
				t.Fatalf("%s of %x: length %d, protowire %d", what, b, n, m)
			}
		}
		v1, n := ConsumeVarint(b)
		v2, m := protowire.ConsumeVarint(b)
		same("ConsumeVarint", n, m)
		if n >= 0 && v1 != v2 {
			t.Fatalf("ConsumeVarint(%x) = %d, want %d", b, v1, v2)
		}
		n1, t1, n := ConsumeTag(b)
		n2, t2, m := protowire.ConsumeTag(b)
		same("ConsumeTag", n, m)
		if n >= 0 && (int32(n1) != int32(n2) || int8(t1) != int8(t2)) {
			t.Fatalf("ConsumeTag(%x) = %d/%d, want %d/%d", b, n1, t1, n2, t2)
		}
		f1, n := ConsumeFixed32(b)
		f2, m := protowire.ConsumeFixed32(b)
		same("ConsumeFixed32", n, m)
		if n >= 0 && f1 != f2 {
			t.Fatal("ConsumeFixed32")
		}
		g1, n := ConsumeFixed64(b)
		g2, m := protowire.ConsumeFixed64(b)
		same("ConsumeFixed64", n, m)
		if n >= 0 && g1 != g2 {
			t.Fatal("ConsumeFixed64")
		}
		p1, n := ConsumeBytes(b)
		p2, m := protowire.ConsumeBytes(b)
		same("ConsumeBytes", n, m)
		if n >= 0 && !bytes.Equal(p1, p2) {
			t.Fatal("ConsumeBytes")
		}
		if n1, t1, k := ConsumeTag(b); k >= 0 {
			same("ConsumeFieldValue", ConsumeFieldValue(n1, t1, b[k:]), protowire.ConsumeFieldValue(protowire.Number(n1), protowire.Type(t1), b[k:]))
		}
	})
}
