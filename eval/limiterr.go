package eval

// This file holds the errors a caller tells apart to say which of its
// settings to change: the memory limit, an input dim with no value.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wolong-dev/wolong/ir"
)

// ErrMemoryLimit is wrapped by every error of work refused because it
// would go over the memory limit (Options.MaxMemory, a RandomTensor's
// maxBytes, the runtime's soft limit): errors.Is tells them apart, so a
// caller can say which of its settings is the limit. The messages read
// "..., over the memory limit of N bytes"; they name no setting.
var ErrMemoryLimit = errors.New("over the memory limit")

// UnsetDimError is an input RandomInputs makes no values for: a dim of
// its shape (Dim, symbolic or unnamed) has no value.
type UnsetDimError struct {
	Input string
	Dim   ir.Dim
	Shape ir.Shape // the input's shape
}

func (e *UnsetDimError) Error() string {
	if e.Dim.IsSymbolic() {
		return fmt.Sprintf("input %q has dim %s, which has no value", e.Input, e.Dim)
	}
	return fmt.Sprintf("input %q has an unnamed dim %s", e.Input, e.Shape)
}

// ShapeHint spells the shape with 1 for every dim that is not concrete
// ("1x3x1x224"): a shape the input could be given.
func (e *UnsetDimError) ShapeHint() string {
	parts := make([]string, len(e.Shape.Dims))
	for i, d := range e.Shape.Dims {
		if d.IsConcrete() {
			parts[i] = fmt.Sprint(d.Val)
		} else {
			parts[i] = "1"
		}
	}
	return strings.Join(parts, "x")
}
