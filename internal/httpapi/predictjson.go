package httpapi

import (
	"bytes"
	"encoding/json"

	"github.com/inferd/inferd/gen/api"
	"github.com/inferd/inferd/internal/jsonscan"
)

// encodePrediction writes the answers of /predict and /predict/batch into buf as
// encoding/json would (members in the struct's order, raw values compacted, no HTML
// escaping, a final newline), without reflection and without re-scanning results that
// are already compact. ok is false, buf untouched, for what it does not spell the
// same way (a name that needs escaping, a missing value): the caller encodes those.
func encodePrediction(buf *bytes.Buffer, v any) (ok bool) {
	n := buf.Len()
	defer func() {
		if !ok {
			buf.Truncate(n)
		}
	}()
	switch p := v.(type) {
	case api.Prediction:
		if !jsonscan.Plain(p.Model) || !jsonscan.Plain(p.Version) {
			return false
		}
		buf.WriteString(`{"model":"`)
		buf.WriteString(p.Model)
		buf.WriteString(`","result":`)
		if !appendRaw(buf, p.Result) {
			return false
		}
		buf.WriteString(`,"version":"`)
		buf.WriteString(p.Version)
		buf.WriteString("\"}\n")
		return true
	case api.BatchPrediction:
		if !jsonscan.Plain(p.Model) || !jsonscan.Plain(p.Version) || p.Results == nil || p.ItemErrors != nil {
			return false
		}
		buf.WriteString(`{"model":"`)
		buf.WriteString(p.Model)
		buf.WriteString(`","results":[`)
		for i, r := range p.Results {
			if i > 0 {
				buf.WriteByte(',')
			}
			if !appendRaw(buf, r) {
				return false
			}
		}
		buf.WriteString(`],"version":"`)
		buf.WriteString(p.Version)
		buf.WriteString("\"}\n")
		return true
	}
	return false
}

// appendRaw appends a raw JSON value compacted, as encoding/json does with a
// json.RawMessage. A value with no byte at or below the space is compact already
// (whitespace is all that compacting removes, and valid JSON has no other byte that
// low), so it is copied as it is.
func appendRaw(buf *bytes.Buffer, raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	for _, c := range raw {
		if c <= ' ' {
			return json.Compact(buf, raw) == nil
		}
	}
	buf.Write(raw)
	return true
}
