package importer

// This file implements how the exporter writes tensor data: inline, by
// streaming each weight from its Source, or as external data. External
// data either references the file a weight came from (when that file lies
// in the output's folder, so the location stays a relative path inside it,
// as ONNX Runtime and the importer require) or is copied, streaming, into
// OUT.data beside the output. Neither way holds a weight in memory; runs
// of zeros in the copy become holes, so a sparse input stays sparse.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/internal/safefile"
	"github.com/wolong-dev/wolong/ir"
)

// ExternalMode says when WriteFileWith writes initializers as external
// data.
type ExternalMode int

const (
	// ExternalAuto writes external data only when the model would not fit
	// protobuf's 2 GiB limit inline.
	ExternalAuto ExternalMode = iota
	// ExternalAlways writes every initializer of at least MinExternalBytes
	// as external data.
	ExternalAlways
)

// ParseExternalMode reads "auto" or "always".
func ParseExternalMode(s string) (ExternalMode, error) {
	switch s {
	case "", "auto":
		return ExternalAuto, nil
	case "always":
		return ExternalAlways, nil
	}
	return 0, fmt.Errorf("%q: want auto or always", s)
}

// WriteOptions steer WriteFileWith.
type WriteOptions struct {
	External ExternalMode
	// MinExternalBytes keeps initializers smaller than this inline when
	// writing external data (default 1 KiB, the threshold of onnx's
	// convert_model_to_external_data).
	MinExternalBytes int64
	// Batch, when set, stages the files (model and external data) in it:
	// they appear when the caller commits the batch with its other
	// outputs, or not at all.
	Batch *safefile.Batch
}

// Written says where WriteFileWith put the weights.
type Written struct {
	DataFile        string // the external-data file written ("" if none)
	Copied          int    // initializers copied into DataFile
	CopiedBytes     int64
	Referenced      int // initializers left in the external files they came from
	ReferencedBytes int64
	ReferencedFiles []string // those files, relative to the output's folder
}

