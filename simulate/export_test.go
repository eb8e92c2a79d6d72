package simulate

import (
	"fmt"
	"reflect"
)

// DiffRuns says how two runs differ, the estimate memo aside (its state
// and Options.Memo): "" when they are the same.
func DiffRuns(a, b *Result) string {
	x, y := *a, *b
	x.memo, y.memo = nil, nil
	x.slab, y.slab = nil, nil
	x.Options.Memo, y.Options.Memo = false, false
	return diffRuns(&x, &y)
}

// MemoReused is how many estimates r reused from the run before it.
func MemoReused(r *Result) int {
	if r.memo == nil {
		return 0
	}
	return r.memo.reused
}

func diffRuns(a, b *Result) string {
	if len(a.Tasks) != len(b.Tasks) {
		return fmt.Sprintf("%d tasks, want %d", len(a.Tasks), len(b.Tasks))
	}
	for i := range a.Tasks {
		if !reflect.DeepEqual(a.Tasks[i], b.Tasks[i]) {
			return fmt.Sprintf("task %d (%s):\nhave %+v\nwant %+v", i, b.Tasks[i].Name, a.Tasks[i], b.Tasks[i])
		}
	}
	x, y := *a, *b
	x.Tasks, y.Tasks = nil, nil
	if !reflect.DeepEqual(x, y) {
		return fmt.Sprintf("\nhave %+v\nwant %+v", x, y)
	}
	return ""
}
