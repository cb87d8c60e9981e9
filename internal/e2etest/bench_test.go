package e2etest

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/inferd/inferd/client"
)

// BenchmarkPredict compares a synchronous echo prediction made through the SDK with
// the same request made with net/http alone, against the same server, to show what
// the SDK adds on the client side (encoding, the generated request builder,
// decoding). Neither validates responses. The server is proctest's -race build unless
// INFERD_E2E_URL names another, so compare the two figures rather than quote either.
func BenchmarkPredict(b *testing.B) {
	tg := start(b)
	body := []byte(`{"model":"echo","version":"v1","data":{"text":"hello","n":42}}`)
	b.Run("sdk", func(b *testing.B) {
		c, err := client.New(tg.url, client.WithAPIKey(devKey()))
		if err != nil {
			b.Fatal(err)
		}
		req := client.PredictRequest{Model: "echo", Version: "v1", Data: map[string]any{"text": "hello", "n": 42}}
		for b.Loop() {
			if _, err := c.Predict(b.Context(), req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("net-http", func(b *testing.B) {
		h := &http.Client{}
		for b.Loop() {
			req, err := http.NewRequestWithContext(b.Context(), http.MethodPost, tg.url+"/predict", bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-API-Key", devKey())
			resp, err := h.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
}
