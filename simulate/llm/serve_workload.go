package llm

// This file implements a serving workload: the requests of `profile
// --serve --requests N` (arrivals at a Poisson rate or all at once,
// prompt and output lengths fixed or drawn from a distribution, seeded)
// or read from a file (--workload FILE: one request per JSONL line or CSV
// row with its arrival time, prompt and output tokens).

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// WorkloadRequest is one request of a workload file.
type WorkloadRequest struct {
	// ArrivalS is when it arrives, seconds from the start.
	ArrivalS float64 `json:"arrival_s"`
	Prompt   int     `json:"prompt"`
	Output   int     `json:"output"`
	// PrefixGroup > 0 names requests whose first PrefixTokens prompt
	// tokens are the same (prefix caching reuses them).
	PrefixGroup  int `json:"prefix_group,omitempty"`
	PrefixTokens int `json:"prefix_tokens,omitempty"`
}

// maxWorkloadRequests bounds a workload (more is an input error).
const maxWorkloadRequests = 1 << 20

// ReadWorkload reads requests from r: JSON lines of WorkloadRequest
// ({"arrival_s":0.5,"prompt":128,"output":64}; "timestamp" in ms,
// "input_tokens" / "output_tokens" accepted as the same), or CSV with a
// header naming arrival_s, prompt, output (and optionally prefix_group,
// prefix_tokens). name is for errors.
func ReadWorkload(r io.Reader, name string) ([]WorkloadRequest, error) {
	br := bufio.NewReader(r)
	first, err := br.Peek(1)
	if err != nil {
		return nil, fmt.Errorf("%s: empty workload", name)
	}
	var reqs []WorkloadRequest
	if first[0] == '{' {
		reqs, err = readWorkloadJSONL(br, name)
	} else {
		reqs, err = readWorkloadCSV(br, name)
	}
	if err != nil {
		return nil, err
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("%s: no requests", name)
	}
	return reqs, nil
}

// workloadLine is a JSONL line with the spellings other tools write.
type workloadLine struct {
	ArrivalS     *float64 `json:"arrival_s"`
	TimestampMs  *float64 `json:"timestamp"`
	Prompt       int      `json:"prompt"`
	InputTokens  int      `json:"input_tokens"`
	Output       int      `json:"output"`
	OutputTokens int      `json:"output_tokens"`
	PrefixGroup  int      `json:"prefix_group"`
	PrefixTokens int      `json:"prefix_tokens"`
}

func readWorkloadJSONL(r *bufio.Reader, name string) ([]WorkloadRequest, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []WorkloadRequest
	line := 0
	for sc.Scan() {
		line++
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		var l workloadLine
		if err := json.Unmarshal([]byte(b), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		w := WorkloadRequest{Prompt: max(l.Prompt, l.InputTokens), Output: max(l.Output, l.OutputTokens), PrefixGroup: l.PrefixGroup, PrefixTokens: l.PrefixTokens}
		switch {
		case l.ArrivalS != nil:
			w.ArrivalS = *l.ArrivalS
		case l.TimestampMs != nil:
			w.ArrivalS = *l.TimestampMs / 1e3
		}
		if err := w.check(); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if out = append(out, w); len(out) > maxWorkloadRequests {
			return nil, fmt.Errorf("%s: more than %d requests", name, maxWorkloadRequests)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return out, nil
}

func readWorkloadCSV(r io.Reader, name string) ([]WorkloadRequest, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	pick := func(names ...string) int {
		for _, n := range names {
			if i, ok := col[n]; ok {
				return i
			}
		}
		return -1
	}
	ia, ip, io_ := pick("arrival_s", "arrival"), pick("prompt", "input_tokens"), pick("output", "output_tokens")
	ig, it := pick("prefix_group"), pick("prefix_tokens")
	if ia < 0 || ip < 0 || io_ < 0 {
		return nil, fmt.Errorf("%s: the CSV header must name arrival_s, prompt and output (has %s)", name, strings.Join(head, ", "))
	}
	var out []WorkloadRequest
	for row := 2; ; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		num := func(i int) (float64, error) {
			if i < 0 {
				return 0, nil
			}
			return strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
		}
		var v [5]float64
		for j, i := range []int{ia, ip, io_, ig, it} {
			if v[j], err = num(i); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, row, err)
			}
		}
		w := WorkloadRequest{ArrivalS: v[0], Prompt: int(v[1]), Output: int(v[2]), PrefixGroup: int(v[3]), PrefixTokens: int(v[4])}
		if v[1] != math.Trunc(v[1]) || v[2] != math.Trunc(v[2]) {
			return nil, fmt.Errorf("%s:%d: token counts must be whole numbers", name, row)
		}
		if err := w.check(); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, row, err)
		}
		if out = append(out, w); len(out) > maxWorkloadRequests {
			return nil, fmt.Errorf("%s: more than %d requests", name, maxWorkloadRequests)
		}
	}
	return out, nil
}

