package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// SecretPrefix starts a Standard Webhooks secret; base64 of the key's bytes follows.
const SecretPrefix = "whsec_"

// ErrBadSecret: a secret that is not "whsec_" followed by base64 of at least 24 bytes.
var ErrBadSecret = errors.New("want whsec_ followed by the base64 of 24 to 64 random bytes, such as whsec_$(head -c 32 /dev/urandom | base64)")

// Secret is the key callbacks are signed with.
type Secret []byte

// ParseSecret reads a secret written as Standard Webhooks writes them.
func ParseSecret(s string) (Secret, error) {
	b64, ok := strings.CutPrefix(s, SecretPrefix)
	if !ok {
		return nil, ErrBadSecret
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	// Shorter keys are guessable; the specification asks for 24 to 64 bytes.
	if err != nil || len(key) < 24 || len(key) > 64 {
		return nil, ErrBadSecret
	}
	return Secret(key), nil
}

// Sign returns the webhook-signature header of a message: "v1," and the base64 of
// HMAC-SHA256 over "{id}.{timestamp}.{body}" with the secret's bytes.
func (s Secret) Sign(id string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, s)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write(strconv.AppendInt(nil, timestamp, 10))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}
