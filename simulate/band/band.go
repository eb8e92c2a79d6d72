// Package band gives every prediction an error band from the evidence
// behind the hardware it used: the published-measurement set per GPU
// preset and op class (testdata/published, regenerated into published.json
// by `go test ./simulate -run PublishedBands -update-bands`), the held-out
// residuals of a calibrated CPU file (CalibratedCPU), and the anchor
// errors per framework for the LLM planner (LLM). A band is a relative
// half-width: the evidence says predictions of this kind were off by
// about Pct (a mean absolute error, not a bound), and Source says which
// evidence that is.
package band

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/wolong-dev/wolong/simulate/hw"
)

// Band is the error band of one prediction.
type Band struct {
	// Pct is the relative half-width (0.25: ±25%).
	Pct float64 `json:"pct"`
	// Source names the evidence: which set, how many cases, where.
	Source string `json:"source"`
	// Cases is the number of measurements behind Pct (0: a documented
	// default, no measurement).
	Cases int `json:"cases"`
}

// Stat is the error of a set of published cases.
type Stat struct {
	Cases int     `json:"cases"`
	MAPE  float64 `json:"mape"`  // mean absolute relative error
	Worst float64 `json:"worst"` // largest absolute relative error
}

// Preset is the evidence for one GPU preset: all its cases, and by op
// class of the one-op cases ("model" for whole-model cases).
type Preset struct {
	All     Stat            `json:"all"`
	ByClass map[string]Stat `json:"by_class"`
}

// Published is the published-set evidence (published.json).
type Published struct {
	Note    string            `json:"note"`
	All     Stat              `json:"all"`
	Presets map[string]Preset `json:"presets"`
}

//go:embed published.json
var publishedJSON []byte

// published parses publishedJSON on first use (a command that states no
// band does not pay for it at start-up). The file is embedded and checked
// by the package's tests, so a parse error is a build defect.
var published = sync.OnceValue(func() Published {
	var p Published
	if err := json.Unmarshal(publishedJSON, &p); err != nil {
		panic("band: published.json: " + err.Error())
	}
	return p
})

// PublishedSet returns the published-set evidence (a copy of its top
// level).
func PublishedSet() Published { return published() }

// noEvidence is the band of a prediction nothing measured stands behind.
const noEvidence = 0.5

// ForRun is the band of a single-device prediction of totalMs on h whose
// device time splits by op class as classS (seconds per cost class, any
// scale).
func ForRun(h *hw.Hardware, classS map[string]float64, totalMs float64) Band {
	if h == nil {
		return Band{Pct: noEvidence, Source: "no hardware: default ±50%"}
	}
	if h.Kind == "cpu" {
		if h.Fitted != nil {
			return CalibratedCPU(h, totalMs)
		}
		return Band{Pct: noEvidence, Source: fmt.Sprintf("%s is not a calibrated file and no measurement backs it: default ±50%% (calibrate the host: wolong calibrate --host)", h.Name)}
	}
	return forGPU(h.Name, classS)
}

// shrinkCases is the weight, in cases, of the whole set's MAPE in a
// preset's or class's: an error measured on n cases counts as
// (n*own + shrinkCases*whole set) / (n + shrinkCases), so that two lucky
// cases do not make a band of 1%.
const shrinkCases = 3

func shrink(s Stat) float64 {
	return (float64(s.Cases)*s.MAPE + shrinkCases*published().All.MAPE) / float64(s.Cases+shrinkCases)
}