// check validates one request.
func (w WorkloadRequest) check() error {
	switch {
	case math.IsNaN(w.ArrivalS) || math.IsInf(w.ArrivalS, 0) || w.ArrivalS < 0 || w.ArrivalS > 1e9:
		return fmt.Errorf("arrival %g s: want 0..1e9", w.ArrivalS)
	case w.Prompt < 1 || w.Output < 1 || w.Prompt+w.Output > maxServeTokens:
		return fmt.Errorf("prompt %d and output %d tokens: want >= 1 each, %d in all at most", w.Prompt, w.Output, maxServeTokens)
	case w.PrefixGroup < 0 || w.PrefixTokens < 0 || w.PrefixTokens > w.Prompt:
		return fmt.Errorf("prefix group %d of %d tokens: want >= 0 and at most the prompt", w.PrefixGroup, w.PrefixTokens)
	}
	return nil
}

// LengthDist is how generated prompt and output lengths vary about
// --prompt and --output.
type LengthDist string

// Length distributions.
const (
	LengthFixed LengthDist = "fixed" // every request the same (trtllm-bench's token-norm-dist with stdev 0)
	// LengthUniform draws from [0.5, 1.5] x the mean (vLLM's random
	// dataset at --random-range-ratio 0.5).
	LengthUniform LengthDist = "uniform"
	// LengthExponential draws from an exponential of the mean (at least 1
	// token, at most 8 x the mean): a chat trace's long tail.
	LengthExponential LengthDist = "exponential"
)

// ParseLengthDist types --length-dist ("" is fixed).
func ParseLengthDist(s string) (LengthDist, error) {
	if s == "" {
		return LengthFixed, nil
	}
	return parseName("length distribution", s, LengthFixed, LengthUniform, LengthExponential)
}

// genSpec is what generating a workload needs.
type genSpec struct {
	N              int
	Rate           float64 // requests/s; +Inf: all at once
	Prompt, Output int
	Dist           LengthDist
	Seed           uint64
	// PrefixTokens > 0: every prompt starts with the same PrefixTokens
	// tokens (one system prompt), group 1.
	PrefixTokens int
}

// generateWorkload draws the requests of g (deterministic in g.Seed).
func generateWorkload(g genSpec) []serveRequest {
	rng := rand.New(rand.NewPCG(g.Seed, 0x5e7e))
	draw := func(mean int) int {
		m := float64(mean)
		switch g.Dist {
		case LengthUniform:
			return max(1, int(math.Round(m*(0.5+rng.Float64()))))
		case LengthExponential:
			return max(1, min(8*mean, int(math.Round(rng.ExpFloat64()*m))))
		}
		return mean
	}
	out := make([]serveRequest, g.N)
	t := 0.0
	for i := range out {
		if !math.IsInf(g.Rate, 1) && i > 0 {
			t += rng.ExpFloat64() / g.Rate
		}
		r := serveRequest{ArrivalS: t, Prompt: draw(g.Prompt), Output: draw(g.Output)}
		if g.PrefixTokens > 0 {
			r.PrefixGroup, r.PrefixTokens = 1, min(g.PrefixTokens, r.Prompt)
		}
		out[i] = r
	}
	return out
}

// workloadRequests converts a file's requests, sorted by arrival.
func workloadRequests(ws []WorkloadRequest) []serveRequest {
	out := make([]serveRequest, len(ws))
	for i, w := range ws {
		out[i] = serveRequest{ArrivalS: w.ArrivalS, Prompt: w.Prompt, Output: w.Output, PrefixGroup: w.PrefixGroup, PrefixTokens: w.PrefixTokens}
	}
	sortRequests(out)
	return out
}
