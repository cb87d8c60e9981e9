package cli

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/inferd/inferd/client"
)

// client builds the SDK client from the flags. --timeout bounds each request; the
// SDK's own default is no timeout.
func (e *env) client() (*client.Client, error) {
	c, err := client.New(e.url, client.WithAPIKey(e.apiKey),
		client.WithHTTPClient(&http.Client{Timeout: e.timeout}),
		client.WithUserAgent("inferctl/"+buildVersion().Version))
	if err != nil {
		return nil, usagef("--url %q is not an http(s) URL (INFERD_URL sets it too)", e.url)
	}
	return c, nil
}

// asProblem returns the server's refusal inside err, if that is what err is.
func asProblem(err error) *client.Error {
	var p *client.Error
	if errors.As(err, &p) {
		return p
	}
	return nil
}

// anyItems hands raw JSON items to the SDK, which sends a json.RawMessage as it is.
func anyItems(raw []json.RawMessage) []any {
	out := make([]any, len(raw))
	for i, r := range raw {
		out[i] = r
	}
	return out
}
