// Package pipeline is wolong's library entry: from a model file and typed
// options to the loaded model, one shape inference with the assumptions
// it made, the optimized graph and its simulation. Each stage is a
// function of the previous stage's result and usable alone:
//
//	l, err := pipeline.Load(path, pipeline.LoadOptions{Dims: dims})      // import, verify, check given shapes
//	f, err := pipeline.Infer(l, pipeline.InferOptions{DefaultDims: true}) // one inference, of a copy
//	o, err := pipeline.Optimize(f, pipeline.OptimizeOptions{Level: 3, HW: h, Predict: true})
//	s, err := pipeline.Simulate(o, pipeline.SimOptions{HW: h})            // or Simulate(f, ...)
//
// No stage changes what an earlier one returned: Infer infers a copy of
// the loaded model (sharing its weights), Optimize rewrites a copy of the
// inferred one, Simulate and Export read. Shapes are inferred once per
// model a command reads; the only other inferences are of models the
// pipeline writes (Export's check of the file it wrote, Respecialize's
// prediction of it).
//
// Verify runs models (on the evaluator, or in ONNX Runtime) and compares
// their outputs; ValidateSpeedup predicts a model and its optimized
// version, measures both in ONNX Runtime and compares their outputs;
// ValidateSet predicts every model of a folder of latency records.
//
// A caller that reads an earlier stage no more may ask Infer and Optimize
// to work on their input in place (InferOptions.InPlace,
// OptimizeOptions.InPlace), saving a copy of the graph each: the
// commands that only report (inspect, profile, optimize without
// --emit-onnx, explain) do.
//
// The package names no command-line flag: a shape the model cannot take
// is a *ShapeError carrying what a command needs to add its hint, and
// the assumptions it states (Inferred.Defaulted, Optimized.Assumptions)
// are facts a command phrases. It owns no output format either: report
// turns its results into tables and JSON.
package pipeline
