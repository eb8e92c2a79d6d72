package hw

// This file implements the hardware schema and the loading of user
// hardware files.

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wolong-dev/wolong/internal/fieldcheck"
	"github.com/wolong-dev/wolong/ir"

	"github.com/wolong-dev/wolong/internal/strictjson"
)

// Peak holds dense peak throughput in TFLOP/s (TOP/s for int8) per math
// mode. A zero entry means the device has no such mode; the cost model then
// falls back (bf16 -> fp16 -> fp32, tf32 -> fp32) and says so.
type Peak struct {
	FP64 float64 `json:"fp64"`
	FP32 float64 `json:"fp32"` // CUDA cores / SIMD units, not tensor cores
	TF32 float64 `json:"tf32"` // tensor cores, dense
	FP16 float64 `json:"fp16"` // tensor cores, dense
	BF16 float64 `json:"bf16"` // tensor cores, dense
	FP8  float64 `json:"fp8"`  // tensor cores, dense
	INT8 float64 `json:"int8"` // TOP/s, dense
	// FP16Vector is the half-precision rate of the CUDA cores (packed
	// half2 arithmetic), used for float16 work that does not run on
	// tensor cores (see Hardware.TensorCoreAlign). 0: float16 vector work
	// runs at the fp32 rate.
	FP16Vector float64 `json:"fp16_vector,omitempty"`
}

// ClassEfficiency is the achievable fraction of peak for one op class, on
// a kernel large enough to fill the device (small kernels are further
// derated by the wave model).
type ClassEfficiency struct {
	Compute    float64 `json:"compute"`     // fraction of the dtype's peak FLOP/s
	Memory     float64 `json:"memory"`      // fraction of peak memory bandwidth
	OverheadUs float64 `json:"overhead_us"` // extra fixed device time per kernel, µs
	// StepUs is the fixed time of each further step of a kernel that loops
	// inside one call (a CPU library's RNN: a step per time step and
	// direction), µs; 0: OverheadUs, as a call of its own.
	StepUs float64 `json:"step_us,omitempty"`
}

// Efficiency holds the named efficiency parameters, one entry per op
// class, plus the parameters of the small-kernel (waves) model. These are
// the fields a calibration fits.
type Efficiency struct {
	MatMul ClassEfficiency `json:"matmul"`
	Conv   ClassEfficiency `json:"conv"`
	// Depthwise convs (one input channel per group) do not map to a GEMM:
	// they run on the vector units at low arithmetic intensity. Absent from
	// a hardware file: the conv class's values.
	Depthwise     ClassEfficiency `json:"depthwise"`
	Attention     ClassEfficiency `json:"attention"`
	RNN           ClassEfficiency `json:"rnn"`
	Elementwise   ClassEfficiency `json:"elementwise"`
	Reduction     ClassEfficiency `json:"reduction"`
	Normalization ClassEfficiency `json:"normalization"`
	DataMovement  ClassEfficiency `json:"data_movement"`
	Other         ClassEfficiency `json:"other"`

	// TileM x TileN is the output tile one thread block computes in a
	// GEMM-like kernel; BlocksPerSM of them run at once on one SM. A GEMM
	// with T tiles runs in ceil(T / (SMs*BlocksPerSM)) waves and reaches
	// T / (waves * SMs*BlocksPerSM) of the class efficiency.
	TileM       int `json:"tile_m"`
	TileN       int `json:"tile_n"`
	BlocksPerSM int `json:"blocks_per_sm"`
	// A kernel moving B bytes uses ceil(B/MemBytesPerBlock) blocks and
	// reaches min(1, blocks / (SMs*MemBlocksPerSM)) of its bandwidth
	// (too few bytes in flight cannot hide memory latency).
	MemBytesPerBlock int `json:"mem_bytes_per_block"`
	MemBlocksPerSM   int `json:"mem_blocks_per_sm"`

	// Ops overrides the class efficiency for single op types a
	// calibration measured enough of (keyed by op type, domain-qualified
	// outside ai.onnx: "com.microsoft:FusedConv"): a runtime's kernels for
	// ops of one class differ (a CPU's pooling loops run at a fraction of
	// its vectorized Softmax). Ops not listed take their class's values.
	Ops map[string]ClassEfficiency `json:"ops,omitempty"`
}

