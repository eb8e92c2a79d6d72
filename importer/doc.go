// Package importer reads and writes the ONNX protobuf wire format and
// nothing else: it maps a model file into memory, decodes ModelProto into
// wolong's IR (package ir), and exports an IR model back to ONNX.
//
// Decoding is done by hand with internal/pbwire (protowire's primitives,
// without the protobuf module's start-up cost) against the field numbers
// of onnx.proto (see fields.go), in one pass over the bytes. Initializer
// data is never copied: each tensor keeps a view (sub-slice) of the mapped
// file, with its offset and length. External data (data_location =
// EXTERNAL) is mapped the same way, and its location must stay inside the
// model's folder (no absolute paths, no "..", no symlinks that leave it).
package importer
