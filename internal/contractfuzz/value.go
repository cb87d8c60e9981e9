package contractfuzz

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
)

// maxDepth bounds the nesting of generated values: any JSON value (the contract's
// AnyValue, a schema without type) is drawn recursively by anyJSON.
const maxDepth = 4

// values draws values that satisfy a schema: the right type, enums, bounds, required
// properties, and the schema's own examples some of the time.
type values struct {
	r *rand.Rand
}

// oddStrings are strings a schema allows that handlers tend to get wrong: escapes,
// control characters, non-ASCII, separators of paths and queries, and text that looks
// like a number, null or markup.
var oddStrings = []string{
	"", " ", "a b", "a/b", "../..", "%2F", "%", "?x=1", "#frag", "a;b", "\u00e9t\u00e9",
	"\u65e5\u672c", "\U0001F600", "\u0000", "\n", "\t", "\"", "\\", "'", "<script>", "null",
	"NaN", "Infinity", "-0", "1e308", "12345678901234567890", "\u202e", "\ufeff",
}

// oddNumbers are numbers JSON allows that float32, float64 or int conversions do not
// all survive.
var oddNumbers = []string{
	"0", "-0", "1", "-1", "0.5", "1e308", "-1e308", "1.7976931348623157e308", "5e-324",
	"3.4028235e38", "3.5e38", "-3.5e38", "1e-45", "1e39", "12345678901234567890",
	"-9223372036854775809", "9007199254740993", "0.1", "1E2", "1e+2", "-1.5e-7",
}

func (v *values) pick(n int) int { return v.r.IntN(n) }

func (v *values) chance(p float64) bool { return v.r.Float64() < p }

// valid returns a value the schema accepts.
func (v *values) valid(ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil {
		return v.anyJSON(depth)
	}
	s := ref.Value
	if s.Example != nil && v.chance(0.2) {
		return s.Example
	}
	if len(s.Enum) > 0 {
		return s.Enum[v.pick(len(s.Enum))]
	}
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		branches := append(append([]*openapi3.SchemaRef{}, s.AnyOf...), s.OneOf...)
		if depth >= maxDepth {
			return v.scalar()
		}
		b := branches[v.pick(len(branches))]
		if b.Value != nil && b.Value.Nullable && v.chance(0.3) {
			return nil
		}
		return v.valid(b, depth+1)
	}
	if s.Nullable && v.chance(0.1) {
		return nil
	}
	switch {
	case s.Type.Is("string"):
		return v.str(s)
	case s.Type.Is("integer"):
		return v.integer(s)
	case s.Type.Is("number"):
		if v.chance(0.3) {
			return json.Number(oddNumbers[v.pick(len(oddNumbers))])
		}
		return v.integer(s)
	case s.Type.Is("boolean"):
		return v.chance(0.5)
	case s.Type.Is("array"):
		lo, hi := int(s.MinItems), 4
		if s.MaxItems != nil {
			hi = min(hi, int(*s.MaxItems))
		}
		hi = max(hi, lo)
		out := []any{}
		if depth >= maxDepth {
			hi = lo
		}
		for range lo + v.pick(hi-lo+1) {
			out = append(out, v.valid(s.Items, depth+1))
		}
		return out
	case s.Type.Is("object") || len(s.Properties) > 0:
		return v.object(s, depth)
	}
	return v.anyJSON(depth)
}

func (v *values) object(s *openapi3.Schema, depth int) map[string]any {
	out := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if slices.Contains(s.Required, name) || v.chance(0.5) {
			out[name] = v.valid(s.Properties[name], depth+1)
		}
	}
	if ap := s.AdditionalProperties; depth < maxDepth && (ap.Schema != nil || (ap.Has != nil && *ap.Has)) {
		for i := range v.pick(3) {
			out[fmt.Sprintf("k%d%s", i, v.plainString(4))] = v.valid(ap.Schema, depth+1)
		}
	}
	return out
}

func (v *values) str(s *openapi3.Schema) string {
	switch s.Format {
	case "uuid":
		return uuid.NewSHA1(uuid.NameSpaceOID, []byte(fmt.Sprint(v.r.Uint64()))).String()
	case "date-time":
		return time.Unix(v.r.Int64N(4e9), 0).UTC().Format(time.RFC3339)
	}
	lo := int(s.MinLength)
	hi := lo + 16
	if s.MaxLength != nil {
		hi = int(*s.MaxLength)
	}
	n := lo + v.pick(max(min(hi, lo+40)-lo, 0)+1)
	if v.chance(0.1) {
		n = hi // the longest the schema allows
	}
	if v.chance(0.3) {
		// An odd string, padded or cut to a length the schema allows (in runes, as
		// kin-openapi counts them).
		odd := []rune(oddStrings[v.pick(len(oddStrings))])
		for len(odd) < n {
			odd = append(odd, 'x')
		}
		return string(odd[:n])
	}
	return v.plainString(n)
}

func (v *values) plainString(n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789-_."
	var b strings.Builder
	for range n {
		b.WriteByte(letters[v.pick(len(letters))])
	}
	return b.String()
}

func (v *values) integer(s *openapi3.Schema) any {
	lo, hi := -1000.0, 1000.0
	if s.Min != nil {
		lo = *s.Min
	}
	if s.Max != nil {
		hi = *s.Max
	}
	if hi < lo {
		hi = lo
	}
	return int64(lo) + v.r.Int64N(int64(hi-lo)+1)
}

func (v *values) scalar() any {
	switch v.pick(4) {
	case 0:
		return json.Number(oddNumbers[v.pick(len(oddNumbers))])
	case 1:
		return oddStrings[v.pick(len(oddStrings))]
	case 2:
		return v.chance(0.5)
	}
	return nil
}

// anyJSON is any JSON value, for schemas that allow anything.
func (v *values) anyJSON(depth int) any {
	if depth >= maxDepth {
		return v.scalar()
	}
	switch v.pick(6) {
	case 0:
		out := []any{}
		for range v.pick(4) {
			out = append(out, v.anyJSON(depth+1))
		}
		return out
	case 1:
		out := map[string]any{}
		for i := range v.pick(4) {
			out[fmt.Sprintf("f%d", i)] = v.anyJSON(depth + 1)
		}
		return out
	}
	return v.scalar()
}

// wrongType returns a value of another JSON type than the schema's.
func (v *values) wrongType(ref *openapi3.SchemaRef) any {
	candidates := []any{json.Number("42"), "a string", true, []any{1}, map[string]any{"x": 1}}
	if ref == nil || ref.Value == nil || len(ref.Value.AnyOf) > 0 || ref.Value.Type == nil {
		return nil // only null is wrong for "any value": handled by the caller
	}
	var out []any
	for _, c := range candidates {
		if ref.Value.VisitJSON(normalize(c)) != nil {
			out = append(out, c)
		}
	}
	if !ref.Value.Nullable {
		out = append(out, nil)
	}
	if len(out) == 0 {
		return nil
	}
	return out[v.pick(len(out))]
}

// normalize turns json.Number into float64, which is what kin-openapi's VisitJSON
// expects.
func normalize(x any) any {
	b, _ := json.Marshal(x)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}