// For returns the efficiency of op (its own entry in Ops, else its
// class's).
func (e Efficiency) For(op, class string) ClassEfficiency {
	if c, ok := e.Ops[op]; ok {
		return c
	}
	return e.Class(class)
}

// Hardware describes one device. The JSON form is the --hw file schema.
type Hardware struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"` // "gpu" or "cpu"
	Description string   `json:"description"`
	Sources     []string `json:"sources"`     // datasheets and measurements the numbers come from
	Assumptions []string `json:"assumptions"` // what was assumed where no source gives a number

	PeakTFLOPS Peak `json:"peak_tflops"`

	MemoryGB           float64 `json:"memory_gb"`            // device memory, GB (1e9 bytes)
	MemoryBandwidthGBs float64 `json:"memory_bandwidth_gbs"` // peak, GB/s
	L2MB               float64 `json:"l2_mb"`                // last-level cache, MB
	SMs                int     `json:"sms"`                  // streaming multiprocessors (GPU) or cores (CPU)
	ClockGHz           float64 `json:"clock_ghz"`

	// Host-side launch cost of each kernel (API call); framework dispatch
	// cost of each node the runtime executes, kernel or not (a view such
	// as Reshape is dispatched too); fixed device-side time (ramp-up,
	// tail) of even an empty kernel. All µs.
	LaunchUs         float64 `json:"launch_us"`
	DispatchUs       float64 `json:"dispatch_us"`
	KernelOverheadUs float64 `json:"kernel_overhead_us"`
	// RunOverheadUs is the host time of one inference call outside its
	// nodes (binding inputs, returning outputs), µs. AllocUsPerMB is host
	// time per MB (1e6 bytes) of node outputs allocated in a run (the
	// allocator and the first touch of fresh pages). Both 0: not modelled.
	RunOverheadUs float64 `json:"run_overhead_us,omitempty"`
	AllocUsPerMB  float64 `json:"alloc_us_per_mb,omitempty"`
	// AllocMinMB is the size below which an output comes from the
	// runtime's arena at no cost: alloc_us_per_mb applies to the part of
	// each output above it (large buffers are mapped fresh and fault in
	// their pages on every run). 0: every byte costs. MB.
	AllocMinMB float64 `json:"alloc_min_mb,omitempty"`
	// FreeNodeUs is the host time, beyond dispatch, of a node that
	// launches no kernel (a view such as Reshape, a shape query): 0 where
	// views are metadata only; ONNX Runtime on a CPU runs them as small
	// copying kernels. µs.
	FreeNodeUs float64 `json:"free_node_us,omitempty"`
	// SubgraphUs is host time per execution of a control-flow body (each
	// Loop or Scan iteration, each If): the runtime sets up the body's
	// frame and passes values in and out. 0: not modelled. µs.
	SubgraphUs float64 `json:"subgraph_us,omitempty"`
	// BroadcastSpanUs is a CPU runtime's time per span of a broadcasting
	// elementwise op: where an operand varies along the innermost dims
	// but repeats along an outer one, the kernel loops over runs of the
	// innermost dims one call at a time (a [1,256,128,3] tensor times a
	// [3] vector: 32,768 spans of 3). 0: not modelled. µs.
	BroadcastSpanUs float64 `json:"broadcast_span_us,omitempty"`
	// OutputUsPerMB is host time per MB of graph outputs handed back to the
	// caller at the end of a run (a runtime's language binding copies them
	// into fresh arrays). 0: not modelled. µs.
	OutputUsPerMB float64 `json:"output_us_per_mb,omitempty"`
	// InputUs and OutputUs are host time per graph input bound and per
	// graph output returned in a run (a language binding wraps each in a
	// tensor object of its own). 0: not modelled. µs.
	InputUs  float64 `json:"input_us,omitempty"`
	OutputUs float64 `json:"output_us,omitempty"`
	// InputUsPerMB is host time per MB (1e6 bytes) of graph inputs bound
	// in a run (a binding that copies its inputs pays it; one that wraps
	// the caller's buffer fits it near 0). 0: not modelled. µs.
	InputUsPerMB float64 `json:"input_us_per_mb,omitempty"`
	// ShapeNodeUs is the host time, beyond dispatch, of a node that
	// reads only its input's shape (Shape, Size): the runtime allocates
	// and fills a small int64 tensor, which a view does not. 0: such
	// nodes cost free_node_us, as views do. µs.
	ShapeNodeUs float64 `json:"shape_node_us,omitempty"`
	// CacheBandwidthGBs is the bandwidth of the last-level cache (l2_mb):
	// the part of a kernel's traffic that fits in it moves at this rate,
	// the rest at memory_bandwidth_gbs. 0: no cache model (every byte at
	// memory bandwidth).
	CacheBandwidthGBs float64 `json:"cache_bandwidth_gbs,omitempty"`
	// CacheWorkingSet says a kernel's weights are in the cache (l2_mb)
	// only when all the model's float weights fit in it together: a
	// runtime's warm runs cycle through every weight, so a model whose
	// weights exceed the cache reads each kernel's weights from memory
	// however small that kernel's are. false: each kernel's traffic is
	// placed on its own (up to l2_mb in cache). Set by calibrate --host.
	CacheWorkingSet bool `json:"cache_working_set,omitempty"`
	// CacheWorkingFraction, with cache_working_set, is the share of l2_mb
	// a model's weights have to themselves: the code of the runtime, the
	// activations and the cache's replacement take the rest, so weights
	// past this share start to miss, and from it up to all of l2_mb the
	// part a kernel reads from memory rises linearly to all of them. 0
	// (or 1): every weight stays in the cache up to l2_mb, none beyond.
	// Fitted by calibrate --host.
	CacheWorkingFraction float64 `json:"cache_working_fraction,omitempty"`
	// GEMMHalfRows is, on a CPU library, the rows of A per GEMM call at
	// which a float matrix multiply (MatMul, Gemm, MatMulNBits) reaches
	// half the compute speed its class's efficiency gives large ones: a
	// call of M rows runs at M / (M + gemm_half_rows) of it (the kernel
	// keeps one row block of accumulators and streams the packed weights
	// once per block, so few rows leave its FMA units waiting on loads).
	// 0: no row effect. Fitted by calibrate --host.
	GEMMHalfRows float64 `json:"gemm_half_rows,omitempty"`
	// WeightStreamStall is, on a CPU library, the share of a kernel's
	// weight streaming from memory (the weights cache_working_fraction
	// puts beyond the cache) that does not overlap its arithmetic: the
	// kernel's time is max(compute, memory) plus this share of the
	// shorter of its compute time and that streaming time. A GEMM of
	// fewer than 8 rows per call (a matrix-vector product, whose
	// sequential reads the prefetcher keeps ahead of) is not stalled. 0:
	// they overlap fully (the roofline). Measured on ORT 1.30, one thread,
	// Intel Xeon VM: a 2048x2048 Gemm at 8-64 rows ran 0.84-3.31 ms where
	// the roofline of a fit without it gave 0.68-2.89 ms
	// (docs/calibration-protocol.md, "Weights past the cache"). Fitted by
	// calibrate --host.
	WeightStreamStall float64 `json:"weight_stream_stall,omitempty"`
	// L3MB is, on a CPU, the shared cache past l2_mb (the L3 a core's
	// misses go to), MB; with dram_bandwidth_gbs, the model's weights
	// that do not fit in it together stream from DRAM. calibrate --host
	// sets it from the host. 0: no tier past memory_bandwidth_gbs.
	L3MB float64 `json:"l3_mb,omitempty"`
	// DRAMBandwidthGBs is, on a CPU with l3_mb, the speed at which one
	// kernel streams weights that the L3 does not keep (of the model's
	// float weights, past half of l3_mb a share rising linearly to all
	// at l3_mb), GB/s: memory_bandwidth_gbs is then the L3's. A GEMM of 8 rows or more does not overlap this
	// streaming with its arithmetic (dram_stream_stall: MLAS packs the
	// weight panels before it multiplies), one of fewer rows streams at
	// the roofline. Measured on ORT 1.30, one thread, AMD EPYC VM (L3 32
	// MiB): a one-row 2048x2048 MatMul chain ran 60 GB/s at 16.8 MB of
	// weights, 40 at 33.6 MB, 34-35 at 134-269 MB; at 20 rows each
	// 16.8 MB past the L3 added 0.8-1.2x its streaming time to the
	// arithmetic (docs/calibration-protocol.md, "Weights past the L3").
	// Fitted by calibrate --host. 0: no DRAM tier.
	DRAMBandwidthGBs float64 `json:"dram_bandwidth_gbs,omitempty"`
	// DRAMStreamStall is, with dram_bandwidth_gbs, the multiple of the
	// shorter of a GEMM's arithmetic and its streaming of weights from
	// DRAM that adds to max(compute, memory) when it has 8 rows or more:
	// 1 when the packing of the weights before the multiply reads them as
	// fast as a plain stream, more when its strided reads are slower
	// (0..3). 0 in a file with a DRAM tier: they overlap. Fitted by
	// calibrate --host.
	DRAMStreamStall float64 `json:"dram_stream_stall,omitempty"`
	// GEMMColLanes is, on a CPU library, the float32 lanes of its GEMM
	// kernel's column block (16 with AVX-512, 8 with AVX2): a GEMM call
	// of N output columns (a MatMul's N; a convolution's output positions
	// per image, as im2col lays them out) keeps N / (ceil(N/lanes) x
	// lanes) of the lanes busy and computes at that share of the speed.
	// 0: no lane effect. calibrate --host sets it from the CPU's flags.
	GEMMColLanes float64 `json:"gemm_col_lanes,omitempty"`
	// ConvIm2col says convolutions other than pointwise ones (1x1 kernel,
	// stride 1, no padding) stage their input through an im2col buffer
	// before a GEMM, as CPU libraries (MLAS, oneDNN's gemm path) do; the
	// buffer is written and read back before the arithmetic. false:
	// implicit GEMM (cuDNN), no staging traffic.
	ConvIm2col bool `json:"conv_im2col,omitempty"`
	// ConvWinograd says 3x3 stride-1 ungrouped convolutions that run on the
	// vector units (fp32 without tensor cores) use Winograd F(2x2,3x3)
	// kernels, as cuDNN picks for them: 2.25x fewer multiplies than the
	// direct algorithm (Lavin & Gray, CVPR 2016). Tensor-core convs stay
	// implicit GEMM.
	ConvWinograd bool `json:"conv_winograd,omitempty"`
	// FP16Casts says the runtime has no half-precision kernels here: it
	// computes fp16 ops in fp32 and inserts a Cast for each fp16 weight and
	// graph input an op reads and each fp16 graph output (ONNX Runtime's
	// CPU provider); with every node run (no load-time folding) the weight
	// casts run on every inference.
	FP16Casts bool `json:"fp16_casts,omitempty"`
	// TensorCoreAlign, when > 0, says the matrix libraries run a GEMM or
	// convolution on tensor cores only when its GEMM dimensions (M, N, K;
	// a convolution's input and output channels per group) are multiples
	// of this many elements, as cuBLAS before 11.0 and cuDNN before 7.6.3
	// required (8 for fp16); the others run on the CUDA cores. 0: tensor
	// cores for every shape (cuBLAS 11 and later).
	TensorCoreAlign int `json:"tensor_core_align,omitempty"`

	// Interconnects, GB/s per direction unless noted in Sources.
	NVLinkGBs float64 `json:"nvlink_gbs"`
	PCIeGBs   float64 `json:"pcie_gbs"`

	Efficiency Efficiency `json:"efficiency"`

	// Lacks lists what a preset has no measurement for, which every
	// prediction on it inherits (a GPU catalogued for the cluster model
	// whose kernel efficiencies no single-GPU measurement checks). hw
	// list and hw show print it; profile warns with it.
	Lacks []string `json:"lacks,omitempty"`

	// Fitted says which machine and which measurements a calibrated file
	// describes (nil: datasheet figures, or fitted before wolong recorded
	// it).
	Fitted *Fitted `json:"fitted,omitempty"`

	// VariantOf, in a preset, names the preset this one stands in for on
	// the machine it was fitted on (Fitted): --hw VARIANT_OF on a machine
	// that matches this preset's Fitted (as HostMismatch matches) predicts
	// with this preset (ResolveOn). "" for a preset of its own and in
	// hardware files, where it has no effect.
	VariantOf string `json:"variant_of,omitempty"`

	// Runtime is the runtime preset whose host costs h carries (set by
	// WithRuntime; nil: the hardware's own, DefaultRuntime's). Not part
	// of a hardware file.
	Runtime *Runtime `json:"-"`
}

