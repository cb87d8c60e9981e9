package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
)

// Health is the liveness probe (GET /health, operation health; no key needed).
func (c *Client) Health(ctx context.Context) (*Health, error) {
	resp, err := c.gen.Health(ctx)
	var out Health
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Ready is the readiness probe (GET /ready, operation ready; no key needed). While
// the pipelines of the load at start are loading the server answers 503, and after
// it too when a version's load at start failed (strict readiness): Ready then returns
// both the readiness (status loading, or failed, its Failed naming the versions) and
// an *Error with status 503 and its RetryAfter, so `if err != nil` means "not ready"
// and the readiness is there for those who look.
func (c *Client) Ready(ctx context.Context) (*Readiness, error) {
	resp, err := c.gen.Ready(ctx)
	var out Readiness
	err = read(resp, err, &out)
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusServiceUnavailable && e.Code == "" {
		if json.Unmarshal(e.body, &out) == nil && out.Status != "" {
			return &out, err
		}
	}
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// Metrics returns the Prometheus text exposition (GET /metrics, operation metrics; no
// key needed).
func (c *Client) Metrics(ctx context.Context) (string, error) {
	resp, err := c.gen.Metrics(ctx)
	out, err := readBytes(resp, err)
	return string(out), err
}
