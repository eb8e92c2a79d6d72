package eval

// This file holds the arithmetic the attention kernels share: the softmax
// of one query's scores and its weighted sum of value rows, and the
// rotary-embedding rotation of one head.

import "math"

// softmaxAttend turns row, one query's scores whose maximum is m, into
// exp(row[j]-m) in place and writes the softmax-weighted sum of the value
// rows into out[:dv]: out[d] = sum over j of row[j]/sum * v[j*stride+d].
// A row that is all -inf gives NaN, as the kernels that use it always
// have (Attention, which must give zeros, has its own loop).
func softmaxAttend(row []float64, m float64, v []float64, stride, dv int, out []float64) {
	sum := 0.0
	for j := range row {
		row[j] = math.Exp(row[j] - m)
		sum += row[j]
	}
	for d := 0; d < dv; d++ {
		acc := 0.0
		for j := range row {
			acc += row[j] / sum * v[j*stride+d]
		}
		out[d] = acc
	}
}

// rotateHead applies the rotary embedding to one head: each pair of
// elements (i, i+half), or (2i, 2i+1) when interleaved, for i < half, is
// read from src and written to dst (which may be src) rotated by the
// angle whose cosine and sine are cos[i] and sin[i]. at maps a position
// within the head to its offset in src and dst.
func rotateHead(dst, src []float64, at func(d int) int, cos, sin []float64, half int, interleaved bool) {
	for i := 0; i < half; i++ {
		i1, i2 := i, i+half
		if interleaved {
			i1, i2 = 2*i, 2*i+1
		}
		x1, x2 := src[at(i1)], src[at(i2)]
		co, si := cos[i], sin[i]
		dst[at(i1)], dst[at(i2)] = x1*co-x2*si, x2*co+x1*si
	}
}
