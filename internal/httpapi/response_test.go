package httpapi_test

import (
	"encoding/binary"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/apitest"
)

// TestOIPBytesNotText: BYTES elements that are not UTF-8 text, asked for as JSON, were
// answered 200 with U+FFFD in their place; now 400 invalid_input, telling the client to
// ask for binary data, which carries them byte for byte.
func TestOIPBytesNotText(t *testing.T) {
	h := newHarness(t)
	elems := []string{"text", "\xff\xfe", "ok"}
	var raw []byte
	for _, e := range elems {
		raw = binary.LittleEndian.AppendUint32(raw, uint32(len(e)))
		raw = append(raw, e...)
	}
	send := func(t *testing.T, outputs string) *apitest.Response {
		header := fmt.Sprintf(`{"inputs":[{"name":"s","shape":[3],"datatype":"BYTES","parameters":{"binary_data_size":%d}}]%s}`, len(raw), outputs)
		req := h.c.NewRequest(http.MethodPost, "/v2/models/echo/versions/v1/infer", keyPredict, append([]byte(header), raw...))
		req.Header.Set("Content-Type", "application/octet-stream")
		req.Header.Set("Inference-Header-Content-Length", strconv.Itoa(len(header)))
		return h.c.Do(req)
	}
	t.Run("as JSON", func(t *testing.T) {
		resp := send(t, "")
		if resp.Status != http.StatusBadRequest {
			t.Fatalf("status %d, want 400: %s", resp.Status, resp.Body)
		}
		want := `output "s" is BYTES, and its element 1 is not UTF-8 text, which a JSON string cannot carry unchanged; ask for it as binary data: "outputs":[{"name":"s","parameters":{"binary_data":true}}]`
		if e := resp.OIPError(t); e.Code != "invalid_input" || e.Error != want {
			t.Errorf("%s %q, want invalid_input %q", e.Code, e.Error, want)
		}
	})
	t.Run("as binary data", func(t *testing.T) {
		resp := send(t, `,"outputs":[{"name":"s","parameters":{"binary_data":true}}]`)
		n, err := strconv.Atoi(resp.Header.Get("Inference-Header-Content-Length"))
		if resp.Status != http.StatusOK || err != nil || string(resp.Body[n:]) != string(raw) {
			t.Fatalf("status %d, binary part %q, want %q", resp.Status, resp.Body, raw)
		}
	})
}

// TestResponseLimit: an answer encoded from a model's results past MAX_RESPONSE_BYTES
// is 413 response_too_large saying so (a /predict or /predict/batch answer, a /v2 infer
// answer in JSON or binary data), and a job whose result is past it fails with the
// reason in its record; answers within it are untouched. The cap is 4 KiB here, the
// requests a few KiB: a 1 KiB BOOL tensor is 5 KiB of JSON.
func TestResponseLimit(t *testing.T) {
	const limit = 4096
	h := newHarness(t, func(s *setup) { s.opts.MaxResponseBytes = limit })
	bools := func(n int, outputs string) *http.Request {
		header := fmt.Sprintf(`{"inputs":[{"name":"b","shape":[%d],"datatype":"BOOL","parameters":{"binary_data_size":%d}}]%s}`, n, n, outputs)
		body := append([]byte(header), make([]byte, n)...)
		req := h.c.NewRequest(http.MethodPost, "/v2/models/echo/versions/v1/infer", keyPredict, body)
		req.Header.Set("Content-Type", "application/octet-stream")
		req.Header.Set("Inference-Header-Content-Length", strconv.Itoa(len(header)))
		return req
	}
	text := func(n int) string { return `"` + strings.Repeat("x", n) + `"` }
	tests := []struct {
		name string
		req  *http.Request
		want string // in the detail
	}{
		{"predict", h.c.NewRequest(http.MethodPost, "/predict", keyPredict, `{"model":"echo","data":`+text(limit)+`}`), "split the batch, or send less data"},
		{"batch", h.c.NewRequest(http.MethodPost, "/predict/batch", keyPredict, `{"model":"echo","items":[`+text(limit/2)+`,`+text(limit/2)+`]}`), "split the batch"},
		{"infer, BOOL as JSON", bools(1024, ""), `or for binary data ("parameters":{"binary_data_output":true})`},
		{"infer, BOOL as JSON, refused before it is written", bools(limit, ""), "at least 20"},
		{"infer, binary data", bools(limit, `,"parameters":{"binary_data_output":true}`), "MAX_RESPONSE_BYTES (4096)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.c.Do(tt.req)
			if resp.Status != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d, want 413: %s", resp.Status, resp.Body)
			}
			code, detail := refusal(t, tt.req.URL.Path, resp)
			if code != "response_too_large" || !strings.Contains(detail, "more than MAX_RESPONSE_BYTES (4096) allows") || !strings.Contains(detail, tt.want) {
				t.Errorf("%s %q, want response_too_large with %q", code, detail, tt.want)
			}
		})
	}
	t.Run("within the cap", func(t *testing.T) {
		if resp := h.c.Post("/predict", keyPredict, `{"model":"echo","data":`+text(limit-100)+`}`); resp.Status != http.StatusOK || len(resp.Body) > limit {
			t.Fatalf("status %d, %d bytes", resp.Status, len(resp.Body))
		}
		if resp := h.c.Do(bools(512, "")); resp.Status != http.StatusOK || len(resp.Body) > limit {
			t.Fatalf("status %d, %d bytes", resp.Status, len(resp.Body))
		}
	})
	for _, tt := range []struct{ name, path, body, want string }{
		{"job", "/predict/async", `{"model":"echo","data":` + text(limit+1) + `}`, "send less data"},
		{"batch job", "/predict/async/batch", `{"model":"echo","items":[` + text(limit/2) + `,` + text(limit/2) + `]}`, "split the batch into smaller jobs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := waitFinal(t, h.c, submit(t, h.c, tt.path, tt.body))
			if rec.Status != "failed" || rec.ErrorMessage == nil || !strings.Contains(*rec.ErrorMessage, "more than MAX_RESPONSE_BYTES (4096) allows; "+tt.want) {
				t.Errorf("job %s, error %v", rec.Status, rec.ErrorMessage)
			}
			if rec.ErrorCode == nil || *rec.ErrorCode != "response_too_large" {
				t.Errorf("error_code %v, want response_too_large", rec.ErrorCode)
			}
		})
	}
}