// WriteFileWith exports m to path atomically, as WriteFile, with external
// data as opt says. The written file is checked against m (CheckExported)
// before it is moved into place. The external-data file (path + ".data") is written
// atomically before the model, and removed again if writing the model
// fails. It refuses to write over the file m was read from, any file its
// weights are in, and any file in refuse.
func WriteFileWith(m *ir.Model, path string, opt WriteOptions, refuse ...string) (*Written, error) {
	if opt.MinExternalBytes <= 0 {
		opt.MinExternalBytes = 1 << 10
	}
	if m.Path != "" {
		refuse = append(refuse, m.Path)
	}
	var mm *msg
	e := &exporter{}
	if opt.External == ExternalAuto {
		var err error
		if mm, err = e.model(m); err != nil {
			return nil, err
		}
	}
	if mm == nil || mm.size > maxProtoSize {
		ext, err := newExtData(path, opt.MinExternalBytes, m)
		if err != nil {
			return nil, fmt.Errorf("export: %v", err)
		}
		e = &exporter{out: dataOut{ext: ext}}
		if mm, err = e.model(m); err != nil {
			return nil, err
		}
	}
	if mm.size > maxProtoSize {
		return nil, fmt.Errorf("export: model is %d bytes even with its initializers as external data, over protobuf's 2 GiB limit", mm.size)
	}
	refuse = append(refuse, e.out.sources()...)
	w := &Written{}
	if x := e.out.ext; x != nil {
		w.Copied, w.CopiedBytes = len(x.copies), x.copiedBytes
		w.Referenced, w.ReferencedBytes = x.refs, x.refBytes
		for f := range x.refFiles {
			w.ReferencedFiles = append(w.ReferencedFiles, f)
		}
	}
	b := opt.Batch
	if b == nil {
		b = safefile.NewBatch()
		defer b.Abort()
	}
	if x := e.out.ext; x != nil && len(x.copies) > 0 {
		w.DataFile = x.path
		if err := b.Write(x.path, refuse, x.writeData); err != nil {
			return nil, err
		}
	}
	err := b.WriteChecked(path, refuse, func(out io.Writer) error {
		bw := bufio.NewWriterSize(out, 1<<20)
		if err := mm.writeTo(bw); err != nil {
			return err
		}
		return bw.Flush()
	}, func(tmp string) error {
		// the data file the model refers to may still be staged
		var staged map[string]string
		if x := e.out.ext; x != nil && w.DataFile != "" {
			if t := b.Staged(x.path); t != "" {
				staged = map[string]string{x.name: t}
			}
		}
		return checkExported(m, tmp, staged)
	})
	if err != nil {
		return nil, err
	}
	if opt.Batch == nil {
		if err := b.Commit(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// dataOut is the exporter's state for tensor data.
type dataOut struct {
	ext    *extData // nil: everything inline
	inInit bool     // encoding a graph initializer
	read   map[string]bool
}

// sources lists the files the exported tensors were read from.
func (d *dataOut) sources() []string {
	var out []string
	for f := range d.read {
		out = append(out, f)
	}
	return out
}

// initializer encodes a graph initializer (the only tensors written as
// external data: attribute tensors stay inline, as onnx's
// convert_model_to_external_data leaves them by default).
func (e *exporter) initializer(t *ir.Tensor, name string) (*msg, error) {
	e.out.inInit = true
	defer func() { e.out.inInit = false }()
	return e.tensor(t, name)
}

// data encodes t's packed data (raw_data or external data).
func (e *exporter) data(tm *msg, t *ir.Tensor) {
	if !t.HasPacked() {
		return
	}
	if t.Loc.File != "" {
		if e.out.read == nil {
			e.out.read = map[string]bool{}
		}
		e.out.read[t.Loc.File] = true
	}
	size := t.PackedSize()
	if x := e.out.ext; x != nil && e.out.inInit && size >= x.min {
		loc, off := x.place(t)
		kv := []ir.StringPair{{Key: "location", Value: loc}, {Key: "offset", Value: strconv.FormatInt(off, 10)}, {Key: "length", Value: strconv.FormatInt(size, 10)}}
		if loc != x.name && t.Loc.Checksum() != "" {
			kv = append(kv, ir.StringPair{Key: "checksum", Value: t.Loc.Checksum()})
		}
		entries(tm, tensorExternalData, kv)
		tm.int(tensorDataLocation, 1)
		return
	}
	if t.Src != nil && (t.Raw == nil || len(t.Raw) >= bigChunk) {
		tm.source(tensorRawData, t.Src)
		return
	}
	tm.bytes(tensorRawData, t.Raw)
}

// source appends a bytes field whose content is streamed from s at write
// time.
func (m *msg) source(n num, s ir.Source) {
	m.tag(n, 2)
	m.uvarint(uint64(s.Size()))
	m.flush()
	m.chunks = append(m.chunks, chunk{src: s})
	m.size += int(s.Size())
}

// copySource streams all of s to w through a bounded buffer.
func copySource(w io.Writer, s ir.Source) error {
	n, err := io.Copy(w, io.NewSectionReader(s, 0, s.Size()))
	if err == nil && n != s.Size() {
		err = fmt.Errorf("export: tensor data: read %d of %d bytes", n, s.Size())
	}
	return err
}

// zeroBlock is the unit in which writeData leaves zeros as holes.
const zeroBlock = 64 << 10

// extAlign aligns every tensor in the data file, so runtimes may map it.
const extAlign = 4096

// extData plans the external-data file of one export.
type extData struct {
	path, name string // the data file, and its name relative to the output's folder
	dir        string // the output's folder, absolute, symlinks resolved
	min        int64
	copies     []extCopy
	placed     map[*ir.Tensor]int64 // offsets of tensors already copied
	size       int64                // the data file's length
	copiedBytes,
	refBytes int64
	refs     int
	refFiles map[string]bool
}

type extCopy struct {
	src ir.Source
	off int64
}

// newExtData plans external data for a model written to path. Copies go
// to path + ".data", or, when m's weights are in a file of that name
// already (which the export then references), to path + ".1.data".
func newExtData(path string, min int64, m *ir.Model) (*extData, error) {
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	name := filepath.Base(path) + ".data"
	taken := false
	m.Graph.Walk(func(g *ir.Graph) bool {
		for _, v := range g.Initializers {
			taken = taken || v.Const != nil && v.Const.Loc.External && v.Const.Loc.File == filepath.Join(dir, name)
		}
		return !taken
	})
	if taken {
		name = filepath.Base(path) + ".1.data"
	}
	return &extData{path: filepath.Join(filepath.Dir(path), name), name: name, dir: dir, min: min,
		placed: map[*ir.Tensor]int64{}, refFiles: map[string]bool{}}, nil
}

// place returns t's location and offset: the file t came from, when it is
// external data inside the output's folder, else a copy in the data file.
func (x *extData) place(t *ir.Tensor) (string, int64) {
	size := t.PackedSize()
	if t.Loc.External && t.Loc.File != "" && t.Loc.Length == size {
		if rel, ok := inside(x.dir, t.Loc.File); ok {
			x.refs++
			x.refBytes += size
			x.refFiles[rel] = true
			return rel, t.Loc.Offset
		}
	}
	if off, ok := x.placed[t]; ok {
		return x.name, off
	}
	off := (x.size + extAlign - 1) / extAlign * extAlign
	x.copies = append(x.copies, extCopy{src: t.Reader(), off: off})
	x.placed[t] = off
	x.size = off + size
	x.copiedBytes += size
	return x.name, off
}

// inside returns file relative to dir, with forward slashes, when it lies
// inside dir.
func inside(dir, file string) (string, bool) {
	rel, err := filepath.Rel(dir, file)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// writeData writes the data file: each copy at its offset, streamed
// through one buffer; holes of a sparse source are not read, and they and
// all-zero blocks are skipped with a seek when w can seek, leaving holes.
func (x *extData) writeData(w io.Writer) error {
	f, sparse := w.(interface {
		io.WriteSeeker
		Truncate(int64) error
	})
	buf := make([]byte, 1<<20)
	zero := make([]byte, len(buf))
	var pos int64
	skip := func(n int64) error {
		if sparse {
			_, err := f.Seek(n, io.SeekCurrent)
			return err
		}
		for n > 0 {
			k := min(n, int64(len(zero)))
			if _, err := w.Write(zero[:k]); err != nil {
				return err
			}
			n -= k
		}
		return nil
	}
	for _, c := range x.copies {
		if err := skip(c.off - pos); err != nil {
			return err
		}
		pos = c.off
		size := c.src.Size()
		holes, _ := c.src.(interface{ nextData(int64) int64 })
		for o := int64(0); o < size; {
			if holes != nil {
				if next := holes.nextData(o); next > o {
					if err := skip(next - o); err != nil {
						return err
					}
					pos += next - o
					o = next
					continue
				}
			}
			k := int(min(int64(len(buf)), size-o))
			n, err := c.src.ReadAt(buf[:k], o)
			if n == k {
				err = nil
			} else if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			if err != nil {
				return fmt.Errorf("export: external data: %v", err)
			}
			for i := 0; i < k; i += zeroBlock {
				blk := buf[i:min(i+zeroBlock, k)]
				if bytes.Equal(blk, zero[:len(blk)]) {
					err = skip(int64(len(blk)))
				} else {
					_, err = w.Write(blk)
				}
				if err != nil {
					return err
				}
			}
			o += int64(k)
			pos += int64(k)
		}
	}
	if sparse {
		return f.Truncate(pos)
	}
	return nil
}
