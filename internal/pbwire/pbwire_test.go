package pbwire

import (
	"bytes"
	"errors"
	"testing"
)

// TestEach walks one field of every wire type, in order, with the values
// and views they hold, then bytes cut short and an error from fn.
func TestEach(t *testing.T) {
	var b []byte
	b = AppendTag(b, 1, VarintType)
	b = AppendVarint(b, 300)
	b = AppendTag(b, 2, Fixed32Type)
	b = AppendFixed32(b, 7)
	b = AppendTag(b, 3, Fixed64Type)
	b = AppendFixed64(b, 1<<40)
	b = AppendTag(b, 4, BytesType)
	b = AppendBytes(b, []byte("abc"))
	b = AppendTag(b, 5, StartGroupType)
	body := len(b)
	b = AppendTag(b, 1, VarintType)
	b = AppendVarint(b, 9)
	b = AppendTag(b, 5, EndGroupType)
	group := append([]byte(nil), b[body:]...)

	var got []Field
	if err := Each(b, func(f Field) error { got = append(got, f); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []Field{
		{Num: 1, Typ: VarintType, U: 300},
		{Num: 2, Typ: Fixed32Type, U: 7},
		{Num: 3, Typ: Fixed64Type, U: 1 << 40},
		{Num: 4, Typ: BytesType, B: []byte("abc")},
		{Num: 5, Typ: StartGroupType, B: group},
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
	end := AppendTag(nil, 5, EndGroupType)
	if err := Each(end, func(Field) error { return nil }); !errors.Is(err, ErrTruncated) {
		t.Errorf("end group: err %v, want ErrTruncated", err)
	}
	stop := errors.New("stop")
	n = 0
	if err := Each(b, func(Field) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("fn's error: got %v after %d fields, want stop after 1", err, n)
	}
}
