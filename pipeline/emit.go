package pipeline

// This file is optimize --emit-onnx: the optimized model written as an
// ONNX file valid for every input size, and the prediction of what was
// written at the shapes the command analyzed.

import (
	"github.com/wolong-dev/wolong/importer"
	"github.com/wolong-dev/wolong/optimize"
	"github.com/wolong-dev/wolong/simulate"
)

// Emitted is an optimized model written as ONNX (EmitONNX).
type Emitted struct {
	// Prediction is of the model written, at the shapes o was analyzed
	// at: o's own final prediction unless it was optimized anew.
	Prediction *optimize.Prediction
	// Reoptimized says the model written was optimized anew with its
	// symbolic dims kept (Exportable), so it is valid for every input
	// size.
	Reoptimized bool
	Written     *importer.Written
}

// WriteError is an exported model that could not be written.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// EmitONNX writes o, which Optimize made with opt, to path as ONNX with
// w's choices (Exportable, then Export), predicting the model written at
// o's shapes with predict when it had to be optimized anew. done, when
// set, is called once the model to write is optimized (the progress of
// opt.OnPassStart ends there). A failure to write is a *WriteError.
func EmitONNX(o *Optimized, opt OptimizeOptions, predict SimOptions, path string, w importer.WriteOptions, done func()) (*Emitted, error) {
	e, again, err := Exportable(o, opt)
	if done != nil {
		done()
	}
	if err != nil {
		return nil, err
	}
	em := &Emitted{Prediction: &o.Result.Final, Reoptimized: again}
	if again {
		at, err := Respecialize(e, o.From)
		if err != nil {
			return nil, err
		}
		s, err := Simulate(at, predict)
		if err != nil {
			return nil, err
		}
		p := prediction(s.Result, len(at.Model.Graph.Nodes))
		em.Prediction = &p
	}
	if again { // e is this call's own: written without a copy
		em.Written, err = exportModel(e.Model, e, path, w)
	} else {
		em.Written, err = Export(e, path, w)
	}
	if err != nil {
		return nil, &WriteError{err}
	}
	return em, nil
}

// Why is the optimized model's final prediction as its breakdown and time
// per class (nil without a prediction).
func (o *Optimized) Why() *simulate.Why {
	if o == nil || o.Predicted == nil {
		return nil
	}
	return o.Predicted.Why()
}
