package oip_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"

	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/oip"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/problem"
	"github.com/inferd/inferd/internal/registry"
)

// The registry is what the Service is wired with.
var _ oip.Models = (*registry.Registry)(nil)

// service is a Service over a loaded echo model and one whose load failed.
func service(t *testing.T) *oip.Service {
	t.Helper()
	loaded := registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) { return echo.New("v1"), nil })
	broken := registry.LoaderFunc(func(context.Context) (*pipeline.Pipeline, error) { return nil, errors.New("no such file") })
	reg := registry.New(registry.Options{Logger: slog.New(slog.DiscardHandler), Sources: []registry.Source{registry.Fixed{
		{Name: "echo", Versions: []registry.VersionSpec{{Version: "v1", Loader: loaded}}},
		{Name: "broken", Versions: []registry.VersionSpec{{Version: "v1", Loader: broken}}},
	}}})
	t.Cleanup(func() { _ = reg.Close() })
	if err := reg.Discover(t.Context()); err != nil {
		t.Fatal(err)
	}
	reg.Load(t.Context())
	return &oip.Service{Registry: reg, Ready: func(context.Context) (bool, error) { return reg.Ready(), nil }}
}

func TestServiceModelReady(t *testing.T) {
	s := service(t)
	tests := []struct {
		name, model, version string
		want                 oip.ModelReady
		code                 string // the refusal's, when refused
	}{
		{"loaded", "echo", "", oip.ModelReady{Name: "echo", Version: "v1", Ready: true}, ""},
		{"loaded version", "echo", "v1", oip.ModelReady{Name: "echo", Version: "v1", Ready: true}, ""},
		{"failed", "broken", "v1", oip.ModelReady{Name: "broken", Version: "v1", Ready: false}, ""},
		{"unknown model", "nope", "", oip.ModelReady{}, problem.CodeModelNotFound},
		{"unknown version", "echo", "v9", oip.ModelReady{}, problem.CodeVersionNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ModelReady(tt.model, tt.version)
			checkRefusal(t, err, tt.code)
			if got != tt.want {
				t.Errorf("%+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestServiceModelMetadata(t *testing.T) {
	s := service(t)
	md, err := s.ModelMetadata("echo", "")
	if err != nil {
		t.Fatal(err)
	}
	// Never nil, so that /v2 answers [] rather than null.
	if md.Name != "echo" || md.Platform != "echo" || !slices.Equal(md.Versions, []string{"v1"}) || md.Inputs == nil || md.Outputs == nil || len(md.Inputs)+len(md.Outputs) != 0 {
		t.Errorf("%+v", md)
	}
	tests := []struct {
		name, model, version, code string
	}{
		{"failed", "broken", "v1", problem.CodeModelUnavailable},
		{"unknown model", "nope", "", problem.CodeModelNotFound},
		{"unknown version", "echo", "v9", problem.CodeVersionNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.ModelMetadata(tt.model, tt.version)
			checkRefusal(t, err, tt.code)
		})
	}
}

func TestServiceServer(t *testing.T) {
	s := service(t)
	if md := s.ServerMetadata(); md.Name != "inferd" || md.Version == "" || !slices.Contains(md.Extensions, "binary_tensor_data") {
		t.Errorf("%+v", md)
	}
	if ready, err := s.ServerReady(t.Context()); err != nil || !ready {
		t.Errorf("ready %v, %v", ready, err)
	}
}

// checkRefusal fails t unless err is refused with code (none when ""), an unknown
// name as a missing resource (named in the call's path).
func checkRefusal(t *testing.T, err error, code string) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	kind, got := problem.Classify(err)
	want := problem.Unavailable
	if code != problem.CodeModelUnavailable {
		want = problem.NotFound
	}
	if got != code || kind != want {
		t.Errorf("refused %v %s (%v), want %v %s", kind, got, err, want, code)
	}
}
