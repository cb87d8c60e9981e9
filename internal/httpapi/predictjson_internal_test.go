package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/inferd/inferd/gen/api"
)

// TestEncodePrediction: the hand-written encoding is encoding/json's, byte for byte,
// and leaves to it what it does not spell.
func TestEncodePrediction(t *testing.T) {
	raws := []string{
		`1`, `null`, `"text"`, `{"text":"hello","n":12345678901234567890}`,
		"{ \"a\" : [ 1 ,\n\t2 ] , \"b\" : \"x y\" }", `"<b>&amp;</b>"`, "\"\u2028caf\u00e9\"",
		`[[],{},[{"k":[true,false,null]}]]`, `-0.5e-3`,
	}
	var values []any
	for _, r := range raws {
		values = append(values, api.Prediction{Model: "echo", Version: "v1", Result: json.RawMessage(r)})
	}
	batch := make([]json.RawMessage, len(raws))
	for i, r := range raws {
		batch[i] = json.RawMessage(r)
	}
	values = append(values,
		api.BatchPrediction{Model: "iris", Version: "v2", Results: batch},
		api.BatchPrediction{Model: "iris", Version: "v2", Results: []json.RawMessage{}},
	)
	for _, v := range values {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if !encodePrediction(&got, v) {
			t.Fatalf("%s: not encoded", want.Bytes())
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("got  %s\nwant %s", got.Bytes(), want.Bytes())
		}
	}
	for _, v := range []any{
		api.Prediction{Model: "e\"cho", Version: "v1", Result: json.RawMessage(`1`)},
		api.Prediction{Model: "caf\u00e9", Version: "v1", Result: json.RawMessage(`1`)},
		api.Prediction{Model: "echo", Version: "v1"},
		api.BatchPrediction{Model: "echo", Version: "v1"},
		api.BatchPrediction{Model: "echo", Version: "v1", Results: []json.RawMessage{json.RawMessage(`1`), nil}},
		api.AsyncSubmitResponse{},
	} {
		buf := bytes.NewBufferString("kept")
		if encodePrediction(buf, v) || buf.String() != "kept" {
			t.Errorf("%+v: encoded as %q", v, buf)
		}
	}
}
