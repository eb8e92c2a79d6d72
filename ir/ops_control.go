package ir

// This file declares the facts of the ai.onnx control-flow ops (If, Loop, Scan, SequenceMap) and the sequence and optional bookkeeping ops
// (see ops.go for what each field means).

func controlOps() []OpInfo {
	return rows(
		like("", OpInfo{In: ar(1, 1), Out: ar(1, 1), Exec: ExecMeta},
			"OptionalGetElement", "SequenceLength", "Shape", "Size"),
		[]OpInfo{
			{Key: op("ConcatFromSequence"), In: ar(1, 1), Out: ar(1, 1), Cost: CostDataMovement},
			{Key: op("Constant"), In: ar(0, 0), Out: ar(1, 1), Exec: ExecMeta},
			{Key: op("If"), In: ar(1, 1), Out: ar(1, -1), Exec: ExecControl},
			{Key: op("Loop"), In: ar(2, -1), Out: ar(1, -1), Optional: []int{0, 1}, Exec: ExecControl},
			{Key: op("Optional"), In: ar(0, 1), Out: ar(1, 1), Exec: ExecMeta},
			{Key: op("OptionalHasElement"), In: ar(0, 1), Out: ar(1, 1), Exec: ExecMeta},
			{Key: op("Scan"), In: ar(1, -1), Out: ar(1, -1), Optional: []int{0}, Exec: ExecControl},
			{Key: op("SequenceAt"), In: ar(2, 2), Out: ar(1, 1), Exec: ExecMeta},
			{Key: op("SequenceConstruct"), In: ar(1, -1), Out: ar(1, 1), Exec: ExecMeta},
			{Key: op("SequenceEmpty"), In: ar(0, 0), Out: ar(1, 1), Exec: ExecMeta},
			{Key: op("SequenceErase"), In: ar(1, 2), Out: ar(1, 1), Exec: ExecMeta},
			{Key: op("SequenceInsert"), In: ar(2, 3), Out: ar(1, 1), Exec: ExecMeta},
			{Key: op("SequenceMap"), In: ar(1, -1), Out: ar(1, -1), Exec: ExecControl},
			{Key: op("SplitToSequence"), In: ar(1, 2), Out: ar(1, 1), Cost: CostDataMovement},
		},
	)
}
