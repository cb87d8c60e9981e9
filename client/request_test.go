package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/inferd/inferd/client"
)

// TestRequestBodiesOnTheWire reads the bytes each body-taking call sends: HTML
// characters as written, big integers digit for digit, one compact JSON document.
func TestRequestBodiesOnTheWire(t *testing.T) {
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTeapot) // the answer does not matter here
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	c, err := client.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	data := json.RawMessage(`{"t": "<&>", "n": 12345678901234567890}`)
	one := client.PredictRequest{Model: "echo", Version: "v1", Data: data}
	batch := client.BatchRequest{Model: "echo", Items: []any{data, "a<b"}}
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"Predict", func() error { _, err := c.Predict(ctx, one); return err },
			`{"data":{"t":"<&>","n":12345678901234567890},"model":"echo","version":"v1"}`},
		{"Submit", func() error { _, err := c.Submit(ctx, one); return err },
			`{"data":{"t":"<&>","n":12345678901234567890},"model":"echo","version":"v1"}`},
		{"PredictBatch", func() error { _, err := c.PredictBatch(ctx, batch); return err },
			`{"items":[{"t":"<&>","n":12345678901234567890},"a<b"],"model":"echo"}`},
		{"SubmitBatch", func() error { _, err := c.SubmitBatch(ctx, batch); return err },
			`{"items":[{"t":"<&>","n":12345678901234567890},"a<b"],"model":"echo"}`},
		{"Submit with a callback", func() error {
			r := one
			r.CallbackURL = "https://hooks.example.com/inferd?a=1&b=2"
			_, err := c.Submit(ctx, r)
			return err
		}, `{"callback_url":"https://hooks.example.com/inferd?a=1&b=2","data":{"t":"<&>","n":12345678901234567890},"model":"echo","version":"v1"}`},
		{"SubmitBatch with a callback", func() error {
			r := batch
			r.CallbackURL = "https://hooks.example.com/inferd"
			_, err := c.SubmitBatch(ctx, r)
			return err
		}, `{"callback_url":"https://hooks.example.com/inferd","items":[{"t":"<&>","n":12345678901234567890},"a<b"],"model":"echo"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got = nil
			if err := tt.call(); err == nil {
				t.Fatal("a 418 answer gave no error")
			}
			if string(got) != tt.want {
				t.Errorf("sent %s\nwant %s", got, tt.want)
			}
		})
	}
	// A synchronous prediction answers with its result: a callback is refused before
	// anything is sent.
	for name, call := range map[string]func() error{
		"Predict": func() error {
			r := one
			r.CallbackURL = "https://h.example.com"
			_, err := c.Predict(ctx, r)
			return err
		},
		"PredictBatch": func() error {
			r := batch
			r.CallbackURL = "https://h.example.com"
			_, err := c.PredictBatch(ctx, r)
			return err
		},
	} {
		t.Run(name+" with a callback", func(t *testing.T) {
			got = nil
			if err := call(); err == nil || got != nil {
				t.Errorf("error %v, sent %q: want refused before sending", err, got)
			}
		})
	}
}
