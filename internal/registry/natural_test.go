package registry

import (
	"slices"
	"testing"
)

func TestNaturalLess(t *testing.T) {
	tests := []struct {
		name string
		a, b string // a must sort strictly before b
	}{
		{"single digits", "v1", "v2"},
		{"two digits after one", "v9", "v10"},
		{"hundreds", "v99", "v100"},
		{"dotted minor", "1.9", "1.10"},
		{"dotted patch", "1.9.3", "1.10.0"},
		{"deeper patch", "1.10.2", "1.10.10"},
		{"prefix before extension", "v1", "v1.1"},
		{"release before longer suffix", "1.0", "1.0.1"},
		{"letters", "alpha", "beta"},
		{"digit byte before letter", "1", "a"},
		{"mixed text and numbers", "model2b", "model10a"},
		{"number then letter", "2a", "2b"},
		{"number decides before suffix", "v2-rc9", "v10-rc1"},
		{"leading zeros same value", "007", "7"},
		{"leading zeros by value", "v09", "v10"},
		{"beyond int64", "v99999999999999999999", "v100000000000000000000"},
		{"empty first", "", "v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !naturalLess(tt.a, tt.b) {
				t.Errorf("naturalLess(%q, %q) = false, want true", tt.a, tt.b)
			}
			if naturalLess(tt.b, tt.a) {
				t.Errorf("naturalLess(%q, %q) = true, want false", tt.b, tt.a)
			}
			if got := compareNatural(tt.a, tt.b); got != -1 {
				t.Errorf("compareNatural(%q, %q) = %d, want -1", tt.a, tt.b, got)
			}
			if got := compareNatural(tt.b, tt.a); got != 1 {
				t.Errorf("compareNatural(%q, %q) = %d, want 1", tt.b, tt.a, got)
			}
		})
	}
}

func TestNaturalSort(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"v-prefixed", []string{"v10", "v2", "v1", "v9", "v11"}, []string{"v1", "v2", "v9", "v10", "v11"}},
		{"dotted", []string{"1.10.0", "1.9.3", "1.2", "2.0", "1.10"}, []string{"1.2", "1.9.3", "1.10", "1.10.0", "2.0"}},
		{"mixed", []string{"v1.10", "v10", "v1.9", "v2", "v1"}, []string{"v1", "v1.9", "v1.10", "v2", "v10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := slices.Clone(tt.in)
			slices.SortFunc(got, compareNatural)
			if !slices.Equal(got, tt.want) {
				t.Errorf("sorted %v = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// The order must be total and antisymmetric, or sorting versions would be unstable and
// "latest" could depend on the order a source listed them in.
func TestNaturalOrderIsTotal(t *testing.T) {
	vs := []string{"", "0", "00", "1", "01", "v1", "v01", "v1.0", "v1.00", "v10", "v9", "1.9", "1.10", "a", "A", "a1", "a01", "1a"}
	for _, a := range vs {
		for _, b := range vs {
			lt, gt := naturalLess(a, b), naturalLess(b, a)
			switch {
			case a == b && (lt || gt):
				t.Errorf("%q vs itself: less %v, greater %v", a, lt, gt)
			case a != b && lt == gt:
				t.Errorf("%q vs %q: less %v, greater %v; want exactly one", a, b, lt, gt)
			}
		}
	}
}