// Fitted describes the machine a CPU hardware file was fitted on and how.
type Fitted struct {
	CPU     string `json:"cpu"`              // the OS's model name
	CPUID   string `json:"cpu_id,omitempty"` // vendor family/model/stepping
	Cores   int    `json:"cores"`            // logical CPUs of the machine
	Threads int    `json:"threads"`          // intra-op threads the runtime ran with
	L1dKB   int    `json:"l1d_kb,omitempty"`
	L2KB    int    `json:"l2_kb,omitempty"`
	L3KB    int    `json:"l3_kb,omitempty"`
	Flags   string `json:"flags,omitempty"` // vector extensions
	OS      string `json:"os,omitempty"`
	Runtime string `json:"runtime"` // "onnxruntime 1.30.0 (node), graph optimizations disabled"
	Date    string `json:"date"`    // RFC 3339, UTC
	Method  string `json:"method"`  // how: models, runs, profiled or not
	Models  int    `json:"models"`  // models measured
	// ProfilerNodeUs is the runtime profiler's own cost per node on this
	// machine; KernelInflationUs the part of it inside its kernel timings
	// (taken off profiled kernel times). µs.
	ProfilerNodeUs    float64 `json:"profiler_node_us,omitempty"`
	KernelInflationUs float64 `json:"kernel_inflation_us,omitempty"`
	// The fit's end-to-end MAPE on the models it was fitted on and on the
	// ones held back (HeldOut of them), %.
	// NoisePct: how much the machine's speed varied while measuring (the
	// median difference between a model's two measuring passes, %).
	NoisePct    float64 `json:"noise_pct,omitempty"`
	TrainMAPE   float64 `json:"train_mape_pct"`
	HeldOutMAPE float64 `json:"held_out_mape_pct"`
	HeldOut     int     `json:"held_out"`
	// ExpectedError is the error a prediction from this file is expected
	// to have, by size class of the predicted time (ErrorBands: from the
	// fit's held-out residuals); see Hardware.ExpectedError.
	ExpectedError []ErrorBand `json:"expected_error,omitempty"`
}

