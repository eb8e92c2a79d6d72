package ir

// This file implements the codes of inference diagnostics: one per kind
// of problem, as go/types gives every error a code, and the error type
// that carries one out of an op's inference function. TestDiagnosticCodes
// rejects an inference error made without a code.

import (
	"errors"
	"fmt"
	"strings"
)

// Code names the kind of a Diagnostic. Codes are short and stable, so that
// callers and tests can tell kinds apart without reading messages.
type Code string

// The diagnostic codes.
const (
	// CodeOpaque: the operator is unknown; its outputs take their declared
	// types.
	CodeOpaque Code = "opaque"
	// CodeConflict: an inferred type contradicts the type the file declares.
	CodeConflict Code = "conflict"
	// CodeInput: --input names no input of the graph.
	CodeInput Code = "input"
	// CodeDepth: subgraphs or function calls nest too deeply to follow.
	CodeDepth Code = "depth"
	// CodeCycle: the graph has a cycle.
	CodeCycle Code = "cycle"
	// CodePanic: an op's inference function failed (a bug in wolong).
	CodePanic Code = "panic"
	// CodeFunction: a model-local function cannot be expanded (it calls
	// itself, or has no body).
	CodeFunction Code = "function"
	// CodeSubgraph: a control-flow node's subgraph is missing or does not
	// fit the node (If branches, Loop and Scan bodies).
	CodeSubgraph Code = "subgraph"
	// CodeArity: the node has a number of inputs or outputs its attributes
	// or the op do not allow.
	CodeArity Code = "arity"
	// CodeAttr: an attribute is missing, or has a value or length the op
	// does not take.
	CodeAttr Code = "attr"
	// CodeDType: an element type (an attribute naming one) is invalid.
	CodeDType Code = "dtype"
	// CodeRank: an input has a rank the op does not take.
	CodeRank Code = "rank"
	// CodeAxis: an axis is out of range for the rank, or repeated.
	CodeAxis Code = "axis"
	// CodeBroadcast: input shapes do not broadcast together.
	CodeBroadcast Code = "broadcast"
	// CodeDims: dimensions that must agree do not (inner dims of a
	// product, element counts of a reshape, split sizes and the split dim).
	CodeDims Code = "dims"
	// CodeValue: a constant input or attribute holds a value the op does not
	// take (a negative dim, an index out of range, a zero step).
	CodeValue Code = "value"
	// CodeLimit: a value is valid but beyond what wolong follows (a Range
	// too long to enumerate).
	CodeLimit Code = "limit"
)

// Codes lists every diagnostic code.
func Codes() []Code {
	return []Code{CodeOpaque, CodeConflict, CodeInput, CodeDepth, CodeCycle, CodePanic, CodeFunction, CodeSubgraph,
		CodeArity, CodeAttr, CodeDType, CodeRank, CodeAxis, CodeBroadcast, CodeDims, CodeValue, CodeLimit}
}

// InferError is the error of an op's inference function: a message and
// the code of its kind. BroadcastShapes returns one too.
type InferError struct {
	Code Code
	Msg  string
}

func (e *InferError) Error() string { return e.Msg }

// errorf returns an *InferError of the given kind. It is the only way
// inference makes an error.
func errorf(code Code, format string, args ...any) error {
	return &InferError{Code: code, Msg: fmt.Sprintf(format, shortArgs(args)...)}
}

// maxListedValues bounds how many values of a list argument a message
// prints: an attribute of millions of values (a hostile perm) would
// otherwise be formatted whole, megabytes per message.
const maxListedValues = 16

// shortArgs replaces list arguments longer than maxListedValues by their
// first values and a count, so a message stays one short line.
func shortArgs(args []any) []any {
	var out []any
	for i, a := range args {
		var s fmt.Stringer
		switch v := a.(type) {
		case []int64:
			s = shortList[int64](v)
		case []int:
			s = shortList[int](v)
		case []float32:
			s = shortList[float32](v)
		case []float64:
			s = shortList[float64](v)
		case []string:
			s = shortList[string](v)
		}
		if s == nil {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = s
	}
	if out == nil {
		return args
	}
	return out
}

// shortList prints as %v does, up to maxListedValues values.
type shortList[T any] []T

func (l shortList[T]) String() string {
	if len(l) <= maxListedValues {
		return fmt.Sprint([]T(l))
	}
	return strings.TrimSuffix(fmt.Sprint([]T(l[:maxListedValues])), "]") + fmt.Sprintf(" ... (%d values)]", len(l))
}

// wrapf prefixes err's message with what the format says, keeping err's
// code: wrapf(err, "Einsum") is "Einsum: " + err's message.
func wrapf(err error, format string, args ...any) error {
	return &InferError{Code: CodeOf(err), Msg: fmt.Sprintf(format, args...) + ": " + err.Error()}
}

// CodeOf returns the code err carries, or "" when it has none (which
// TestDiagnosticCodes does not let inference return).
func CodeOf(err error) Code {
	var ie *InferError
	if errors.As(err, &ie) {
		return ie.Code
	}
	return ""
}