// forGPU weights the preset's per-class errors (each shrunk toward the
// whole set's) by the run's time per class; classes without a case take
// the preset's all-case error, a preset without cases the whole set's.
func forGPU(name string, classS map[string]float64) Band {
	p, ok := published().Presets[name]
	if !ok || p.All.Cases == 0 {
		a := published().All
		return Band{Pct: a.MAPE, Cases: a.Cases, Source: fmt.Sprintf("no published measurement on %s: the MAPE of the whole GPU set (%d cases, testdata/published)", name, a.Cases)}
	}
	var total, sum float64
	used := map[string]int{}
	keys := make([]string, 0, len(classS))
	for c := range classS {
		keys = append(keys, c)
	}
	sort.Strings(keys) // a fixed summation order: the band is deterministic
	for _, c := range keys {
		s := classS[c]
		if s <= 0 {
			continue
		}
		st, ok := p.ByClass[c]
		if !ok || st.Cases == 0 {
			st = p.All
			c = "all"
		}
		total += s
		sum += s * shrink(st)
		used[c] = st.Cases
	}
	if total <= 0 {
		return Band{Pct: shrink(p.All), Cases: p.All.Cases, Source: fmt.Sprintf("published-set MAPE on %s (%d cases, shrunk toward the whole set's; testdata/published)", name, p.All.Cases)}
	}
	var parts []string
	for c, n := range used {
		parts = append(parts, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(parts)
	return Band{Pct: sum / total, Cases: p.All.Cases, Source: fmt.Sprintf("published-set MAPE on %s by op class, weighted by this run's time per class, each shrunk toward the whole set's %.1f%% by %d cases (cases: %s; testdata/published)", name, 100*published().All.MAPE, shrinkCases, strings.Join(parts, ", "))}
}

// calibratedCPUDefault is the band of a calibrated CPU file that records
// no expected error of its own (the shipped cpu and cpu-1t presets, files
// fitted before bands were recorded): the family-held-out MAPE of
// `calibrate --ort-profile` (TestHeldOutCalibration: fitted on one fold
// of model families, validated on the other; docs/calibration-protocol.md).
// 22.0% on the records and the cpu-1t of 2026-12-07 (28.4% before). A
// preset's figure on its own development set is not used: those models
// guided its cost model.
const calibratedCPUDefault = 0.220

// CalibratedCPU is the band of a prediction of predictedMs on a
// calibrated CPU file h: the file's expected error for the prediction's
// size class (hw.Hardware.ExpectedError, from the held-out residuals
// `calibrate --host` records), else calibratedCPUDefault.
func CalibratedCPU(h *hw.Hardware, predictedMs float64) Band {
	if e, ok := h.ExpectedError(predictedMs); ok {
		return Band{Pct: e.Pct / 100, Cases: e.Models, Source: fmt.Sprintf("%s's expected error for predictions %s: mean |error| of %d held-out models (90%% within %.0f%%), %s", h.Name, e.Class, e.Models, e.P90Pct, e.Source)}
	}
	return Band{Pct: calibratedCPUDefault, Cases: 52, Source: fmt.Sprintf("%s records no expected error of its own: the family-held-out MAPE of calibrate --ort-profile (22.0%% on 52 shared models, each predicted by a fit that saw none of its family; docs/calibration-protocol.md)", h.Name)}
}

// llmAnchors are the anchor errors per framework preset of the LLM
// planner (README, "Anchors"; tests in simulate/cluster).
var llmAnchors = map[string]Band{
	"megatron-2021": {Pct: 0.062, Cases: 6, Source: "Megatron-LM SC21 table rows, worst row within 6.2% (simulate/cluster TestMegatron*)"},
	"megatron-core": {Pct: 0.124, Cases: 8, Source: "published Megatron-Core runs (Llama 3 405B, Nemotron-4 340B, GPT 530B), worst within 12.4% (simulate/cluster TestPublishedRuns)"},
	"deepspeed":     {Pct: 0.124, Cases: 3, Source: "published DeepSpeed runs (BLOOM 176B, MT-NLG 530B), worst within 12.4% (simulate/cluster TestPublishedRuns)"},
	"fsdp":          {Pct: 0.85, Cases: 2, Source: "FSDP runs outside the anchors: NeMo Llama 3 70B +17%, TorchTitan Llama 3.1 8B +85% throughput (README, known gaps)"},
	"serve":         {Pct: 0.133, Cases: 19, Source: "TensorRT-LLM published static-batching rows, within 13.3% (simulate/cluster TestServeAnchors)"},
}

// LLM is the band of an LLM planner prediction under framework (a
// framework preset name, or "serve" for the serving simulator).
func LLM(framework string) Band {
	if b, ok := llmAnchors[strings.ToLower(framework)]; ok {
		return b
	}
	return Band{Pct: noEvidence, Source: fmt.Sprintf("no anchor for framework %q: default ±50%%", framework)}
}

// Cluster is the band of a data-parallel or pipeline cluster prediction:
// the Horovod scaling-efficiency anchors (README, Anchors) bound the
// communication model; the compute part carries the device's band.
func Cluster(device Band) Band {
	return Band{Pct: device.Pct + 0.1, Cases: device.Cases + 3, Source: device.Source + "; plus ±10% for communication (Horovod scaling anchors within 0.06-0.10 of efficiency: simulate/cluster anchor tests)"}
}