// Describe is one line saying what machine h was fitted on and how.
func (f *Fitted) Describe() string {
	if f.Models == 0 {
		return fmt.Sprintf("set for %s (%d logical CPUs, %d thread(s); L2 %d KiB) with %s on %s: %s; no measured error",
			cpuName(CPUInfo{Model: f.CPU, ID: f.CPUID}), f.Cores, f.Threads, f.L2KB, f.Runtime, f.Date, f.Method)
	}
	return fmt.Sprintf("fitted on %s (%d logical CPUs, %d thread(s) used; L2 %d KiB, L3 %d KiB) with %s on %s: %s; end-to-end MAPE %.1f%% on the %d models fitted on, %.1f%% on the %d held back",
		cpuName(CPUInfo{Model: f.CPU, ID: f.CPUID}), f.Cores, f.Threads, f.L2KB, f.L3KB, f.Runtime, f.Date, f.Method, f.TrainMAPE, f.Models-f.HeldOut, f.HeldOutMAPE, f.HeldOut)
}

// maxFileSize bounds a hardware file read from disk.
const maxFileSize = 1 << 20

// Load reads a hardware file (the preset schema, one object).
func Load(path string) (*Hardware, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	defer f.Close()
	h, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return h, nil
}

// Parse decodes and validates a hardware description (the preset schema,
// one object, at most 1 MiB; unknown fields are errors).
func Parse(r io.Reader) (*Hardware, error) {
	var h Hardware
	if err := strictjson.Decode(r, maxFileSize, &h); err != nil {
		return nil, err
	}
	if h.Efficiency.Depthwise == (ClassEfficiency{}) {
		h.Efficiency.Depthwise = h.Efficiency.Conv // files written before the class existed
	}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	return &h, nil
}

