package webhook_test

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/webhook"
)

func TestSign(t *testing.T) {
	tests := []struct {
		name, secret, id string
		ts               int64
		body, want       string
	}{
		// Computed apart from this package, with Python's hmac and base64.
		{"vector", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
			`{"test": 2432232314}`, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := webhook.ParseSecret(tt.secret)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Sign(tt.id, tt.ts, []byte(tt.body)); got != tt.want {
				t.Errorf("Sign = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestSignVerifies: what Sign writes now, the test's own receiver accepts, and it
// refuses the same headers over another body.
func TestSignVerifies(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	s, err := webhook.ParseSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	body := []byte(`{"job_id":"0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b","status":"succeeded"}`)
	h := http.Header{}
	h.Set("webhook-id", "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b")
	h.Set("webhook-timestamp", strconv.FormatInt(now, 10))
	h.Set("webhook-signature", s.Sign(h.Get("webhook-id"), now, body))
	if err := verify(secret, h, body); err != nil {
		t.Errorf("the receiver refused a signed message: %v", err)
	}
	if err := verify(secret, h, append(body, ' ')); err == nil {
		t.Error("the receiver accepted a body that was not signed")
	}
}

func TestParseSecret(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"24 bytes", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", true},
		{"32 bytes", "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", true},
		{"no prefix", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", false},
		{"not base64", "whsec_not base64!", false},
		{"too short", "whsec_c2hvcnQ=", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := webhook.ParseSecret(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseSecret(%q) = %v, want ok %v", tt.in, err, tt.ok)
			}
			if err != nil && !errors.Is(err, webhook.ErrBadSecret) {
				t.Errorf("error %v is not ErrBadSecret", err)
			}
		})
	}
}
