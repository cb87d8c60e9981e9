package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// httpAPI is a stand-in for the Go SDK until it lands; it speaks the contract directly.
type httpAPI struct {
	base string
	key  string
	http *http.Client
}

func newAPI(base, key string, hc *http.Client) (api, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usagef("--url %q is not an http(s) URL", base)
	}
	return &httpAPI{base: strings.TrimSuffix(base, "/"), key: key, http: hc}, nil
}

// apiError is a non-2xx answer.
type apiError struct{ p problemInfo }

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.p.Status, e.p.Code, e.p.Detail) }

func asProblem(err error) *problemInfo {
	var e *apiError
	if errors.As(err, &e) {
		return &e.p
	}
	return nil
}

func (a *httpAPI) do(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, r)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.key != "" {
		req.Header.Set("X-API-Key", a.key)
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var p struct {
			Title     string `json:"title"`
			Detail    string `json:"detail"`
			Code      string `json:"code"`
			RequestID string `json:"request_id"`
		}
		_ = json.Unmarshal(data, &p)
		ra, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		rid := p.RequestID
		if rid == "" {
			rid = resp.Header.Get("X-Request-ID")
		}
		return &apiError{problemInfo{Status: resp.StatusCode, Code: p.Code, Title: p.Title, Detail: p.Detail, RequestID: rid, RetryAfter: ra}}
	}
	return json.Unmarshal(data, out)
}

type predictBody struct {
	Model   string          `json:"model"`
	Version string          `json:"version,omitempty"`
	Data    json.RawMessage `json:"data"`
}

type batchBody struct {
	Model   string            `json:"model"`
	Version string            `json:"version,omitempty"`
	Items   []json.RawMessage `json:"items"`
}

func (a *httpAPI) Predict(ctx context.Context, model, version string, data json.RawMessage) (*prediction, error) {
	var out prediction
	return &out, a.do(ctx, http.MethodPost, "/predict", predictBody{model, version, data}, &out)
}

func (a *httpAPI) PredictBatch(ctx context.Context, model, version string, items []json.RawMessage) (*batchPrediction, error) {
	var out batchPrediction
	return &out, a.do(ctx, http.MethodPost, "/predict/batch", batchBody{model, version, items}, &out)
}

func (a *httpAPI) Submit(ctx context.Context, model, version string, data json.RawMessage) (string, error) {
	var out struct {
		JobID string `json:"job_id"`
	}
	err := a.do(ctx, http.MethodPost, "/predict/async", predictBody{model, version, data}, &out)
	return out.JobID, err
}

func (a *httpAPI) SubmitBatch(ctx context.Context, model, version string, items []json.RawMessage) (string, error) {
	var out struct {
		JobID string `json:"job_id"`
	}
	err := a.do(ctx, http.MethodPost, "/predict/async/batch", batchBody{model, version, items}, &out)
	return out.JobID, err
}

func (a *httpAPI) Job(ctx context.Context, id string) (*job, error) {
	var out job
	return &out, a.do(ctx, http.MethodGet, "/jobs/"+url.PathEscape(id), nil, &out)
}

func (a *httpAPI) CancelJob(ctx context.Context, id string) (*job, error) {
	var out job
	return &out, a.do(ctx, http.MethodDelete, "/predict/async/"+url.PathEscape(id), nil, &out)
}

func (a *httpAPI) Models(ctx context.Context) (*modelList, error) {
	var out modelList
	return &out, a.do(ctx, http.MethodGet, "/models", nil, &out)
}

func (a *httpAPI) Model(ctx context.Context, name, version string) (any, error) {
	var out json.RawMessage
	err := a.do(ctx, http.MethodGet, "/models/"+url.PathEscape(name)+"/"+url.PathEscape(version), nil, &out)
	return out, err
}

func (a *httpAPI) Reload(ctx context.Context, name, version string) (any, error) {
	var out json.RawMessage
	err := a.do(ctx, http.MethodPost, "/admin/models/"+url.PathEscape(name)+"/"+url.PathEscape(version)+"/reload", nil, &out)
	return out, err
}

func (a *httpAPI) Memory(ctx context.Context) (any, error) {
	var out json.RawMessage
	err := a.do(ctx, http.MethodGet, "/admin/models/memory", nil, &out)
	return out, err
}
