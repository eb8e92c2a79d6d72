package importer

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wolong-dev/wolong/internal/modelgen"
	"github.com/wolong-dev/wolong/ir"
)

// BenchmarkImportInfer100k imports and shape-infers a generated model of
// 100k nodes.
func BenchmarkImportInfer100k(b *testing.B) {
	p := filepath.Join(b.TempDir(), "wide.onnx")
	if err := WriteFile(modelgen.Wide(100000), p); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		m, err := Load(p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		ir.InferModel(m, ir.InferOptions{Dims: map[string]int64{"batch": 8}})
		m.Close()
	}
}

// writeBigWeights writes a model whose initializers hold quarters x 256
// MiB of zeros, streaming one 16 MiB buffer so the writer stays small.
func writeBigWeights(tb testing.TB, path string, quarters int) {
	const chunk = 16 << 20
	zero := make([]byte, chunk)
	var inits []*msg
	for i := 0; i < quarters; i++ { // 256 MiB tensors
		const n = 256 << 20
		t := &msg{}
		t.packedInts(tensorDims, []int64{n / 4})
		t.int(tensorDataType, int64(ir.Float32))
		t.str(tensorName, "w"+strconv.Itoa(i))
		t.tag(tensorRawData, 2)
		t.uvarint(n)
		for k := 0; k < n/chunk; k++ {
			t.raw(zero)
		}
		inits = append(inits, t)
	}
	var nodes []*msg
	prev := "x"
	for i := range inits {
		out := "y" + strconv.Itoa(i)
		nodes = append(nodes, nodeMsg("Add", []string{prev, "w" + strconv.Itoa(i)}, []string{out}))
		prev = out
	}
	g := graphMsg("big", nodes, inits, []*msg{viMsg("x", ir.Float32, (256<<20)/4)}, []*msg{viMsg(prev, ir.Float32, (256<<20)/4)})
	m := &msg{}
	m.int(modelIRVersion, 8)
	o := &msg{}
	o.str(opsetDomain, "")
	o.int(opsetVersion, 17)
	m.message(modelOpsetImport, o)
	m.message(modelGraph, g)
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := m.writeTo(w); err != nil {
		tb.Fatal(err)
	}
	w.Flush()
	f.Close()
}

// rssKiB reads a field (VmRSS, VmHWM) of /proc/self/status in KiB.
func rssKiB(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			f := strings.Fields(line)
			v, _ := strconv.ParseInt(f[1], 10, 64)
			return v
		}
	}
	return -1
}

// BenchmarkImport1GiBWeights imports a model with 1 GiB of weights and
// reports the growth of resident memory: the weights are mapped, not read,
// so it must stay far below the weight size.
func BenchmarkImport1GiBWeights(b *testing.B) {
	p := filepath.Join(b.TempDir(), "big.onnx")
	writeBigWeights(b, p, 4)
	var grow int64
	for b.Loop() {
		before := rssKiB("VmRSS")
		m, err := Load(p, Options{})
		if err != nil {
			b.Fatal(err)
		}
		ir.InferModel(m, ir.InferOptions{})
		after := rssKiB("VmRSS")
		if d := after - before; d > grow {
			grow = d
		}
		m.Close()
	}
	b.ReportMetric(float64(grow)/1024, "RSS-growth-MiB")
	if grow > 64<<10 {
		b.Errorf("resident memory grew by %d MiB importing 1 GiB of weights", grow>>10)
	}
}

// TestBigWeightsStayMapped is the small-scale functional check behind the
// benchmark: a 512 MiB model imports without its weights becoming resident.
func TestBigWeightsStayMapped(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 512 MiB file")
	}
	p := filepath.Join(t.TempDir(), "big.onnx")
	writeBigWeights(t, p, 2)
	before := rssKiB("VmRSS")
	m, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ir.InferModel(m, ir.InferOptions{})
	grow := rssKiB("VmRSS") - before
	if grow > 64<<10 {
		t.Errorf("resident memory grew by %d MiB importing 512 MiB of weights", grow>>10)
	}
	if len(m.Graph.Initializers) != 2 || len(m.Graph.Initializers[0].Const.Raw) != 256<<20 {
		t.Fatalf("initializers not read back")
	}
}
