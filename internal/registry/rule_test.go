package registry

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestRuleValidate(t *testing.T) {
	versions := []string{"v1", "v2", "v3"}
	tests := []struct {
		name    string
		rule    Rule
		wantErr bool
	}{
		{"zero value is latest", Rule{}, false},
		{"latest", Rule{Strategy: Latest}, false},
		{"static", Rule{Strategy: Static, Version: "v2"}, false},
		{"weighted canary", Rule{Strategy: Weighted, Weights: map[string]float64{"v1": 90, "v2": 10}}, false},
		{"weighted thirds", Rule{Strategy: Weighted, Weights: map[string]float64{"v1": 33.3, "v2": 33.3, "v3": 33.4}}, false},
		{"weighted with a zero weight", Rule{Strategy: Weighted, Weights: map[string]float64{"v1": 100, "v2": 0}}, false},

		{"latest with a version", Rule{Strategy: Latest, Version: "v1"}, true},
		{"latest with weights", Rule{Strategy: Latest, Weights: map[string]float64{"v1": 100}}, true},
		{"empty strategy with a version", Rule{Version: "v1"}, true},
		{"empty strategy with weights", Rule{Weights: map[string]float64{"v1": 100}}, true},
		{"static without a version", Rule{Strategy: Static}, true},
		{"static naming a missing version", Rule{Strategy: Static, Version: "v4"}, true},
		{"weighted without weights", Rule{Strategy: Weighted}, true},
		{"weighted with empty weights", Rule{Strategy: Weighted, Weights: map[string]float64{}}, true},
		{"weighted naming a missing version", Rule{Strategy: Weighted, Weights: map[string]float64{"v1": 50, "v9": 50}}, true},
		{"weighted negative weight", Rule{Strategy: Weighted, Weights: map[string]float64{"v1": 110, "v2": -10}}, true},
		{"weighted NaN weight", Rule{Strategy: Weighted, Weights: map[string]float64{"v1": 100, "v2": math.NaN()}}, true},
		{"weighted under 100", Rule{Strategy: Weighted, Weights: map[string]float64{"v1": 50, "v2": 40}}, true},
		{"weighted over 100", Rule{Strategy: Weighted, Weights: map[string]float64{"v1": 50, "v2": 51}}, true},
		{"weighted all zero", Rule{Strategy: Weighted, Weights: map[string]float64{"v1": 0}}, true},
		{"unknown strategy", Rule{Strategy: "random"}, true},
		{"strategy is case-sensitive", Rule{Strategy: "Static", Version: "v1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.rule.Validate(versions)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidRule) {
					t.Fatalf("Validate = %v, want an error wrapping ErrInvalidRule", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Validate = %v, want nil", err)
			}
		})
	}
}

func TestRuleChoose(t *testing.T) {
	versions := []string{"v1", "v2", "v9", "v10"} // natural order, as Choose requires
	rnd := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name     string
		rule     Rule
		versions []string
		want     string
	}{
		{"zero value picks latest", Rule{}, versions, "v10"},
		{"latest", Rule{Strategy: Latest}, versions, "v10"},
		{"latest of one", Rule{Strategy: Latest}, []string{"v1"}, "v1"},
		{"latest of none", Rule{Strategy: Latest}, nil, ""},
		{"static", Rule{Strategy: Static, Version: "v2"}, versions, "v2"},
		{"weighted all on one", Rule{Strategy: Weighted, Weights: map[string]float64{"v2": 100}}, versions, "v2"},
		{"weighted skips a zero weight", Rule{Strategy: Weighted, Weights: map[string]float64{"v1": 0, "v9": 100}}, versions, "v9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 1000 {
				if got := tt.rule.Choose(tt.versions, rnd); got != tt.want {
					t.Fatalf("Choose = %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestWeightedSplit(t *testing.T) {
	const draws = 10_000
	const tolerance = 1.5 // percentage points
	tests := []struct {
		name    string
		weights map[string]float64
	}{
		{"canary 90/10", map[string]float64{"v1": 90, "v2": 10}},
		{"thirds", map[string]float64{"v1": 33.3, "v2": 33.3, "v3": 33.4}},
		{"half and half", map[string]float64{"v1": 50, "v2": 50}},
		{"small slice", map[string]float64{"v1": 2, "v2": 98}},
		{"natural order of keys", map[string]float64{"v9": 25, "v10": 75}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rule := Rule{Strategy: Weighted, Weights: tt.weights}
			var versions []string
			for v := range tt.weights {
				versions = append(versions, v)
			}
			if err := rule.Validate(versions); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			rnd := rand.New(rand.NewPCG(1, 2))
			counts := map[string]int{}
			for range draws {
				counts[rule.Choose(versions, rnd)]++
			}
			for v, n := range counts {
				if _, ok := tt.weights[v]; !ok {
					t.Errorf("chose %q %d times; it has no weight", v, n)
				}
			}
			for v, w := range tt.weights {
				share := 100 * float64(counts[v]) / draws
				if math.Abs(share-w) > tolerance {
					t.Errorf("%s: %.2f%% of %d draws, want %.1f%% ± %.1f", v, share, draws, w, tolerance)
				}
			}
		})
	}
}

// topSource makes Float64 return its largest value, just under 1.
type topSource struct{}

func (topSource) Uint64() uint64 { return math.MaxUint64 }

// A draw at the very top of [0, 100) with weights whose float sum falls a hair short of
// 100 must still land on a version with a weight, never on "".
func TestWeightedChooseAtTheTop(t *testing.T) {
	rule := Rule{Strategy: Weighted, Weights: map[string]float64{"v1": 33.333, "v2": 33.333, "v3": 33.333, "v4": 0}}
	if got := rule.Choose(nil, rand.New(topSource{})); got != "v3" {
		t.Fatalf("Choose = %q, want v3 (the last version with a weight)", got)
	}
}
