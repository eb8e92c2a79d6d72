// Package strictjson decodes one JSON document the way wolong reads every
// file it is given (hardware files, plans, architecture configs): at most
// a size limit, no unknown fields, nothing after the value.
package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrTrailing is returned for data after the JSON value.
var ErrTrailing = errors.New("trailing data after the JSON value")

// TooLargeError is returned when the input exceeds the limit.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string { return fmt.Sprintf("larger than %d bytes", e.Limit) }

// Decode reads one JSON value from r into v: unknown fields are errors,
// so is anything after the value (ErrTrailing) and an input over limit
// bytes (*TooLargeError), which bounds what decoding may allocate.
func Decode(r io.Reader, limit int64, v any) error {
	lr := &io.LimitedReader{R: r, N: limit + 1}
	dec := json.NewDecoder(lr)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if lr.N <= 0 {
			return &TooLargeError{Limit: limit}
		}
		return err
	}
	more := dec.More() // reads on past the value
	if lr.N <= 0 {
		return &TooLargeError{Limit: limit}
	}
	if more {
		return ErrTrailing
	}
	return nil
}