// Resolve returns the preset called arg, or, when arg names a file (it
// contains a path separator or ends in .json), the hardware file.
func Resolve(arg string) (*Hardware, error) {
	if strings.HasSuffix(arg, ".json") || strings.ContainsRune(arg, os.PathSeparator) {
		return Load(arg)
	}
	h, err := Preset(arg)
	if err == nil {
		return h, nil
	}
	// a name wolong calibrate --host saved in the user's config folder
	if dir, derr := UserDir(); derr == nil && validName(arg) {
		p := filepath.Join(dir, arg+".json")
		if _, serr := os.Stat(p); serr == nil {
			return Load(p)
		}
	}
	return nil, fmt.Errorf("%v, and no hardware file %s.json saved by wolong calibrate --host", err, arg)
}

// UserDir is the folder where wolong calibrate --host saves hardware files
// that --hw NAME finds: $XDG_CONFIG_HOME/wolong/hw (~/.config/wolong/hw on
// Linux, ~/Library/Application Support/wolong/hw on macOS).
func UserDir() (string, error) {
	c, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "wolong", "hw"), nil
}

// validName reports whether name can name a saved hardware file: letters,
// digits, '-', '_' and '.', not starting with '.'.
func validName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '.' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// ValidName reports whether name can name a hardware file saved in UserDir.
func ValidName(name string) bool { return validName(name) }

