package e2etest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/client"
)

// exampleModels are the versions of the example repository and the built-in echo.
var exampleModels = []client.ModelEntry{
	{Name: "diabetes", Version: "v1"}, {Name: "digits", Version: "v1"}, {Name: "digits-cnn", Version: "v1"},
	{Name: "echo", Version: "v1"}, {Name: "echo", Version: "v2"}, {Name: "iris", Version: "v1"},
	{Name: "iris", Version: "v2"}, {Name: "wine", Version: "v1"},
}

func TestModels(t *testing.T) {
	tg := start(t)
	t.Run("list", func(t *testing.T) {
		list, err := tg.dev.Models(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range exampleModels {
			if !slices.Contains(list.Models, m) {
				t.Errorf("%s %s missing from %+v", m.Name, m.Version, list.Models)
			}
		}
	})
	t.Run("metadata", func(t *testing.T) {
		m, err := tg.dev.Model(ctx(t), "iris", "v1")
		if err != nil {
			t.Fatal(err)
		}
		if m.Name != "iris" || m.Version != "v1" || m.Status != "ready" || m.Error != nil ||
			len(m.Inputs) != 1 || !slices.Equal(m.Inputs[0].Shape, []int64{-1, 4}) ||
			!slices.Equal(m.Versions, []string{"v1", "v2"}) || m.Routing.Strategy != "weighted" ||
			len(m.Preprocess) == 0 || m.Preprocess[0].Name != "to_tensor" {
			t.Errorf("metadata %+v", m)
		}
	})
	tests := []struct {
		name, model, version, code string
	}{
		{"unknown model", "nope", "v1", client.CodeModelNotFound},
		{"unknown version", "iris", "v9", client.CodeVersionNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tg.dev.Model(ctx(t), tt.model, tt.version)
			wantProblem(t, err, http.StatusNotFound, tt.code)
		})
	}
}

func TestAdmin(t *testing.T) {
	tg := start(t)
	t.Run("loaded models", func(t *testing.T) {
		list, err := tg.admin.LoadedModels(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range exampleModels {
			i := slices.IndexFunc(list.Models, func(m client.LoadedModel) bool { return m.Name == want.Name && m.Version == want.Version })
			if i < 0 || list.Models[i].LoadedAt.IsZero() {
				t.Errorf("%s %s not loaded: %+v", want.Name, want.Version, list.Models)
			}
		}
		if tg.own && len(list.Failed) != 0 {
			t.Errorf("failed loads: %+v", list.Failed)
		}
	})
	reloads := []struct{ name, version string }{{"echo", "v1"}, {"iris", "v2"}}
	for _, r := range reloads {
		t.Run("reload "+r.name+" "+r.version, func(t *testing.T) {
			res, err := tg.admin.Reload(ctx(t), r.name, r.version)
			if err != nil {
				t.Fatal(err)
			}
			if res.Name != r.name || res.Version != r.version || res.LoadDurationMs < 0 || res.LoadedAt.IsZero() {
				t.Errorf("reload %+v", res)
			}
			// The new pipeline serves.
			if _, err := tg.dev.PredictBatch(ctx(t), client.BatchRequest{Model: r.name, Version: r.version, Items: []any{[]float64{5.1, 3.5, 1.4, 0.2}}}); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("reload of an unknown model", func(t *testing.T) {
		_, err := tg.admin.Reload(ctx(t), "nope", "v1")
		wantProblem(t, err, http.StatusNotFound, client.CodeModelNotFound)
	})
	t.Run("memory", func(t *testing.T) {
		m, err := tg.admin.Memory(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(m.Pipelines, func(p client.PipelineMemory) bool { return p.Name == "iris" && p.Version == "v1" })
		if i < 0 || m.Pipelines[i].ArtifactBytes <= 0 || m.Process.RssBytes <= 0 || m.Process.Goroutines <= 0 {
			t.Errorf("memory report %+v", m)
		}
	})
	t.Run("queue dashboard", func(t *testing.T) {
		page, err := tg.admin.QueueUI(ctx(t))
		if tg.own || err != nil {
			// In-process jobs: there is no queue to show.
			wantProblem(t, err, http.StatusNotFound, client.CodeNotFound)
			return
		}
		if !strings.Contains(strings.ToLower(string(page)), "<html") {
			t.Errorf("not a page: %.200s", page)
		}
	})
}

func TestSystem(t *testing.T) {
	tg := start(t)
	contract, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	t.Run("health", func(t *testing.T) {
		if h, err := tg.anon.Health(ctx(t)); err != nil || h.Status != "ok" {
			t.Errorf("health %+v, %v", h, err)
		}
	})
	t.Run("ready", func(t *testing.T) {
		if r, err := tg.anon.Ready(ctx(t)); err != nil || r.Status != "ready" {
			t.Errorf("ready %+v, %v", r, err)
		}
	})
	t.Run("metrics", func(t *testing.T) {
		if _, err := tg.dev.Predict(ctx(t), client.PredictRequest{Model: "echo", Data: 1}); err != nil {
			t.Fatal(err)
		}
		text, err := tg.anon.Metrics(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`inferd_http_requests_total{code="200",operation="predict"}`, "inferd_models_loaded"} {
			if !strings.Contains(text, want) {
				t.Errorf("the metrics lack %s", want)
			}
		}
	})
	t.Run("contract as YAML", func(t *testing.T) {
		doc, err := tg.anon.OpenAPIYAML(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(doc), "openapi: 3.0") || !strings.Contains(string(doc), "version: "+contract.Info.Version) {
			t.Errorf("not contract %s: %.200s", contract.Info.Version, doc)
		}
	})
	t.Run("contract as JSON", func(t *testing.T) {
		doc, err := tg.anon.OpenAPIJSON(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Info  struct{ Version string }
			Paths map[string]json.RawMessage
		}
		if err := json.Unmarshal(doc, &got); err != nil {
			t.Fatal(err)
		}
		if got.Info.Version != contract.Info.Version || len(got.Paths) != contract.Paths.Len() {
			t.Errorf("contract %s with %d paths, want %s with %d", got.Info.Version, len(got.Paths), contract.Info.Version, contract.Paths.Len())
		}
	})
	t.Run("docs page", func(t *testing.T) {
		page, err := tg.anon.Docs(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.ToLower(string(page)), "<html") {
			t.Errorf("not a page: %.200s", page)
		}
	})
}
