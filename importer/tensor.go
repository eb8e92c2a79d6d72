package importer

// This file implements decoding of TensorProto and SparseTensorProto.

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"github.com/wolong-dev/wolong/ir"
)

// fileOffset returns the offset of view b within the mapped file, or -1
// when b does not lie inside it.
func (d *decoder) fileOffset(b []byte) int64 { return offsetIn(d.file, b) }

// offsetIn returns the offset of view b within data, or -1 when b does not
// lie inside it.
func offsetIn(data, b []byte) int64 {
	if len(b) == 0 || len(data) == 0 {
		return -1
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < start || p+uintptr(len(b)) > start+uintptr(len(data)) {
		return -1
	}
	return int64(p - start)
}

// tensor decodes a TensorProto. The raw data stays a view of the mapping.
func (d *decoder) tensor(b []byte) (*ir.Tensor, error) {
	t := &ir.Tensor{}
	var ext []ir.StringPair
	external := false
	var doc string
	var segment *[2]int64
	var md []ir.StringPair
	// the typed lists, set on t once at the end (each setter makes t's
	// lists anew)
	var floats []float32
	var int32s []int32
	var int64s []int64
	var float64s []float64
	var uint64s []uint64
	var strs [][]byte
	err := eachField(b, func(f field) error {
		var err error
		switch f.num {
		case tensorDims:
			t.Dims, err = appendInt64s(t.Dims, f)
		case tensorDataType:
			t.DType = ir.DType(int32(f.u))
		case tensorSegment:
			var seg [2]int64
			err = eachField(f.b, func(g field) error {
				switch g.num {
				case segmentBegin:
					seg[0] = int64(g.u)
				case segmentEnd:
					seg[1] = int64(g.u)
				}
				return nil
			})
			segment = &seg
		case tensorFloatData:
			floats, err = appendFloats(floats, f)
		case tensorInt32Data:
			int32s, err = appendVarints(int32s, f)
		case tensorStringData:
			strs = append(strs, f.b)
		case tensorInt64Data:
			int64s, err = appendInt64s(int64s, f)
		case tensorName:
			t.Name, err = f.str("tensor name")
		case tensorRawData:
			t.Raw = f.b
			if t.Raw == nil {
				t.Raw = []byte{}
			}
			if off := d.fileOffset(f.b); off >= 0 {
				t.Loc = ir.Location{File: d.path, Offset: off, Length: int64(len(f.b))}
				if s := d.self.source(f.b); s != nil {
					t.Src = s
				}
			}
		case tensorDoubleData:
			float64s, err = appendDoubles(float64s, f)
		case tensorUint64Data:
			uint64s, err = appendVarints(uint64s, f)
		case tensorDocString:
			doc = f.doc()
		case tensorExternalData:
			var kv ir.StringPair
			kv, err = d.entry(f.b)
			ext = append(ext, kv)
		case tensorDataLocation:
			external = f.u == 1
		case tensorMetadataProps:
			var kv ir.StringPair
			kv, err = d.entry(f.b)
			md = append(md, kv)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if floats != nil || int32s != nil || int64s != nil || float64s != nil || uint64s != nil || strs != nil {
		t.SetFloats(floats).SetInt32s(int32s).SetInt64s(int64s).SetFloat64s(float64s).SetUint64s(uint64s).SetStrings(strs)
	}
	t.SetInfo(doc, segment, md)
	if !t.DType.Valid() {
		return nil, fmt.Errorf("tensor %q: unknown data type %d", t.Name, int32(t.DType))
	}
	for _, dim := range t.Dims {
		if dim < 0 {
			return nil, fmt.Errorf("tensor %q: negative dimension in %v", t.Name, t.Dims)
		}
	}
	if _, ok := t.NumElements(); !ok {
		return nil, fmt.Errorf("tensor %q: dims %v overflow", t.Name, t.Dims)
	}
	if external {
		if err := d.external(t, ext); err != nil {
			return nil, err
		}
	}
	if err := t.CheckData(); err != nil {
		return nil, err
	}
	return t, nil
}

// external resolves external data: the location must be a relative path
// inside the model's folder; the file is mapped and the tensor views it.
func (d *decoder) external(t *ir.Tensor, kvs []ir.StringPair) error {
	var loc, checksum string
	offset, length := int64(0), int64(-1)
	for _, kv := range kvs {
		var err error
		switch kv.Key {
		case "location":
			loc = kv.Value
		case "offset":
			offset, err = strconv.ParseInt(kv.Value, 10, 64)
		case "length":
			length, err = strconv.ParseInt(kv.Value, 10, 64)
		case "checksum":
			checksum = kv.Value
		}
		if err != nil || offset < 0 || (kv.Key == "length" && length < 0) {
			return fmt.Errorf("tensor %q: bad external_data %s %q", t.Name, kv.Key, kv.Value)
		}
	}
	if loc == "" {
		return fmt.Errorf("tensor %q: external data without a location", t.Name)
	}
	if d.dir == "" {
		return fmt.Errorf("tensor %q: external data %q needs the model's folder (load from a file)", t.Name, loc)
	}
	path, err := confine(d.dir, loc)
	if tmp, ok := d.opt.Staged[loc]; ok {
		path, err = tmp, nil
	}
	if err != nil {
		return fmt.Errorf("tensor %q: %v", t.Name, err)
	}
	m, err := d.mapExternal(path)
	if err != nil {
		return fmt.Errorf("tensor %q: external data: %v", t.Name, err)
	}
	size := int64(len(m.data))
	if length < 0 {
		length = size - offset
	}
	if offset > size || length > size-offset {
		return fmt.Errorf("tensor %q: external data %q: offset %d + length %d past the end of the file (%d bytes)", t.Name, loc, offset, length, size)
	}
	t.Raw = m.data[offset : offset+length : offset+length]
	t.Loc = ir.ExternalLocation(path, offset, length, loc, checksum)
	t.Src = nil
	if s := m.source(t.Raw); s != nil {
		t.Src = s
	}
	return nil
}

// confine resolves loc against dir and refuses any path that leaves dir:
// absolute paths, ".." components, and symlinks pointing outside.
func confine(dir, loc string) (string, error) {
	if loc == "" || filepath.IsAbs(loc) || strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, `\`) || filepath.VolumeName(loc) != "" {
		return "", fmt.Errorf("external data location %q is not a relative path inside the model's folder", loc)
	}
	for _, part := range strings.FieldsFunc(loc, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", fmt.Errorf("external data location %q leaves the model's folder", loc)
		}
	}
	if strings.ContainsRune(loc, 0) {
		return "", fmt.Errorf("external data location %q contains a NUL byte", loc)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	root, _ = filepath.Abs(root)
	p := filepath.Join(root, filepath.FromSlash(loc))
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if os.IsNotExist(err) {
			return "", fmt.Errorf("external data file %q not found", loc)
		}
		return "", err
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("external data location %q resolves outside the model's folder (symlink)", loc)
	}
	return real, nil
}

func (d *decoder) mapExternal(path string) (*mapping, error) {
	if m, ok := d.ext[path]; ok {
		return m, nil
	}
	m, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	d.maps.add(m)
	d.ext[path] = m
	return m, nil
}

// sparseTensor decodes a SparseTensorProto.
func (d *decoder) sparseTensor(b []byte) (*ir.SparseTensor, error) {
	st := &ir.SparseTensor{}
	err := eachField(b, func(f field) error {
		var err error
		switch f.num {
		case sparseValues:
			st.Values, err = d.tensor(f.b)
		case sparseIndices:
			st.Indices, err = d.tensor(f.b)
		case sparseDims:
			st.Dims, err = appendInt64s(st.Dims, f)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if st.Values == nil || st.Indices == nil {
		return nil, fmt.Errorf("sparse tensor: missing values or indices")
	}
	for _, dim := range st.Dims {
		if dim < 0 {
			return nil, fmt.Errorf("sparse tensor %q: negative dimension in %v", st.Values.Name, st.Dims)
		}
	}
	return st, nil
}

// entry decodes a StringStringEntryProto.
func (d *decoder) entry(b []byte) (ir.StringPair, error) {
	var kv ir.StringPair
	err := eachField(b, func(f field) error {
		var err error
		switch f.num {
		case entryKey:
			kv.Key, err = f.str("metadata key")
		case entryValue:
			kv.Value = f.doc()
		}
		return err
	})
	return kv, err
}
