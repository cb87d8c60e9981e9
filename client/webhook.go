package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrWebhookSignature: a callback whose signature, or timestamp, does not verify.
var ErrWebhookSignature = errors.New("inferd: the callback's signature does not verify")

// VerifyWebhook checks a completion callback as the Standard Webhooks specification
// describes: secret is WEBHOOK_SECRET (whsec_ and base64 of the key), body the
// request's body exactly as received, and the webhook-timestamp must be within
// tolerance of now (0 means 5 minutes), so a recorded request cannot be replayed
// later. A nil error means inferd sent it; decode body into a JobRecord. The
// webhook-id header, the job's id, is the same on every attempt at one callback.
func VerifyWebhook(secret string, header http.Header, body []byte, tolerance time.Duration) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || !strings.HasPrefix(secret, "whsec_") {
		return errors.New("inferd: the secret is not whsec_ followed by base64")
	}
	if tolerance <= 0 {
		tolerance = 5 * time.Minute
	}
	id, ts := header.Get("webhook-id"), header.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || id == "" {
		return fmt.Errorf("%w: no webhook-id, or a webhook-timestamp that is not Unix seconds (%q)", ErrWebhookSignature, ts)
	}
	if d := time.Since(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%w: webhook-timestamp is %s from now", ErrWebhookSignature, d.Round(time.Second))
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(header.Get("webhook-signature")) {
		if b64, ok := strings.CutPrefix(sig, "v1,"); ok {
			if got, err := base64.StdEncoding.DecodeString(b64); err == nil && hmac.Equal(got, want) {
				return nil
			}
		}
	}
	return ErrWebhookSignature
}
