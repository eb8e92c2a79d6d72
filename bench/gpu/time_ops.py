#!/usr/bin/env python3
"""Times the ops `wolong microbench MODEL --out ops.json` lists with PyTorch on
a CUDA GPU and writes wolong's --table CSV (op,dtype,input_shapes,attributes,
measured_us,domain,name) for `wolong calibrate --table` / `wolong validate --table`.

    python bench/gpu/time_ops.py ops.json [more.json ...] --out h200_ops.csv [--warmup 10] [--iters 50]

bench/gpu/published_ops.json is a prepared sweep: the ops of the published
GPU cases (testdata/published), run on whatever GPU is lent (see
bench/gpu/README.md).

Each op runs --warmup times, then --iters times, each timed with CUDA events;
the median is written. Ops this script cannot express in PyTorch are listed on
stderr and left out. Not run in the session that wrote it (no GPU was lent).
"""
import argparse, csv, json, statistics, sys

import torch
import torch.nn.functional as F

DT = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
      "float64": torch.float64, "int64": torch.int64, "int32": torch.int32, "int8": torch.int8,
      "uint8": torch.uint8, "bool": torch.bool, "float8e4m3fn": torch.float8_e4m3fn}


def parse_inputs(field, dtype):
    ins = []
    for tok in field.split(";") if field else []:
        if tok == "-":
            ins.append(None); continue
        spec, _, vals = tok.partition("=")
        dims, _, dt = spec.partition(":")
        shape = [] if dims in ("scalar", "") else [int(d) for d in dims.split("x")]
        ins.append({"shape": shape, "dtype": dt or dtype, "values": [float(v) for v in vals.split(",")] if vals else None})
    return ins


def parse_attrs(field):
    out = {}
    for kv in field.split(";") if field else []:
        k, _, v = kv.partition("=")
        if v.startswith("'"):
            out[k] = v.strip("'")
        elif any(c in v for c in ".eEnN"):
            out[k] = [float(x) for x in v.split(",")] if "," in v else float(v)
        else:
            out[k] = [int(x) for x in v.split(",")] if "," in v else int(v)
    return out


def make(inp, dev):
    if inp is None:
        return None
    dt = DT[inp["dtype"]]
    if inp["values"] is not None:
        return torch.tensor(inp["values"], device=dev).to(dt).reshape(inp["shape"])
    if dt == torch.float8_e4m3fn:
        return torch.randn(inp["shape"], device=dev).to(dt)
    if dt.is_floating_point:
        return torch.randn(inp["shape"], device=dev, dtype=dt)
    return torch.randint(0, 4, inp["shape"], device=dev).to(dt)


