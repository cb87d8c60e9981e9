package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	gen "github.com/inferd/inferd/gen/client"
)

// DefaultUserAgent is sent as User-Agent unless WithUserAgent says otherwise.
const DefaultUserAgent = "inferd-go-sdk"

// Client calls one inferd server. It is safe for concurrent use.
type Client struct {
	gen       *gen.Client
	apiKey    string
	userAgent string
	http      *http.Client
}

// Option configures a Client.
type Option func(*Client)

// WithAPIKey sends key in the X-API-Key header of every call. Without it only the
// unauthenticated operations (health, ready, metrics, the contract) succeed.
func WithAPIKey(key string) Option { return func(c *Client) { c.apiKey = key } }

// WithHTTPClient sends the calls through h (timeouts, proxies, transports of your own).
// By default a Client has its own http.Client with no timeout: pass a context with a
// deadline to bound a call.
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithUserAgent replaces DefaultUserAgent.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a client of the server at baseURL (scheme, host and an optional path
// prefix, e.g. "http://localhost:8080").
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("inferd: base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("inferd: base URL %q: want http://host[:port] or https://host[:port]", baseURL)
	}
	c := &Client{userAgent: DefaultUserAgent}
	for _, o := range opts {
		o(c)
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	g, err := gen.NewClient(strings.TrimSuffix(baseURL, "/")+"/",
		gen.WithHTTPClient(c.http), gen.WithRequestEditorFn(c.edit))
	if err != nil {
		return nil, fmt.Errorf("inferd: %w", err)
	}
	c.gen = g
	return c, nil
}

// edit adds the headers every call carries.
func (c *Client) edit(_ context.Context, req *http.Request) error {
	if c.apiKey != "" {
		req.Header.Set("X-API-Key", c.apiKey)
	}
	req.Header.Set("User-Agent", c.userAgent)
	return nil
}

// read finishes a call made through the generated client: a 2xx body is decoded into
// out (or copied, when out is a *[]byte); anything else becomes an *Error.
func read(resp *http.Response, err error, out any) error {
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("inferd: reading the answer to %s %s: %w", resp.Request.Method, resp.Request.URL.Path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return newError(resp, body)
	}
	switch o := out.(type) {
	case nil:
		return nil
	case *[]byte:
		*o = body
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("inferd: decoding the answer to %s %s: %w", resp.Request.Method, resp.Request.URL.Path, err)
	}
	return nil
}

// readBytes reads a 2xx answer whole, for the operations that answer a document or
// a profile rather than JSON.
func readBytes(resp *http.Response, err error) ([]byte, error) {
	var out []byte
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// errEmptyID refuses a call that would name no job: its path would be another route.
var errEmptyID = errors.New("inferd: empty job id")

// contentJSON is the media type of every request body.
const contentJSON = "application/json"

// encode marshals a request value, keeping a json.RawMessage's values as they are:
// without HTML escaping, "<&>" travels as those characters, not as \u003c escapes
// three times their size.
func encode(what string, v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("inferd: encoding %s: %w", what, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
