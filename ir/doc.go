// Package ir is wolong's intermediate representation of a model: plain data
// structures for graphs, nodes, values, types, attributes and tensors, plus the
// algorithms every later stage needs (topological order, verification, the
// text form, and shape/type inference).
//
// The IR mirrors ONNX closely enough that it can be exported back without
// loss, but it is linked: every Value knows its producer and its consumers,
// and nodes refer to values by pointer, not by name. Names are kept only for
// printing and export.
//
// Initializer data is never copied: a Tensor keeps a view (a sub-slice) of
// the memory-mapped model file, with its file offset for diagnostics.
package ir
