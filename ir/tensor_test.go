package ir

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// countingReader is a Source that counts the bytes read from it.
type countingReader struct {
	*bytes.Reader
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.Reader.ReadAt(p, off)
	c.n += int64(k)
	return k, err
}

// TestTensorSource checks that a tensor whose data only a Source holds
// reads like one with Raw data, that the readers refuse to pull more than
// their limit, and that nothing is read until a value is asked for.
func TestTensorSource(t *testing.T) {
	raw := make([]byte, 4*6)
	for i := range 6 {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(i)-2.5))
	}
	src := &countingReader{Reader: bytes.NewReader(raw)}
	lazy := &Tensor{Name: "w", DType: Float32, Dims: []int64{2, 3}, Src: src}
	eager := &Tensor{Name: "w", DType: Float32, Dims: []int64{2, 3}, Raw: raw}
	for _, tc := range []struct {
		name string
		t    *Tensor
	}{{"src", lazy}, {"raw", eager}} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.t.CheckData(); err != nil {
				t.Fatal(err)
			}
			if !tc.t.HasPacked() || tc.t.PackedSize() != 24 {
				t.Errorf("HasPacked %v, PackedSize %d, want true, 24", tc.t.HasPacked(), tc.t.PackedSize())
			}
			v, err := tc.t.Float64Values(6)
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range v {
				if x != float64(i)-2.5 {
					t.Errorf("element %d: have %g, want %g", i, x, float64(i)-2.5)
				}
			}
			if _, err := tc.t.Float64Values(5); err == nil {
				t.Errorf("Float64Values(5) of 6 elements: no error")
			}
			r := tc.t.Reader()
			b := make([]byte, 8)
			if n, _ := r.ReadAt(b, 8); n != 8 || !bytes.Equal(b, raw[8:16]) {
				t.Errorf("Reader().ReadAt(8): have %x, want %x", b[:n], raw[8:16])
			}
		})
	}
	src.n = 0
	if _, err := lazy.Packed(23); err == nil || !strings.Contains(err.Error(), "exceed") {
		t.Errorf("Packed(23) of 24 bytes: have %v, want a limit error", err)
	}
	if src.n != 0 {
		t.Errorf("a refused Packed read %d bytes", src.n)
	}
	short := &Tensor{Name: "s", DType: Float32, Dims: []int64{7}, Src: bytes.NewReader(raw)}
	if err := short.CheckData(); err == nil {
		t.Errorf("CheckData: a 24-byte Source for 7 float32 passed")
	}
	if ((&Tensor{DType: Float32, Dims: []int64{1}}).SetFloats([]float32{1})).Reader() != nil {
		t.Errorf("Reader of a tensor with typed data: want nil")
	}
}

// TestCheckDataEveryTypedField: a tensor whose file fills two typed data
// fields passes only if both hold its elements (the readers pick a field
// by their own order: the fuzzer found uint64_data one short behind a
// full int32_data, and Float64Values read past its end).
func TestCheckDataEveryTypedField(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    *Tensor
		ok   bool
	}{
		{"one field", (&Tensor{DType: Int32, Dims: []int64{3}}).SetInt32s([]int32{1, 2, 3}), true},
		{"two full fields", (&Tensor{DType: Int32, Dims: []int64{3}}).SetInt32s([]int32{1, 2, 3}).SetUint64s([]uint64{1, 2, 3}), true},
		{"second short", (&Tensor{DType: Int32, Dims: []int64{3}}).SetInt32s([]int32{1, 2, 3}).SetUint64s([]uint64{1, 2}), false},
		{"second empty", (&Tensor{DType: Float32, Dims: []int64{2}}).SetInt32s([]int32{1, 2}).SetFloats([]float32{}), false},
	} {
		err := tc.t.CheckData()
		if (err == nil) != tc.ok {
			t.Errorf("%s: CheckData = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err == nil {
			if _, err := tc.t.Float64Values(16); err != nil {
				t.Errorf("%s: Float64Values: %v", tc.name, err)
			}
		}
	}
}
