package simulate

import (
	"math"
	"math/rand"
	"reflect"
	"sort"
	"testing"
)

// stableTop is the reference topGaps must equal: a stable sort of every
// gap, longest first (ties by start), cut to n.
func stableTop(gs []Gap, n int) []Gap {
	gs = append([]Gap(nil), gs...)
	ns := func(g Gap) float64 { return math.Round((g.End - g.Start) * 1e9) }
	sort.SliceStable(gs, func(i, j int) bool {
		di, dj := ns(gs[i]), ns(gs[j])
		if di != dj {
			return di > dj
		}
		return gs[i].Start < gs[j].Start
	})
	return gs[:min(n, len(gs))]
}

func TestTopGapsMatchesStableSort(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, tc := range []struct {
		name   string
		gaps   int
		n      int
		values int // distinct starts and lengths: few values make many ties
	}{
		{"empty", 0, 10, 5},
		{"fewer than n", 4, 10, 100},
		{"ties everywhere", 500, 10, 3},
		{"many gaps", 5000, 10, 1000},
		{"n one", 300, 1, 4},
		{"n zero", 30, 0, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var gs []Gap
			for i := range tc.gaps {
				s := float64(rng.Intn(tc.values)) * 1e-6
				gs = append(gs, Gap{Stream: i, Start: s, End: s + float64(rng.Intn(tc.values))*1e-6})
			}
			want := stableTop(gs, tc.n)
			top := topGaps{n: tc.n}
			for _, g := range gs {
				top.add(g)
			}
			if len(top.top) != len(want) || (len(want) > 0 && !reflect.DeepEqual(top.top, want)) {
				t.Fatalf("topGaps(%d gaps, %d) = %v, want %v", tc.gaps, tc.n, top.top, want)
			}
		})
	}
	if (&topGaps{n: 10}).top != nil {
		t.Fatal("topGaps with no gap added: top is not nil (the JSON report would write [] for null)")
	}
}
