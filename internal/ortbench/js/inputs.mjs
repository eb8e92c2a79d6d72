// The deterministic model inputs of wolong's ONNX Runtime scripts
// (measure.mjs here; bench/ort/profile.mjs and run.mjs import it from the
// repo): one mulberry32 stream per model, inputs in order (filled inputs do
// not draw), elements in row-major order; floats (u>>>8)/2^23 - 1, integers
// u % 10, bools u & 1, as eval.RandomTensor draws them. It does not load
// onnxruntime-node: callers pass its Tensor class. wolong embeds this file
// (internal/ortbench) and writes it beside measure.mjs.

// mulberry32 returns a generator of uint32 values seeded with seed.
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

// halfSign is the float16 bits of a value's sign step: 1.0 (0x3c00) for a
// positive value, else 0. The latency and profile scripts feed float16
// inputs this way (the timings do not depend on the values).
export const halfSign = (v) => 0x3c00 * (v > 0);

// f32ToF16 converts a number to IEEE half bits, rounding to nearest even:
// the float16 encoding for scripts whose outputs are compared.
const f32buf = new Float32Array(1);
const u32buf = new Uint32Array(f32buf.buffer);
export function f32ToF16(v) {
  f32buf[0] = v;
  const b = u32buf[0];
  const sign = (b >>> 16) & 0x8000;
  let exp = ((b >>> 23) & 0xff) - 127 + 15;
  let mant = b & 0x7fffff;
  if ((b & 0x7fffffff) > 0x7f800000) return sign | 0x7e00;
  if (exp >= 0x1f) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    const half = 1 << (shift - 1);
    let r = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    if (rem > half || (rem === half && (r & 1))) r++;
    return sign | r;
  }
  let r = (exp << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (r & 1))) r++;
  return sign | r;
}

// makeInput builds one input {name, dtype, shape, fill?} as a Tensor
// (onnxruntime-node's class), drawing from next unless it has a fill; half
// encodes float16 elements (default halfSign). It throws on a dtype it does
// not handle.
export function makeInput(Tensor, next, inp, half = halfSign) {
  const n = inp.shape.reduce((a, b) => a * b, 1);
  const fill = inp.fill;
  const num = () => (fill === undefined ? ((next() >>> 8) / 8388608) - 1 : fill);
  const int = () => (fill === undefined ? next() % 10 : fill);
  switch (inp.dtype) {
    case 'float32': return new Tensor('float32', Float32Array.from({ length: n }, num), inp.shape);
    case 'float64': return new Tensor('float64', Float64Array.from({ length: n }, num), inp.shape);
    case 'float16': return new Tensor('float16', Uint16Array.from({ length: n }, () => half(num())), inp.shape);
    case 'int64': return new Tensor('int64', BigInt64Array.from({ length: n }, () => BigInt(int())), inp.shape);
    case 'int32': return new Tensor('int32', Int32Array.from({ length: n }, int), inp.shape);
    case 'int8': return new Tensor('int8', Int8Array.from({ length: n }, int), inp.shape);
    case 'uint8': return new Tensor('uint8', Uint8Array.from({ length: n }, int), inp.shape);
    case 'bool': return new Tensor('bool', Uint8Array.from({ length: n }, () => (fill === undefined ? next() & 1 : (fill ? 1 : 0))), inp.shape);
  }
  throw new Error(`input ${inp.name}: dtype ${inp.dtype} not handled`);
}
