package testkit

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// SameJSON reports whether a and b are the same JSON value. Numbers compare by their
// decimal text, so 12345678901234567890 must come back exactly; the order of members
// and insignificant spaces (or escaping) do not matter. A text that is not JSON is
// the same as nothing.
func SameJSON(a, b []byte) bool {
	va, errA := decode(a)
	vb, errB := decode(b)
	return errA == nil && errB == nil && reflect.DeepEqual(va, vb)
}

// decode reads a JSON value, numbers as json.Number.
func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
