package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/inferd/inferd/internal/auth"
)

// errDuplicateKey marks a request that carries X-API-Key more than once. Picking one of
// the values would let a proxy that appends a header and a client that sent its own
// disagree about who calls; the request is refused as unauthenticated (401) instead.
var errDuplicateKey = errors.New("more than one X-API-Key header")

// apiKey returns the request's one X-API-Key value ("" when there is none).
func apiKey(r *http.Request) (string, error) {
	vals := r.Header[headerAPIKey]
	switch len(vals) {
	case 0:
		return "", nil
	case 1:
		return vals[0], nil
	}
	return "", fmt.Errorf("%w: %w (%d)", auth.ErrUnauthenticated, errDuplicateKey, len(vals))
}

// authorize is Keys.Authorize for the request's key.
func (s *Server) authorize(r *http.Request, scope auth.Scope) (auth.Principal, error) {
	key, err := apiKey(r)
	if err != nil {
		return auth.Principal{}, err
	}
	return s.keys.Authorize(key, scope)
}

// unauthorizedDetail is the detail of a 401: what to send instead.
func unauthorizedDetail(err error, fallback string) string {
	if errors.Is(err, errDuplicateKey) {
		return "send the X-API-Key header once; this request has it more than once"
	}
	return fallback
}
