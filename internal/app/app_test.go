package app_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/app"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/repository"
	"github.com/inferd/inferd/internal/testkit"
)

// started is a server run by app.Run in this process.
type started struct {
	c    *apitest.Client
	url  string
	grpc string // host:port of the gRPC listener
	done chan error
}

// startApp runs the server with the given settings on a free port and waits until it
// is ready (or, with wantReady false, until it listens).
func startApp(t *testing.T, env map[string]string, wantReady bool) *started {
	t.Helper()
	return startAppWith(t, env, wantReady, app.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// startAppWith is startApp with opts (their Config and Listener are set here).
func startAppWith(t *testing.T, env map[string]string, wantReady bool, opts app.Options) *started {
	t.Helper()
	onnxtest.Runtime(t) // the ONNX library must be there: fail under CI, skip elsewhere
	// The server stops when the test ends, when no load balancer needs the drain: left
	// at its default, every test would wait it out.
	if _, ok := env["SHUTDOWN_DRAIN"]; !ok {
		env = maps.Clone(env)
		if env == nil {
			env = map[string]string{}
		}
		env["SHUTDOWN_DRAIN"] = "0s"
	}
	cfg, err := config.Load(func(k string) string { return env[k] }, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &started{done: make(chan error, 1), grpc: gln.Addr().String()}
	opts.Config, opts.Listener, opts.GRPCListener = cfg, ln, gln
	go func() {
		s.done <- app.Run(ctx, opts)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop")
		}
	})
	s.url = "http://" + ln.Addr().String()
	s.c = apitest.New(t, s.url)
	if !wantReady {
		return s
	}
	var last *apitest.Response
	testkit.Eventually(t, 30*time.Second, func() bool {
		last = s.c.Get("/ready", "")
		return last.Status == http.StatusOK
	}, "ready: %s", func() string { return string(last.Body) })
	return s
}

// repoModels is the example repository that `make run` serves.
func repoModels(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "models"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBrokenVersionAmongGoodOnes: a version whose steps do not fit its model fails to
// load; the others serve, the broken one is visible with its error, and /ready stays
// 503, naming it, once the load has finished (strict readiness: a bad rollout takes no
// traffic), unless READY_ALLOW_FAILED=true.
func TestBrokenVersionAmongGoodOnes(t *testing.T) {
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	broken := filepath.Join(dir, "iris", "v3")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	art, _ := os.ReadFile(filepath.Join(dir, "iris", "v1", "model.onnx"))
	_ = os.WriteFile(filepath.Join(broken, "model.onnx"), art, 0o644)
	_ = os.WriteFile(filepath.Join(broken, "model.yaml"), []byte("backend: onnx\nartifact: model.onnx\npreprocess:\n  - to_tensor: {dtype: float32, shape: [3]}\n"), 0o644)

	s := startApp(t, map[string]string{"MODELS_DIR": dir}, false)
	c := s.c
	checkFailedReadiness(t, c, dir)
	if resp := c.Post("/predict", "dev-key", `{"model":"iris","version":"v1","data":[5.1,3.5,1.4,0.2]}`); resp.Status != http.StatusOK {
		t.Errorf("a good version must serve: %d %s", resp.Status, resp.Body)
	}
	resp := c.Post("/predict", "dev-key", `{"model":"iris","version":"v3","data":[5.1,3.5,1.4]}`)
	if resp.Status != http.StatusServiceUnavailable {
		t.Fatalf("broken version: %d %s", resp.Status, resp.Body)
	}
	if p := resp.Problem(t); p.Code != "model_unavailable" || !strings.Contains(p.Detail, "shape") {
		t.Errorf("problem %+v", p)
	}
	// A job for it would only fail: the submission is refused the same way.
	resp = c.Post("/predict/async", "dev-key", `{"model":"iris","version":"v3","data":[5.1,3.5,1.4]}`)
	if resp.Status != http.StatusServiceUnavailable || resp.Problem(t).Code != "model_unavailable" {
		t.Errorf("async submit to the broken version: %d %s", resp.Status, resp.Body)
	}
	var meta struct {
		Status string
		Error  *string
	}
	c.Get("/models/iris/v3", "dev-key").JSON(t, &meta)
	if meta.Status != "failed" || meta.Error == nil || !strings.Contains(*meta.Error, "model.yaml") || !strings.Contains(*meta.Error, "to_tensor.shape") {
		t.Errorf("metadata %+v", meta)
	}
	var loaded struct {
		Models []struct{ Name, Version string }
		Failed []struct{ Name, Version, Error string }
	}
	c.Get("/debug/models/loaded", "admin-key").JSON(t, &loaded)
	if len(loaded.Failed) != 1 || loaded.Failed[0].Version != "v3" || loaded.Failed[0].Error == "" {
		t.Errorf("failed %+v", loaded.Failed)
	}
	if len(loaded.Models) != 10 { // echo v1 v2, iris v1 v2, iris-cascade v1, iris-ensemble v1, diabetes v1, digits v1, digits-cnn v1, wine v1
		t.Errorf("loaded %+v", loaded.Models)
	}
	var listed struct {
		Models []struct{ Name, Version string }
	}
	c.Get("/models", "dev-key").JSON(t, &listed)
	if len(listed.Models) != 11 {
		t.Errorf("/models must list the failed version too: %+v", listed.Models)
	}
}

func TestLoadStrict(t *testing.T) {
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	_ = os.WriteFile(filepath.Join(dir, "iris", "v2", "model.yaml"), []byte("backend: onnx\nartifact: missing.onnx\n"), 0o644)
	s := startApp(t, map[string]string{"MODELS_DIR": dir, "LOAD_STRICT": "true"}, false)
	select {
	case err := <-s.done:
		if err == nil || !strings.Contains(err.Error(), "LOAD_STRICT") || !strings.Contains(err.Error(), "missing.onnx") {
			t.Fatalf("err = %v", err)
		}
		s.done <- err // for the cleanup
	case <-time.After(30 * time.Second):
		t.Fatal("LOAD_STRICT did not stop the server")
	}
}

// TestBuiltinNamesReserved: the repository may not hold a model named like a
// built-in one; the names come from the built-in models themselves, so the server
// refuses to start rather than serve two models called echo.
func TestBuiltinNamesReserved(t *testing.T) {
	tests := []struct {
		name, yaml string
	}{
		{"an echo model", "backend: echo\n"},
		{"an onnx model", "description: anything\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "echo", "v3"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "echo", "v3", "model.yaml"), []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(func(k string) string { return map[string]string{"MODELS_DIR": dir}[k] }, os.ReadFile)
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err = app.Run(ctx, app.Options{Config: cfg, Listener: ln, Logger: slog.New(slog.DiscardHandler)})
			want := filepath.Join(dir, "echo") + `: the name "echo" belongs to a built-in model; rename the directory`
			if !errors.Is(err, repository.ErrReservedName) || !strings.HasSuffix(err.Error(), want) {
				t.Fatalf("Run = %v, want ErrReservedName ending in %q", err, want)
			}
		})
	}
}

// checkFailedReadiness waits for the load to finish (all 9 versions loaded or failed)
// and checks that /ready is 503 failed naming iris v3, at start, with a path relative
// to the repository dir.
func checkFailedReadiness(t *testing.T, c *apitest.Client, dir string) {
	t.Helper()
	var loaded struct{ Models, Failed []struct{ Name string } }
	testkit.Eventually(t, 30*time.Second, func() bool {
		loaded.Models, loaded.Failed = nil, nil
		c.Get("/debug/models/loaded", "admin-key").JSON(t, &loaded)
		return len(loaded.Models)+len(loaded.Failed) == 11 // the example models, echo's two and iris v3
	}, "every version loaded or failed: %s", func() string { return fmt.Sprintf("%+v", loaded) })
	var got readyBody
	resp := c.Get("/ready", "")
	resp.JSON(t, &got)
	// Nothing loads any more: the status says why the server is not ready.
	if resp.Status != http.StatusServiceUnavailable || got.Status != "failed" {
		t.Fatalf("/ready after the load = %d %s, want 503 failed", resp.Status, resp.Body)
	}
	if strings.Contains(string(resp.Body), dir) {
		t.Errorf("/ready shows the repository's absolute path: %s", resp.Body)
	}
	if len(got.Failed) != 1 || got.Failed[0].Name != "iris" || got.Failed[0].Version != "v3" || !got.Failed[0].AtStart ||
		!strings.HasPrefix(got.Failed[0].Error, "iris/v3/model.yaml: ") || !strings.Contains(got.Failed[0].Error, "to_tensor.shape") {
		t.Errorf("/ready failed = %+v", got.Failed)
	}
}

// With READY_ALLOW_FAILED=true a failed version does not hold /ready back; the metrics
// show it failed, and which build and ONNX Runtime run.
func TestReadyAllowFailedAndBuildInfo(t *testing.T) {
	dir := t.TempDir()
	testkit.CopyDir(t, repoModels(t), dir)
	_ = os.WriteFile(filepath.Join(dir, "iris", "v2", "model.yaml"), []byte("backend: onnx\nartifact: missing.onnx\n"), 0o644)
	s := startApp(t, map[string]string{"MODELS_DIR": dir, "READY_ALLOW_FAILED": "true"}, true)
	var got struct {
		Status string
		Failed []struct{ Name, Version string }
	}
	s.c.Get("/ready", "").JSON(t, &got)
	// The example graphs that call iris v2 fail with it.
	if got.Status != "ready" || len(got.Failed) != 3 || got.Failed[0].Name != "iris" || got.Failed[0].Version != "v2" ||
		got.Failed[1].Name != "iris-cascade" || got.Failed[2].Name != "iris-ensemble" {
		t.Errorf("/ready = %+v", got)
	}
	body := string(s.c.Get("/metrics", "").Body)
	for _, want := range []string{
		`inferd_model_state{model="iris",state="failed",version="v2"} 1`,
		`inferd_model_state{model="iris",state="ready",version="v1"} 1`,
		`inferd_model_load_failures_total{model="iris",version="v2"} 1`,
		`goversion="` + runtime.Version() + `"`,
		`onnxruntime_version="1.`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
	if !strings.Contains(body, "inferd_build_info{") {
		t.Error("/metrics has no inferd_build_info")
	}
}
