package ir

// This file declares the facts of the ai.onnx ops that reshape, move, gather, scatter or generate tensors, and the views
// (see ops.go for what each field means).

func tensorOps() []OpInfo {
	return rows(
		like("", OpInfo{In: ar(1, 1), Out: ar(1, 1), Cost: CostDataMovement},
			"Bernoulli", "BlackmanWindow", "ConstantOfShape", "Crop", "EyeLike", "HammingWindow", "HannWindow",
			"ImageDecoder", "Multinomial", "NonZero", "RandomNormalLike", "RandomUniformLike"),
		like("", OpInfo{In: ar(2, 2), Out: ar(1, 1), Cost: CostDataMovement},
			"CenterCropPad", "GatherElements", "GatherND", "GridSample", "ReverseSequence"),
		like("", OpInfo{In: ar(3, 3), Out: ar(1, 1), Cost: CostDataMovement},
			"Col2Im", "OneHot", "Range", "Scatter", "ScatterElements", "ScatterND"),
		like("", OpInfo{In: ar(1, 1), Out: ar(1, 1), Pattern: Injective, Cost: CostDataMovement},
			"DepthToSpace", "SpaceToDepth", "Transpose"),
		[]OpInfo{
			{Key: op("AffineGrid"), In: ar(2, 2), Out: ar(1, 1), Cost: CostDataMovement, Types: floatX},
			{Key: op("BitCast"), In: ar(1, 1), Out: ar(1, 1), Exec: ExecView},
			{Key: op("Compress"), In: ar(2, 2), Out: ar(1, 1), Cost: CostDataMovement, Types: secondBool},
			{Key: op("Concat"), In: ar(1, -1), Out: ar(1, 1), Pattern: Injective, Cost: CostDataMovement},
			{Key: op("DFT"), In: ar(1, 3), Out: ar(1, 1), Cost: CostOther, Types: floatX},
			{Key: op("Det"), In: ar(1, 1), Out: ar(1, 1), Cost: CostOther, Types: floatX},
			{Key: op("Dropout"), In: ar(1, 3), Out: ar(1, 2), Older: []Revision{{Before: 12, In: ar(1, 1), Out: ar(1, 2)}}, Exec: ExecView},
			{Key: op("Expand"), In: ar(2, 2), Out: ar(1, 1), Pattern: Injective, Cost: CostDataMovement},
			{Key: op("Flatten"), In: ar(1, 1), Out: ar(1, 1), Pattern: Injective, Exec: ExecView},
			{Key: op("Gather"), In: ar(2, 2), Out: ar(1, 1), Pattern: Injective, Cost: CostDataMovement},
			{Key: op("Identity"), In: ar(1, 1), Out: ar(1, 1), Pattern: ElemWise, Exec: ExecView},
			{Key: op("MaxUnpool"), In: ar(2, 3), Out: ar(1, 1), Cost: CostDataMovement},
			{Key: op("MelWeightMatrix"), In: ar(5, 5), Out: ar(1, 1), Cost: CostDataMovement},
			{Key: op("NonMaxSuppression"), In: ar(2, 5), Out: ar(1, 1), Cost: CostOther},
			{Key: op("Pad"), In: ar(2, 4), Out: ar(1, 1), Older: []Revision{{Before: 11, In: ar(1, 1), Out: ar(1, 1)}, {Before: 18, In: ar(2, 3), Out: ar(1, 1)}}, Pattern: Injective, Cost: CostDataMovement},
			{Key: op("RandomNormal"), In: ar(0, 0), Out: ar(1, 1), Cost: CostDataMovement},
			{Key: op("RandomUniform"), In: ar(0, 0), Out: ar(1, 1), Cost: CostDataMovement},
			{Key: op("Reshape"), In: ar(2, 2), Out: ar(1, 1), Older: []Revision{{Before: 5, In: ar(1, 1), Out: ar(1, 1)}}, Pattern: Injective, Exec: ExecView},
			{Key: op("Resize"), In: ar(1, 4), Out: ar(1, 1), Older: []Revision{{Before: 11, In: ar(2, 2), Out: ar(1, 1)}, {Before: 13, In: ar(3, 4), Out: ar(1, 1)}}, Cost: CostDataMovement},
			{Key: op("RoiAlign"), In: ar(3, 3), Out: ar(1, 1), Cost: CostOther, Types: floatX},
			{Key: op("STFT"), In: ar(2, 4), Out: ar(1, 1), Cost: CostOther, Types: floatX},
			{Key: op("Slice"), In: ar(3, 5), Out: ar(1, 1), Older: []Revision{{Before: 10, In: ar(1, 1), Out: ar(1, 1)}}, Pattern: Injective, Cost: CostDataMovement},
			{Key: op("Split"), In: ar(1, 2), Out: ar(1, -1), Older: []Revision{{Before: 2, In: ar(1, 2), Out: ar(1, -1)}, {Before: 13, In: ar(1, 1), Out: ar(1, -1)}}, Pattern: Injective, Cost: CostDataMovement},
			{Key: op("Squeeze"), In: ar(1, 2), Out: ar(1, 1), Older: []Revision{{Before: 13, In: ar(1, 1), Out: ar(1, 1)}}, Pattern: Injective, Exec: ExecView},
			{Key: op("TensorScatter"), In: ar(2, 3), Out: ar(1, 1), Cost: CostDataMovement},
			{Key: op("Tile"), In: ar(2, 2), Out: ar(1, 1), Older: []Revision{{Before: 6, In: ar(3, 3), Out: ar(1, 1)}}, Pattern: Injective, Cost: CostDataMovement},
			{Key: op("Trilu"), In: ar(1, 2), Out: ar(1, 1), Cost: CostDataMovement},
			{Key: op("Unique"), In: ar(1, 1), Out: ar(1, 4), Cost: CostDataMovement},
			{Key: op("Unsqueeze"), In: ar(2, 2), Out: ar(1, 1), Older: []Revision{{Before: 13, In: ar(1, 1), Out: ar(1, 1)}}, Pattern: Injective, Exec: ExecView},
			{Key: op("Upsample"), In: ar(2, 2), Out: ar(1, 1), Older: []Revision{{Before: 9, In: ar(1, 1), Out: ar(1, 1)}}, Cost: CostDataMovement},
		},
	)
}