// Clone returns a deep copy of h.
func (h *Hardware) Clone() *Hardware {
	c := *h
	c.Sources = append([]string(nil), h.Sources...)
	c.Assumptions = append([]string(nil), h.Assumptions...)
	c.Lacks = append([]string(nil), h.Lacks...)
	if h.Fitted != nil {
		f := *h.Fitted
		c.Fitted = &f
	}
	if h.Efficiency.Ops != nil {
		c.Efficiency.Ops = make(map[string]ClassEfficiency, len(h.Efficiency.Ops))
		for k, v := range h.Efficiency.Ops {
			c.Efficiency.Ops[k] = v
		}
	}
	return &c
}

// Validate checks that the numbers a prediction needs are present and
// sane.
func (h *Hardware) Validate() error {
	var ck fieldcheck.Check
	if h.Name == "" {
		ck.Addf("name is empty")
	}
	if h.Kind != "gpu" && h.Kind != "cpu" {
		ck.Addf("kind %q must be \"gpu\" or \"cpu\"", h.Kind)
	}
	ck.Positive("peak_tflops.fp32", h.PeakTFLOPS.FP32)
	p := h.PeakTFLOPS
	nonNegEach(&ck, "peak_tflops.", []namedNum{{"fp64", p.FP64}, {"tf32", p.TF32}, {"fp16", p.FP16}, {"bf16", p.BF16}, {"fp8", p.FP8}, {"int8", p.INT8}, {"fp16_vector", p.FP16Vector}})
	ck.Positive("memory_gb", h.MemoryGB)
	ck.Positive("memory_bandwidth_gbs", h.MemoryBandwidthGBs)
	ck.NonNeg("l2_mb", h.L2MB)
	ck.IntIn("sms", h.SMs, 1, 1<<20)
	nonNegEach(&ck, "", []namedNum{
		{"clock_ghz", h.ClockGHz}, {"launch_us", h.LaunchUs}, {"dispatch_us", h.DispatchUs},
		{"kernel_overhead_us", h.KernelOverheadUs}, {"run_overhead_us", h.RunOverheadUs},
		{"alloc_us_per_mb", h.AllocUsPerMB}, {"alloc_min_mb", h.AllocMinMB}, {"free_node_us", h.FreeNodeUs},
		{"output_us_per_mb", h.OutputUsPerMB}, {"cache_bandwidth_gbs", h.CacheBandwidthGBs},
		{"input_us", h.InputUs}, {"output_us", h.OutputUs}, {"input_us_per_mb", h.InputUsPerMB},
		{"shape_node_us", h.ShapeNodeUs}, {"subgraph_us", h.SubgraphUs}, {"broadcast_span_us", h.BroadcastSpanUs},
		{"l3_mb", h.L3MB}, {"dram_bandwidth_gbs", h.DRAMBandwidthGBs},
	})
	ck.IntIn("tensor_core_align", h.TensorCoreAlign, 0, 1024)
	if l := h.GEMMColLanes; l < 0 || l > 1024 || math.IsNaN(l) {
		ck.Addf("gemm_col_lanes %g: want 0..1024", l)
	}
	if r := h.GEMMHalfRows; r < 0 || r > 1e6 || math.IsNaN(r) {
		ck.Addf("gemm_half_rows %g: want 0..1e6", r)
	}
	if f := h.CacheWorkingFraction; f < 0 || f > 1 || math.IsNaN(f) {
		ck.Addf("cache_working_fraction %g: want 0..1", f)
	}
	if f := h.WeightStreamStall; f < 0 || f > 1 || math.IsNaN(f) {
		ck.Addf("weight_stream_stall %g: want 0..1", f)
	}
	if f := h.DRAMStreamStall; f < 0 || f > 3 || math.IsNaN(f) {
		ck.Addf("dram_stream_stall %g: want 0..3", f)
	}
	nonNegEach(&ck, "", []namedNum{{"nvlink_gbs", h.NVLinkGBs}, {"pcie_gbs", h.PCIeGBs}})
	for _, c := range h.Efficiency.Classes() {
		ck.Fraction("efficiency."+c.Name+".compute", c.Eff.Compute)
		ck.Fraction("efficiency."+c.Name+".memory", c.Eff.Memory)
		ck.NonNeg("efficiency."+c.Name+".overhead_us", c.Eff.OverheadUs)
	}
	if len(h.Efficiency.Ops) > 1024 {
		ck.Addf("efficiency.ops lists more than 1024 ops")
	}
	for _, op := range sortedKeys(h.Efficiency.Ops) {
		c := h.Efficiency.Ops[op]
		if op == "" || len(op) > 128 {
			ck.Addf("efficiency.ops: bad op name %q", op)
			continue
		}
		ck.Fraction("efficiency.ops."+op+".compute", c.Compute)
		ck.Fraction("efficiency.ops."+op+".memory", c.Memory)
		ck.NonNeg("efficiency.ops."+op+".overhead_us", c.OverheadUs)
	}
	e := h.Efficiency
	for _, p := range []struct {
		n string
		v int
	}{{"tile_m", e.TileM}, {"tile_n", e.TileN}, {"blocks_per_sm", e.BlocksPerSM}, {"mem_bytes_per_block", e.MemBytesPerBlock}, {"mem_blocks_per_sm", e.MemBlocksPerSM}} {
		ck.IntIn("efficiency."+p.n, p.v, 1, 1<<20)
	}
	return ck.Err(fmt.Sprintf("invalid hardware %q", h.Name))
}

