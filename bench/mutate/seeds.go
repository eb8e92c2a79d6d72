package main

// This file gathers the models the variants start from: every .onnx under
// the shared models folder and testdata/models, and the hostile catalogue
// (internal/hostile), with the side files (external data) each needs and
// the --dim/--input values that let run and verify evaluate it.

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/internal/hostile"
)

// seedModel is one starting model.
type seedModel struct {
	name   string   // shared/models/cnn/x.onnx, testdata/models/x.onnx, hostile/NAME
	source string   // shared/models, testdata/models, hostile
	path   string   // where it is read from
	data   []byte   // its bytes
	tree   *msg     // parsed, or nil (then only byte-level mutations apply)
	dims   []string // --dim / --input flags for run and verify
	macs   float64  // multiply-accumulates at those dims (0: unknown)
	weight float64  // share of the variants, from macs: slow models are sampled less
	work   string   // folder its variants are written to, side files beside them
}

// sideFile reports whether a file beside a seed is one a variant may need
// (external data), not another model or a document.
func sideFile(name string) bool {
	return !strings.HasSuffix(name, ".onnx") && !strings.HasSuffix(name, ".md") && !strings.HasSuffix(name, ".txt")
}

// collectSeeds finds the seed models. hostileDir receives the hostile cases.
func collectSeeds(roots []string, hostileDir string) ([]*seedModel, error) {
	var seeds []*seedModel
	for _, root := range roots {
		var paths []string
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".onnx") {
				paths = append(paths, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(paths)
		for _, p := range paths {
			rel, _ := filepath.Rel(root, p)
			src := rootName(root)
			seeds = append(seeds, &seedModel{name: src + "/" + filepath.ToSlash(rel), source: src, path: p})
		}
	}
	if hostileDir != "" {
		if err := os.MkdirAll(hostileDir, 0o755); err != nil {
			return nil, err
		}
		for _, c := range hostile.Cases() {
			p, err := c.Write(hostileDir)
			if err != nil {
				return nil, fmt.Errorf("hostile %s: %v", c.Name, err)
			}
			seeds = append(seeds, &seedModel{name: "hostile/" + c.Name, source: "hostile", path: p})
		}
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s.path)
		if err != nil {
			return nil, err
		}
		s.data = b
		if t, ok := parse(kModel, b); ok && len(b) > 0 {
			s.tree = t
		}
	}
	return seeds, nil
}

// rootName names a seed folder by its last two elements (shared/models,
// testdata/models), so that seeds from different folders stay apart.
func rootName(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	return filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(abs)), filepath.Base(abs)))
}

// prepareWork makes each seed's work folder under dir with copies of the
// side files beside the seed (symlinks stay symlinks), a readable
// side.bin, and dir/escape.bin for references that climb out.
func prepareWork(seeds []*seedModel, dir string) error {
	blob := make([]byte, 4096)
	for i := range blob {
		blob[i] = byte(i * 7)
	}
	if err := os.WriteFile(filepath.Join(dir, "escape.bin"), blob, 0o644); err != nil {
		return err
	}
	for i, s := range seeds {
		s.work = filepath.Join(dir, fmt.Sprintf("%03d-%s", i, slug(s.name)))
		if err := os.MkdirAll(s.work, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(s.work, "side.bin"), blob, 0o644); err != nil {
			return err
		}
		if err := copySideFiles(filepath.Dir(s.path), s.work); err != nil {
			return err
		}
	}
	return nil
}

func copySideFiles(from, to string) error {
	ents, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !sideFile(e.Name()) {
			continue
		}
		src, dst := filepath.Join(from, e.Name()), filepath.Join(to, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				return err
			}
			os.Remove(dst)
			if err := os.Symlink(target, dst); err != nil {
				return err
			}
		case e.Type().IsRegular():
			info, err := e.Info()
			if err != nil || info.Size() > 256<<20 {
				continue
			}
			b, err := os.ReadFile(src)
			if err != nil {
				return err
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// slug turns a seed name into a file name.
func slug(s string) string {
	s = strings.TrimSuffix(s, ".onnx")
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// inspected is the part of `wolong inspect --format json` read here.
type inspected struct {
	Inputs []struct {
		Name  string `json:"name"`
		Shape []any  `json:"shape"`
	} `json:"inputs"`
	MACs *float64 `json:"macs"`
}

// describeSeeds gives each seed the --dim/--input flags that make its
// symbolic and unknown input dims 1 (inspect of the original tells which),
// its MACs at those dims, and its sampling weight: 1 for a model whose
// evaluation is quick, falling with its MACs (a 500 M-MAC model takes
// seconds in run and verify) to at least 0.05.
func describeSeeds(bin string, seeds []*seedModel) {
	for _, s := range seeds {
		s.weight = 1
		var in inspected
		out, err := exec.Command(bin, "inspect", s.path, "--format", "json").Output()
		if err != nil || json.Unmarshal(out, &in) != nil {
			continue
		}
		dims := map[string]bool{}
		for _, v := range in.Inputs {
			if v.Shape == nil || strings.ContainsAny(v.Name, "=,") {
				continue
			}
			unnamed := false
			parts := make([]string, len(v.Shape))
			for i, d := range v.Shape {
				switch d := d.(type) {
				case float64:
					parts[i] = fmt.Sprint(int64(d))
				case string:
					parts[i] = d
					if validDimName(d) {
						dims[d] = true
					}
				default:
					parts[i], unnamed = "1", true
				}
			}
			if unnamed {
				s.dims = append(s.dims, "--input", v.Name+"="+strings.Join(parts, "x"))
			}
		}
		names := make([]string, 0, len(dims))
		for d := range dims {
			names = append(names, d)
		}
		slices.Sort(names)
		for _, d := range names {
			s.dims = append(s.dims, "--dim", d+"=1")
		}
		args := append([]string{"inspect", s.path, "--format", "json"}, s.dims...)
		if out, err := exec.Command(bin, args...).Output(); err == nil && json.Unmarshal(out, &in) == nil && in.MACs != nil {
			s.macs = *in.MACs
		}
		s.weight = math.Max(0.05, 0.4/(0.4+s.macs*8e-9))
	}
}

// validDimName reports whether d is a plain dim name --dim accepts (not
// an expression such as 2*N).
func validDimName(d string) bool {
	if d == "" {
		return false
	}
	for _, r := range d {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// schedule returns, for n variants, the seed index of each: every seed
// gets at least one variant when n allows, the rest in proportion to the
// weights (largest remainder), interleaved by a seeded shuffle.
func schedule(seeds []*seedModel, n int, shuffle func(n int, swap func(i, j int))) []int {
	count := make([]int, len(seeds))
	rest := n
	if n >= len(seeds) {
		for i := range count {
			count[i] = 1
		}
		rest -= len(seeds)
	}
	total := 0.0
	for _, s := range seeds {
		total += s.weight
	}
	type rem struct {
		i int
		f float64
	}
	var rems []rem
	given := 0
	for i, s := range seeds {
		q := float64(rest) * s.weight / total
		count[i] += int(q)
		given += int(q)
		rems = append(rems, rem{i, q - math.Floor(q)})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].f > rems[b].f })
	for k := 0; given < rest; k++ {
		count[rems[k%len(rems)].i]++
		given++
	}
	var order []int
	for i, c := range count {
		for range c {
			order = append(order, i)
		}
	}
	shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	return order
}
