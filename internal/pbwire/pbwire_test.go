package pbwire

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestEach walks one field of every wire type, in order, with the values
// and views they hold, then bytes cut short and an error from fn.
func TestEach(t *testing.T) {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, 300)
	b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
	b = protowire.AppendFixed32(b, 7)
	b = protowire.AppendTag(b, 3, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, 1<<40)
	b = protowire.AppendTag(b, 4, protowire.BytesType)
	b = protowire.AppendBytes(b, []byte("abc"))
	b = protowire.AppendTag(b, 5, protowire.StartGroupType)
	body := len(b)
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, 9)
	b = protowire.AppendTag(b, 5, protowire.EndGroupType)
	group := append([]byte(nil), b[body:]...)

	var got []Field
	if err := Each(b, func(f Field) error { got = append(got, f); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []Field{
		{Num: 1, Typ: protowire.VarintType, U: 300},
		{Num: 2, Typ: protowire.Fixed32Type, U: 7},
		{Num: 3, Typ: protowire.Fixed64Type, U: 1 << 40},
		{Num: 4, Typ: protowire.BytesType, B: []byte("abc")},
		{Num: 5, Typ: protowire.StartGroupType, B: group},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d fields, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Num != w.Num || g.Typ != w.Typ || g.U != w.U || !bytes.Equal(g.B, w.B) {
			t.Errorf("field %d: got %+v, want %+v", i, g, w)
		}
	}

	// cut inside the bytes payload: the fields before it were passed
	n := 0
	if err := Each(b[:body-2], func(Field) error { n++; return nil }); !errors.Is(err, ErrTruncated) || n != 3 {
		t.Errorf("truncated: err %v after %d fields, want ErrTruncated after 3", err, n)
	}
	// a lone end-group tag is malformed
	end := protowire.AppendTag(nil, 5, protowire.EndGroupType)
	if err := Each(end, func(Field) error { return nil }); !errors.Is(err, ErrTruncated) {
		t.Errorf("end group: err %v, want ErrTruncated", err)
	}
	stop := errors.New("stop")
	n = 0
	if err := Each(b, func(Field) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("fn's error: got %v after %d fields, want stop after 1", err, n)
	}
}