// namedNum is a hardware number with its JSON name.
type namedNum struct {
	n string
	v float64
}

// nonNegEach requires each number of fs finite and >= 0, in order, its name
// prefixed by prefix.
func nonNegEach(ck *fieldcheck.Check, prefix string, fs []namedNum) {
	for _, f := range fs {
		ck.NonNeg(prefix+f.n, f.v)
	}
}

// NamedClass is one op class's efficiency with its JSON name.
type NamedClass struct {
	Name string
	Eff  ClassEfficiency
}

// Classes lists the per-class efficiencies in schema order.
func (e Efficiency) Classes() []NamedClass {
	return []NamedClass{
		{"matmul", e.MatMul}, {"conv", e.Conv}, {"depthwise", e.Depthwise}, {"attention", e.Attention}, {"rnn", e.RNN},
		{"elementwise", e.Elementwise}, {"reduction", e.Reduction}, {"normalization", e.Normalization},
		{"data_movement", e.DataMovement}, {"other", e.Other},
	}
}

// Class returns the efficiency of the class called name ("other" for an
// unknown name).
func (e Efficiency) Class(name string) ClassEfficiency {
	for _, c := range e.Classes() {
		if c.Name == name {
			return c.Eff
		}
	}
	return e.Other
}

func sortedKeys(m map[string]ClassEfficiency) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// MathMode is the kind of arithmetic unit an op runs on.
type MathMode uint8

