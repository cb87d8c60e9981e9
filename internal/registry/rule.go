package registry

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Strategy is how a routing rule picks a version for a request that names none.
type Strategy string

// The routing strategies.
const (
	// Latest picks the highest version in natural order (v10 > v9). It is the rule of a
	// model that configures none.
	Latest Strategy = "latest"
	// Static always picks Rule.Version.
	Static Strategy = "static"
	// Weighted splits traffic between versions by Rule.Weights (percentages), for
	// canaries.
	Weighted Strategy = "weighted"
)

// Rule is a model's routing rule. The zero value routes to the latest version.
type Rule struct {
	Strategy Strategy `json:"strategy" yaml:"strategy"`
	// Version is the version a static rule picks.
	Version string `json:"version,omitempty" yaml:"version,omitempty"`
	// Weights maps versions to percentages that add up to 100, for a weighted rule.
	Weights map[string]float64 `json:"weights,omitempty" yaml:"weights,omitempty"`
}

// Validate checks the rule against the model's versions.
func (r Rule) Validate(versions []string) error {
	switch r.Strategy {
	case "", Latest:
		if r.Version != "" || len(r.Weights) > 0 {
			return fmt.Errorf("%w: strategy latest takes neither version nor weights", ErrInvalidRule)
		}
	case Static:
		if r.Version == "" {
			return fmt.Errorf("%w: strategy static needs a version", ErrInvalidRule)
		}
		if !slices.Contains(versions, r.Version) {
			return fmt.Errorf("%w: static version %q is not one of %v", ErrInvalidRule, r.Version, versions)
		}
	case Weighted:
		if len(r.Weights) == 0 {
			return fmt.Errorf("%w: strategy weighted needs weights", ErrInvalidRule)
		}
		total := 0.0
		for v, w := range r.Weights {
			if !slices.Contains(versions, v) {
				return fmt.Errorf("%w: weighted version %q is not one of %v", ErrInvalidRule, v, versions)
			}
			if !(w >= 0) { // NaN too: it would pass the sum check below
				return fmt.Errorf("%w: weight of %q is %g; want a percentage from 0 to 100", ErrInvalidRule, v, w)
			}
			total += w
		}
		if total < 99.999 || total > 100.001 {
			return fmt.Errorf("%w: weights add up to %g, not 100", ErrInvalidRule, total)
		}
	default:
		return fmt.Errorf("%w: unknown strategy %q (want latest, static or weighted)", ErrInvalidRule, r.Strategy)
	}
	return nil
}

// Choose picks a version among versions, which must be sorted in natural order.
// rnd draws uniformly from [0, 1).
func (r Rule) Choose(versions []string, rnd *rand.Rand) string {
	switch r.Strategy {
	case Static:
		return r.Version
	case Weighted:
		x := rnd.Float64() * 100
		keys := make([]string, 0, len(r.Weights))
		for v := range r.Weights {
			keys = append(keys, v)
		}
		slices.SortFunc(keys, compareNatural)
		last := ""
		for _, v := range keys {
			if r.Weights[v] <= 0 {
				continue
			}
			last = v
			if x < r.Weights[v] {
				return v
			}
			x -= r.Weights[v]
		}
		return last // rounding left x just above the sum
	default:
		if len(versions) == 0 {
			return ""
		}
		return versions[len(versions)-1]
	}
}

// Main is the rule's main version among versions (sorted in natural order): the one it
// always picks, or under a weighted rule the heaviest (the later in natural order on a
// tie), the version the rest are canaries beside.
func (r Rule) Main(versions []string) string {
	switch r.Strategy {
	case Static:
		return r.Version
	case Weighted:
		main, most := "", -1.0
		for _, v := range versions {
			if w, ok := r.Weights[v]; ok && w >= most {
				main, most = v, w
			}
		}
		return main
	default:
		if len(versions) == 0 {
			return ""
		}
		return versions[len(versions)-1]
	}
}

func compareNatural(a, b string) int {
	switch {
	case naturalLess(a, b):
		return -1
	case naturalLess(b, a):
		return 1
	}
	return 0
}