def build(op, x, a):
    """Returns a zero-argument callable running the op, or None."""
    if op == "MatMul" and x[0].dtype == torch.float8_e4m3fn:
        # fp8 GEMM: torch._scaled_mm wants B column-major, per-tensor scales
        one = torch.ones((), device=x[0].device)
        b = x[1].t().contiguous().t()
        return lambda: torch._scaled_mm(x[0], b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    if op in ("MatMul",):
        return lambda: torch.matmul(x[0], x[1])
    if op == "Gemm":
        A = x[0].t() if a.get("transA") else x[0]
        B = x[1].t() if a.get("transB") else x[1]
        C = x[2] if len(x) > 2 and x[2] is not None else None
        return (lambda: torch.addmm(C, A, B)) if C is not None else (lambda: A @ B)
    if op == "Conv":
        nd = x[1].dim() - 2
        pads = a.get("pads", [0] * 2 * nd)
        if pads[:nd] != pads[nd:]:
            return None
        fn = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}.get(nd)
        b = x[2] if len(x) > 2 else None
        return lambda: fn(x[0], x[1], b, stride=a.get("strides", 1), padding=pads[:nd], dilation=a.get("dilations", 1), groups=a.get("group", 1))
    binary = {"Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": torch.div, "Pow": torch.pow, "Max": torch.maximum, "Min": torch.minimum}
    if op in binary:
        return lambda: binary[op](x[0], x[1])
    unary = {"Relu": torch.relu, "Sigmoid": torch.sigmoid, "Tanh": torch.tanh, "Exp": torch.exp, "Log": torch.log, "Sqrt": torch.sqrt,
             "Neg": torch.neg, "Abs": torch.abs, "Erf": torch.erf, "Identity": torch.clone, "Reciprocal": torch.reciprocal}
    if op in unary:
        return lambda: unary[op](x[0])
    if op == "Gelu":
        return lambda: F.gelu(x[0])
    if op == "Softmax":
        return lambda: torch.softmax(x[0], dim=a.get("axis", -1))
    if op == "LayerNormalization":
        axis = a.get("axis", -1) % x[0].dim()
        shp = x[0].shape[axis:]
        return lambda: F.layer_norm(x[0], shp, x[1].reshape(shp) if x[1].numel() == shp.numel() else None, None, a.get("epsilon", 1e-5))
    if op == "Transpose":
        perm = a.get("perm", list(reversed(range(x[0].dim()))))
        return lambda: x[0].permute(perm).contiguous()
    if op in ("ReduceMean", "ReduceSum"):
        axes = a.get("axes") or (x[1].tolist() if len(x) > 1 and x[1] is not None else list(range(x[0].dim())))
        f = torch.mean if op == "ReduceMean" else torch.sum
        return lambda: f(x[0], dim=axes, keepdim=bool(a.get("keepdims", 1)))
    if op == "Concat":
        return lambda: torch.cat([t for t in x if t is not None], dim=a.get("axis", 0))
    if op in ("MaxPool", "AveragePool"):
        k = a["kernel_shape"]; nd = len(k)
        pads = a.get("pads", [0] * 2 * nd)
        fn = F.max_pool2d if op == "MaxPool" else F.avg_pool2d
        if nd != 2 or pads[:nd] != pads[nd:]:
            return None
        return lambda: fn(x[0], k, stride=a.get("strides", k), padding=pads[:nd])
    if op == "Attention" and all(t is not None and t.dim() == 4 for t in x[:3]) and len(x) == 3:
        # ai.onnx Attention (opset 23), Q/K/V [B, heads, S, d]: PyTorch's
        # fused attention (FlashAttention on sm80+)
        return lambda: F.scaled_dot_product_attention(x[0], x[1], x[2])
    if op in ("LSTM", "GRU", "RNN"):
        # X [T, B, I], W [dirs, G*H, I], R [dirs, G*H, H]: one cuDNN call
        # over the sequence, as ONNX Runtime's CUDA RNN ops make
        t_, b_, i_ = x[0].shape
        h = a.get("hidden_size", x[2].shape[2])
        bidir = a.get("direction", "forward") == "bidirectional"
        cls = {"LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU, "RNN": torch.nn.RNN}[op]
        m = cls(i_, h, bidirectional=bidir).to(device=x[0].device, dtype=x[0].dtype).requires_grad_(False)
        return lambda: m(x[0])
    if op == "GlobalAveragePool":
        return lambda: x[0].mean(dim=list(range(2, x[0].dim())), keepdim=True)
    return None


def time_op(fn, warmup, iters):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1000.0)  # ms -> us
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ops", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--iters", type=int, default=50)
    args = ap.parse_args()
    dev = torch.device("cuda")
    rows, seen = [], set()
    for path in args.ops:
        for o in json.load(open(path))["ops"]:
            key = (o.get("domain", ""), o["op"], o["dtype"], o["input_shapes"], o["attributes"])
            if key in seen:
                continue
            seen.add(key)
            try:
                x = [make(i, dev) for i in parse_inputs(o["input_shapes"], o["dtype"])]
                fn = build(o["op"], x, parse_attrs(o["attributes"]))
                if fn is None or o.get("domain"):
                    print(f"skipped {o['op']} {o['input_shapes']}: not expressible here", file=sys.stderr)
                    continue
                us = time_op(fn, args.warmup, args.iters)
            except Exception as e:  # a shape PyTorch rejects
                print(f"skipped {o['op']} {o['input_shapes']}: {e}", file=sys.stderr)
                continue
            rows.append([o["op"], o["dtype"], o["input_shapes"], o["attributes"], f"{us:.3f}", o.get("domain", ""), ""])
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["op", "dtype", "input_shapes", "attributes", "measured_us", "domain", "name"])
        w.writerows(rows)
    print(f"{len(rows)} ops timed -> {args.out}")


if __name__ == "__main__":
    main()