// Math modes: tensor cores (matrix ops) or SIMD / CUDA cores (vector ops).
const (
	Vector MathMode = iota
	Tensor
)

// PeakFLOPS returns the peak FLOP/s for dt in mode, the name of the math
// mode it used, and a note when it had to fall back (empty otherwise).
// tf32 selects TF32 tensor cores for float32 matrix ops.
func (h *Hardware) PeakFLOPS(dt ir.DType, mode MathMode, tf32 bool) (flops float64, used string, note string) {
	p := h.PeakTFLOPS
	if mode == Vector {
		if dt == ir.Float64 && p.FP64 > 0 {
			return p.FP64 * 1e12, "fp64", ""
		}
		if dt == ir.Float16 && p.FP16Vector > 0 {
			return p.FP16Vector * 1e12, "fp16 (CUDA cores)", ""
		}
		return p.FP32 * 1e12, "fp32", ""
	}
	type cand struct {
		name string
		v    float64
	}
	var chain []cand
	switch dt {
	case ir.Float64:
		chain = []cand{{"fp64", p.FP64}, {"fp32", p.FP32}}
	case ir.Float16:
		chain = []cand{{"fp16", p.FP16}, {"fp32", p.FP32}}
	case ir.BFloat16:
		// bfloat16 has float32's exponent: hardware without bf16 units
		// upcasts it to float32 (float16 would overflow), as cuBLAS and
		// PyTorch do on Volta
		chain = []cand{{"bf16", p.BF16}, {"fp32", p.FP32}}
	case ir.Float8E4M3FN, ir.Float8E4M3FNUZ, ir.Float8E5M2, ir.Float8E5M2FNUZ:
		chain = []cand{{"fp8", p.FP8}, {"fp16", p.FP16}, {"fp32", p.FP32}}
	case ir.Int8, ir.Uint8, ir.Int4, ir.Uint4, ir.Int2, ir.Uint2:
		chain = []cand{{"int8", p.INT8}, {"fp16", p.FP16}, {"fp32", p.FP32}}
	case ir.Float32:
		if tf32 {
			chain = []cand{{"tf32", p.TF32}, {"fp32", p.FP32}}
		} else {
			chain = []cand{{"fp32", p.FP32}}
		}
	default:
		chain = []cand{{"fp32", p.FP32}}
	}
	for i, c := range chain {
		if c.v > 0 {
			if i > 0 {
				note = fmt.Sprintf("%s has no %s units: %s matrix ops run as %s (upcast), costed at its %s peak", h.Name, chain[0].name, dt, unitDType(c.name), c.name)
			}
			return c.v * 1e12, c.name, note
		}
	}
	return p.FP32 * 1e12, "fp32", ""
}

// WriteJSON writes h as indented JSON (the --hw file schema).
func (h *Hardware) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// unitDType names a peak's unit as the dtype it computes in ("fp16":
// float16).
func unitDType(unit string) string {
	switch unit {
	case "fp64":
		return "float64"
	case "fp32":
		return "float32"
	case "fp16":
		return "float16"
	case "bf16":
		return "bfloat16"
	case "fp8":
		return "float8"
	}
	return unit
}

// RunsAs says what h runs dt's matrix math as when h has no units of dt
// ("bfloat16 runs as float32 on v100 (no bf16 units)"), or "" when h
// runs dt natively (or dt is not a matrix dtype with units of its own).
func (h *Hardware) RunsAs(dt ir.DType, tf32 bool) string {
	_, used, note := h.PeakFLOPS(dt, Tensor, tf32)
	if note == "" {
		return ""
	}
	return fmt.Sprintf("%s runs as %s on %s (it has no %s units)", dt, unitDType(used), h.Name, nativeUnit(dt))
}

// nativeUnit names the units that run dt's matrix math natively.
func nativeUnit(dt ir.DType) string {
	switch dt {
	case ir.BFloat16:
		return "bf16"
	case ir.Float16:
		return "fp16"
	case ir.Float64:
		return "fp64"
	case ir.Float8E4M3FN, ir.Float8E4M3FNUZ, ir.Float8E5M2, ir.Float8E5M2FNUZ:
		return "fp8"
	}
	return "int8"
}
