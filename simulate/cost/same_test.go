package cost

import (
	"math"
	"reflect"
	"testing"
)

// TestSameEveryField changes each field of an Estimate in turn (the
// embedded Cost's and a Work element's included): Same must tell every
// change apart, and Hash must change with it (a field Hash left out made
// control 100k's table compare each estimate with thousands), so a field
// added to Estimate, Cost or Work without a comparison in Same and a word
// in Hash fails here.
func TestSameEveryField(t *testing.T) {
	base := func() Estimate {
		return Estimate{Cost: Cost{Work: []Work{{}}}}
	}
	var paths [][]int
	var walk func(tp reflect.Type, at []int)
	walk = func(tp reflect.Type, at []int) {
		for i := range tp.NumField() {
			f := tp.Field(i)
			p := append(append([]int(nil), at...), i)
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, p)
				continue
			}
			paths = append(paths, p)
		}
	}
	walk(reflect.TypeFor[Estimate](), nil)
	for _, p := range paths {
		a, b := base(), base()
		f := reflect.ValueOf(&b).Elem().FieldByIndex(p)
		name := reflect.TypeFor[Estimate]().FieldByIndex(p).Name
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Float64:
			f.SetFloat(1)
		case reflect.Int64, reflect.Int32:
			f.SetInt(1)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice: // Work: a change of its element's every field
			for j := range f.Type().Elem().NumField() {
				w := []Work{{}}
				reflect.ValueOf(&w[0]).Elem().Field(j).SetFloat(1)
				b.Work = w
				if Same(&a, &b) || Hash(&a) == Hash(&b) {
					t.Errorf("Same or Hash misses Work.%s", reflect.TypeFor[Work]().Field(j).Name)
				}
			}
			b.Work = nil
			if Same(&a, &b) {
				t.Errorf("Same misses the Work's length")
			}
			continue
		default:
			t.Fatalf("field %s of kind %s: the test does not change it", name, f.Kind())
		}
		if Same(&a, &b) {
			t.Errorf("Same misses %s", name)
		}
		if Hash(&a) == Hash(&b) {
			t.Errorf("Hash misses %s", name)
		}
		if !Same(&a, &a) {
			t.Errorf("Same(a, a) false")
		}
	}
	zero, neg := Estimate{}, Estimate{DeviceS: math.Copysign(0, -1)}
	if Same(&zero, &neg) {
		t.Errorf("Same: 0 and -0 alike")
	}
	c := base()
	c.Work = []Work{{FLOPs: 2}}
	d := base()
	d.Work = []Work{{FLOPs: 2}}
	if !Same(&c, &d) || Hash(&c) != Hash(&d) {
		t.Errorf("equal estimates with distinct Work slices: Same %v, hashes %x %x", Same(&c, &d), Hash(&c), Hash(&d))
	}
}
