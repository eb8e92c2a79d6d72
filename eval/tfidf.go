package eval

// This file implements TfIdfVectorizer.

import (
	"strconv"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

func registerTfidf() {
	register(kernelTfIdf, "TfIdfVectorizer")
}

func kernelTfIdf(c *Ctx, in []*Tensor) ([]*Tensor, error) {
	x := in[0]
	if x.Rank() < 1 || x.Rank() > 2 {
		return nil, c.Errorf("X must be 1-D or 2-D, got %s", x)
	}
	minN, maxN := int(c.Int("min_gram_length", 1)), int(c.Int("max_gram_length", 1))
	maxSkip := int(c.Int("max_skip_count", 0))
	mode := c.Str("mode", "TF")
	counts, _ := c.Ints("ngram_counts")
	indexes, _ := c.Ints("ngram_indexes")
	weights, _ := c.Floats("weights")
	if minN < 1 || maxN < minN || maxSkip < 0 {
		return nil, c.Errorf("invalid gram lengths %d..%d or skip %d", minN, maxN, maxSkip)
	}
	// Pool entries as strings (ints printed), grouped by n-gram length.
	var pool []string
	if p, ok := c.Ints("pool_int64s"); ok {
		for _, v := range p {
			pool = append(pool, strconv.FormatInt(v, 10))
		}
	} else if p, ok := c.Strs("pool_strings"); ok {
		pool = p
	} else {
		return nil, c.Errorf("no pool")
	}
	tok := func(i int) string {
		if x.cls() == clsS {
			return x.S[i]
		}
		return strconv.FormatInt(x.Int64s()[i], 10)
	}
	// Map each pool n-gram (joined with \x00) to its output index.
	gram := map[string]int{}
	k := 0
	for n := 1; n <= len(counts); n++ {
		start := int(counts[n-1])
		end := len(pool)
		if n < len(counts) {
			end = int(counts[n])
		}
		if start < 0 || end > len(pool) || start > end || (end-start)%n != 0 {
			return nil, c.Errorf("ngram_counts %v do not fit the pool of %d", counts, len(pool))
		}
		for p := start; p < end; p += n {
			if k >= len(indexes) {
				return nil, c.Errorf("ngram_indexes too short")
			}
			gram[strings.Join(pool[p:p+n], "\x00")] = int(indexes[k])
			k++
		}
	}
	width := 0
	for _, v := range indexes {
		width = max(width, int(v)+1)
	}
	rows, cols := 1, x.Len()
	shape := []int{width}
	if x.Rank() == 2 {
		rows, cols = x.Shape[0], x.Shape[1]
		shape = []int{rows, width}
	}
	out, err := c.alloc(ir.Float32, shape)
	if err != nil {
		return nil, err
	}
	// weights[k] belongs to the k-th pool n-gram, whose output is indexes[k].
	wOut := make([]float64, width)
	for i := range wOut {
		wOut[i] = 1
	}
	for k, o := range indexes {
		if k < len(weights) {
			wOut[o] = float64(weights[k])
		}
	}
	cnt := make([]float64, width)
	for r := 0; r < rows; r++ {
		for i := range cnt {
			cnt[i] = 0
		}
		for n := minN; n <= maxN; n++ {
			for skip := 0; skip <= maxSkip; skip++ {
				if n == 1 && skip > 0 {
					break // unigrams are counted once
				}
				step := skip + 1
				for s := 0; s+(n-1)*step < cols; s++ {
					parts := make([]string, n)
					for j := 0; j < n; j++ {
						parts[j] = tok(r*cols + s + j*step)
					}
					if idx, ok := gram[strings.Join(parts, "\x00")]; ok {
						cnt[idx]++
					}
				}
			}
		}
		for i, v := range cnt {
			w := wOut[i]
			var o float64
			switch mode {
			case "TF":
				o = v
			case "IDF":
				if v > 0 {
					o = w
				}
			case "TFIDF":
				o = v * w
			default:
				return nil, c.Errorf("unknown mode %q", mode)
			}
			out.F[r*width+i] = float32(o)
		}
	}
	return []*Tensor{out}, nil
}
