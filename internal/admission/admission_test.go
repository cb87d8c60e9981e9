package admission_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/inferd/inferd/internal/admission"
	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/problem"
)

func newAdmission(t *testing.T, opts admission.Options) *admission.Admission {
	t.Helper()
	keys, err := auth.Parse("test", "k-predict:predict\nk-read:read_models")
	if err != nil {
		t.Fatal(err)
	}
	opts.Keys, opts.Metrics = auth.NewKeys(keys), metrics.New(prometheus.NewRegistry())
	a, err := admission.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// client is a call's client, asked for its address and the refusal's labels.
var client = admission.Call{Addr: func() string { return "192.0.2.1" }, Labels: func() (string, string) { return "predict", "" }}

// TestAdmit walks one key through the steps REST's gate and gRPC's interceptor share:
// a wrong key, a key without the scope, the concurrency cap, the token bucket.
func TestAdmit(t *testing.T) {
	a := newAdmission(t, admission.Options{MaxConcurrentPerKey: 1, RateLimitRPS: 0.001, RateLimitBurst: 2})

	if _, err := a.Admit("nope", nil, auth.ScopePredict, client); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("unknown key: %v, want ErrUnauthenticated", err)
	}
	tk, err := a.Admit("k-read", nil, auth.ScopePredict, client)
	if !errors.Is(err, auth.ErrForbidden) || tk.Authorized || tk.Principal.ID == "" {
		t.Fatalf("key without the scope: %+v, %v; want ErrForbidden, its principal, not authorized", tk, err)
	}

	first, err := a.Admit("k-predict", nil, auth.ScopePredict, client)
	if err != nil || !first.Authorized || first.Held == nil {
		t.Fatalf("first call: %+v, %v", first, err)
	}
	second, err := a.Admit("k-predict", nil, auth.ScopePredict, client)
	var le *admission.LimitError
	if !errors.As(err, &le) || le.Code != problem.CodeConcurrencyLimited || !second.Authorized || second.Held != nil {
		t.Fatalf("a second call in progress: %+v, %v; want concurrency_limited, authorized", second, err)
	}
	first.Release()
	first.Release() // once only: the count must not go below zero

	third, err := a.Admit("k-predict", nil, auth.ScopePredict, client)
	if err != nil {
		t.Fatalf("after the first was released: %v", err)
	}
	third.Release()
	// The bucket's burst of 2 is spent (first, third); the refused second took no token.
	_, err = a.Admit("k-predict", nil, auth.ScopePredict, client)
	if !errors.As(err, &le) || le.Code != problem.CodeRateLimited || le.Retry < 1 || !strings.Contains(le.Detail, "burst 2") {
		t.Fatalf("past the burst: %v, want rate_limited with a retry", err)
	}
	// Other scopes take no token.
	if tk, err := a.Admit("k-read", nil, auth.ScopeReadModels, client); err != nil {
		t.Fatalf("read_models: %v", err)
	} else {
		tk.Release()
	}
}

// TestAuthThrottle: a client that keeps failing is answered with a limit, a valid key
// from the same address is not.
func TestAuthThrottle(t *testing.T) {
	a := newAdmission(t, admission.Options{AuthFailuresPerMinute: 2})
	for i := range 2 {
		if _, err := a.Admit("nope", nil, auth.ScopePredict, client); !errors.Is(err, auth.ErrUnauthenticated) {
			t.Fatalf("failure %d: %v, want ErrUnauthenticated", i+1, err)
		}
	}
	var le *admission.LimitError
	if _, err := a.Admit("nope", nil, auth.ScopePredict, client); !errors.As(err, &le) || le.Code != problem.CodeAuthThrottled {
		t.Fatalf("third failure: %v, want auth_throttled", err)
	}
	tk, err := a.Admit("k-predict", nil, auth.ScopePredict, client)
	if err != nil {
		t.Fatalf("a valid key from the same address: %v", err)
	}
	tk.Release()
	keyErr := errors.Join(auth.ErrUnauthenticated, errors.New("two keys"))
	if _, err := a.Admit("k-predict", keyErr, auth.ScopePredict, client); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Fatalf("KeyErr: %v, want it refused as unauthenticated", err)
	}
}
