package ir

// This file declares the facts of the convolutions, matrix products, attention and recurrent ops of ai.onnx
// (see ops.go for what each field means).

var nnOps = [...]OpInfo{
	{Key: op("Attention"), In: ar(3, 7), Out: ar(1, 4), Cost: CostAttention, Types: floatX},
	{Key: op("CausalConvWithState"), In: ar(2, 4), Out: ar(1, 2), Types: floatX},
	{Key: op("Conv"), In: ar(2, 3), Out: ar(1, 1), Pattern: OutEWiseFusable, Cost: CostConv, Types: floatX},
	{Key: op("ConvInteger"), In: ar(2, 4), Out: ar(1, 1), Cost: CostConv},
	{Key: op("ConvTranspose"), In: ar(2, 3), Out: ar(1, 1), Pattern: OutEWiseFusable, Cost: CostConv, Types: floatX},
	{Key: op("DeformConv"), In: ar(3, 5), Out: ar(1, 1), Cost: CostConv, Types: floatX},
	{Key: op("Einsum"), In: ar(1, -1), Out: ar(1, 1), Cost: CostMatMul},
	{Key: op("FC"), In: ar(3, 3), Out: ar(1, 1)},
	{Key: op("GRU"), In: ar(3, 6), Out: ar(0, 2), Cost: CostRNN, Types: floatX},
	{Key: op("GRUUnit"), In: ar(4, 4), Out: ar(1, 1)},
	{Key: op("Gemm"), In: ar(2, 3), Out: ar(1, 1), Pattern: OutEWiseFusable, Cost: CostMatMul},
	{Key: op("LSTM"), In: ar(3, 8), Out: ar(0, 3), Cost: CostRNN, Types: floatX},
	{Key: op("LinearAttention"), In: ar(3, 6), Out: ar(1, 2), Types: floatX},
	{Key: op("MatMul"), In: ar(2, 2), Out: ar(1, 1), Pattern: OutEWiseFusable, Cost: CostMatMul},
	{Key: op("MatMulInteger"), In: ar(2, 4), Out: ar(1, 1), Cost: CostMatMul},
	{Key: op("QLinearConv"), In: ar(8, 9), Out: ar(1, 1), Cost: CostConv},
	{Key: op("QLinearMatMul"), In: ar(8, 8), Out: ar(1, 1), Cost: CostMatMul},
	{Key: op("RNN"), In: ar(3, 6), Out: ar(0, 2), Cost: CostRNN, Types: floatX},
}
