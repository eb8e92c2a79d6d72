package eval

// This file holds the sliding-window index arithmetic shared by the
// convolution, pooling, ConvTranspose and Col2Im kernels.

// offset is the flat offset, by strides st, of the position
// pos[d]*stride[d] - padB[d] + k[d]*dil[d] in a spatial extent of size, or
// -1 when it falls outside on any axis. For a convolution or pool, pos is
// an output position, k a kernel offset and size w.in: the input element
// read. For ConvTranspose and Col2Im, pos is an input position (a block)
// and size w.out (the image): the output element written.
func (w *window) offset(pos, k, size, st []int) int {
	off := 0
	for d := range pos {
		i := pos[d]*w.stride[d] - w.padB[d] + k[d]*w.dil[d]
		if i < 0 || i >= size[d] {
			return -1
		}
		off += i * st[d]
	}
	return off
}

// convTransposeGeometry computes ConvTranspose's window over input
// spatial dims in with the given kernel: strides, dilations, the pads
// (given, from auto_pad, or from output_shape) and the output sizes
// stride*(in-1) + output_padding + dilated kernel - pads.
func convTransposeGeometry(c *Ctx, in, kernel []int) (*window, error) {
	r := len(in)
	st, _ := c.Ints("strides")
	dl, _ := c.Ints("dilations")
	pads, _ := c.Ints("pads")
	op, _ := c.Ints("output_padding")
	os, hasOS := c.Ints("output_shape")
	w := &window{in: in, k: kernel, out: make([]int, r), stride: make([]int, r), dil: make([]int, r), padB: make([]int, r), padE: make([]int, r)}
	stride, dil, padB, padE, outSp := w.stride, w.dil, w.padB, w.padE, w.out
	auto := c.Str("auto_pad", "NOTSET")
	for i := 0; i < r; i++ {
		stride[i], dil[i] = 1, 1
		if i < len(st) {
			stride[i] = int(st[i])
		}
		if i < len(dl) {
			dil[i] = int(dl[i])
		}
		if stride[i] <= 0 || dil[i] <= 0 {
			return nil, c.Errorf("invalid strides or dilations")
		}
		opad := 0
		if i < len(op) {
			opad = int(op[i])
		}
		ek := (kernel[i]-1)*dil[i] + 1
		if len(pads) == 2*r {
			padB[i], padE[i] = int(pads[i]), int(pads[i+r])
		}
		full := stride[i]*(in[i]-1) + opad + ek
		if hasOS && len(os) >= r {
			o := int(os[len(os)-r+i])
			total := full - o
			if auto == "SAME_UPPER" {
				padB[i], padE[i] = floorDiv(total, 2), total-floorDiv(total, 2)
			} else {
				padB[i], padE[i] = total-floorDiv(total, 2), floorDiv(total, 2)
			}
		} else if auto == "SAME_UPPER" || auto == "SAME_LOWER" {
			o := in[i] * stride[i]
			total := max(0, full-o)
			if auto == "SAME_UPPER" {
				padB[i] = total / 2
			} else {
				padB[i] = total - total/2
			}
			padE[i] = total - padB[i]
		}
		outSp[i] = full - padB[i] - padE[i]
		if outSp[i] < 0 {
			return nil, c.Errorf("negative output size")
		}
	}
	return w, nil
}
