package ir

// This file declares the facts of the reductions, softmax family, scans, losses, pooling and normalizations of ai.onnx
// (see ops.go for what each field means).

func reduceOps() []OpInfo {
	return rows(
		like("", OpInfo{In: ar(2, 2), Out: ar(1, 1), Cost: CostReduction},
			"CumProd", "CumSum", "MaxRoiPool"),
		like("", OpInfo{In: ar(1, 1), Out: ar(1, 1), Pattern: CommReduce, Cost: CostReduction, Types: floatX},
			"GlobalAveragePool", "GlobalMaxPool", "LogSoftmax", "Softmax"),
		like("", OpInfo{In: ar(1, 1), Out: ar(1, 1), Cost: CostReduction, Types: floatX},
			"GlobalLpPool", "Hardmax", "LpPool"),
		like("", OpInfo{In: ar(1, 1), Out: ar(1, 1), Cost: CostNormalization, Types: floatX},
			"LRN", "LpNormalization", "MeanVarianceNormalization"),
		like("", OpInfo{In: ar(1, 2), Out: ar(1, 1), Older: []Revision{{Before: 18, In: ar(1, 1), Out: ar(1, 1)}}, Pattern: CommReduce, Cost: CostReduction},
			"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin",
			"ReduceProd", "ReduceSumSquare"),
		[]OpInfo{
			{Key: op("ArgMax"), In: ar(1, 1), Out: ar(1, 1), Cost: CostReduction},
			{Key: op("ArgMin"), In: ar(1, 1), Out: ar(1, 1), Cost: CostReduction},
			{Key: op("AveragePool"), In: ar(1, 1), Out: ar(1, 1), Pattern: OutEWiseFusable, Cost: CostReduction, Types: floatX},
			{Key: op("BatchNormalization"), In: ar(5, 5), Out: ar(1, 5), Pattern: Broadcast, Cost: CostNormalization, Types: floatX},
			{Key: op("DynamicQuantizeLinear"), In: ar(1, 1), Out: ar(3, 3), Cost: CostReduction, Types: floatX},
			{Key: op("GroupNormalization"), In: ar(3, 3), Out: ar(1, 1), Cost: CostNormalization, Types: floatX},
			{Key: op("InstanceNormalization"), In: ar(3, 3), Out: ar(1, 1), Cost: CostNormalization, Types: floatX},
			{Key: op("LayerNormalization"), In: ar(2, 3), Out: ar(1, 3), Pattern: CommReduce, Cost: CostNormalization, Types: floatX},
			{Key: op("MaxPool"), In: ar(1, 1), Out: ar(1, 2), Pattern: OutEWiseFusable, Cost: CostReduction},
			{Key: op("NegativeLogLikelihoodLoss"), In: ar(2, 3), Out: ar(1, 1), Cost: CostReduction, Types: floatX},
			{Key: op("RMSNormalization"), In: ar(2, 2), Out: ar(1, 1), Pattern: CommReduce, Cost: CostNormalization, Types: floatX},
			{Key: op("ReduceSum"), In: ar(1, 2), Out: ar(1, 1), Older: []Revision{{Before: 13, In: ar(1, 1), Out: ar(1, 1)}}, Pattern: CommReduce, Cost: CostReduction},
			{Key: op("SimplifiedLayerNormalization"), In: ar(2, 2), Out: ar(1, 2), Cost: CostNormalization, Types: floatX},
			{Key: op("SoftmaxCrossEntropyLoss"), In: ar(2, 3), Out: ar(1, 2), Cost: CostReduction, Types: floatX},
			{Key: op("TopK"), In: ar(2, 2), Out: ar(2, 2), Older: []Revision{{Before: 10, In: ar(1, 1), Out: ar(2, 2)}}, Cost: CostReduction},
		},
	)
}
