package client_test

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/inferd/inferd/client"
	"github.com/inferd/inferd/internal/webhook"
)

// TestVerifyWebhook: what the server signs verifies; another body, another secret, an
// old timestamp or no signature does not.
func TestVerifyWebhook(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	s, err := webhook.ParseSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"job_id":"0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b","status":"succeeded"}`)
	signed := func(at time.Time, b []byte) http.Header {
		h := http.Header{}
		h.Set("webhook-id", "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b")
		h.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
		// A receiver must accept a list, as during a key rotation.
		h.Set("webhook-signature", "v1,bm90IHRoaXMgb25l "+s.Sign(h.Get("webhook-id"), at.Unix(), b))
		return h
	}
	tests := []struct {
		name   string
		secret string
		header http.Header
		body   []byte
		ok     bool
	}{
		{"signed", secret, signed(time.Now(), body), body, true},
		{"another body", secret, signed(time.Now(), body), append([]byte(" "), body...), false},
		{"another secret", "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", signed(time.Now(), body), body, false},
		{"old", secret, signed(time.Now().Add(-time.Hour), body), body, false},
		{"unsigned", secret, http.Header{}, body, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := client.VerifyWebhook(tt.secret, tt.header, tt.body, 0)
			if (err == nil) != tt.ok {
				t.Fatalf("VerifyWebhook = %v, want ok %v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, client.ErrWebhookSignature) {
				t.Errorf("error %v is not ErrWebhookSignature", err)
			}
		})
	}
}
