package strictjson

import (
	"errors"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	type doc struct {
		A int `json:"a"`
	}
	var d doc
	if err := Decode(strings.NewReader(`{"a": 3}`), 100, &d); err != nil || d.A != 3 {
		t.Fatalf("good document: %v, %+v", err, d)
	}
	if err := Decode(strings.NewReader(`{"b": 3}`), 100, &d); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("unknown field: %v", err)
	}
	if err := Decode(strings.NewReader(`{"a": 3} {}`), 100, &d); !errors.Is(err, ErrTrailing) {
		t.Errorf("trailing value: %v", err)
	}
	var tl *TooLargeError
	if err := Decode(strings.NewReader(`{"a": `+strings.Repeat(" ", 200)+`3}`), 100, &d); !errors.As(err, &tl) || tl.Limit != 100 {
		t.Errorf("over the limit: %v", err)
	}
	if err := Decode(strings.NewReader(`{"a": 3}`+strings.Repeat(" ", 200)+`{}`), 100, &d); !errors.As(err, &tl) {
		t.Errorf("over the limit after the value: %v", err)
	}
	if err := Decode(strings.NewReader(`{`), 100, &d); err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("truncated: %v", err)
	}
}
