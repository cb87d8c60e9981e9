package repository_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/repository"
	"github.com/inferd/inferd/internal/testkit"
)

func newRegistry(t *testing.T, src registry.Source) *registry.Registry {
	t.Helper()
	reg := registry.New(registry.Options{Sources: []registry.Source{src}, Logger: slog.New(slog.DiscardHandler)})
	if err := reg.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	reg.Load(context.Background())
	t.Cleanup(func() { reg.Close() })
	return reg
}

// serve loads the repository at dir with the real ONNX Runtime into a registry that
// also serves its graphs (they call their members through it), closed when the test
// ends.
func serve(tb testing.TB, dir string) (*registry.Registry, *repository.Source) {
	tb.Helper()
	graphs := &repository.Graphs{}
	src := repository.New(repository.Options{Dir: dir, Backends: backends(onnxtest.Runtime(tb)), Graphs: graphs})
	reg := registry.New(registry.Options{Sources: []registry.Source{src}, Logger: slog.New(slog.DiscardHandler)})
	graphs.Serve(reg)
	if err := reg.Discover(context.Background()); err != nil {
		tb.Fatal(err)
	}
	reg.Load(context.Background())
	tb.Cleanup(func() { reg.Close() })
	return reg, src
}

// TestMemoryGrowsWithModel loads a model of 1 KB and one of 4 MB of weights: the
// registry's memory figure for the second must be larger by about the difference.
// The resident-memory delta alone is not asserted: within one test process, memory
// that earlier tests freed is reused by the next load without the RSS growing.
func TestMemoryGrowsWithModel(t *testing.T) {
	const yaml = "preprocess:\n  - to_tensor\n"
	dir := repo(t, map[string]string{
		"small/v1/model.yaml": yaml,
		"small/v1/model.onnx": string(onnxtest.Dense(16, 1).Encode()),
		"big/v1/model.yaml":   yaml,
		"big/v1/model.onnx":   string(onnxtest.Dense(1000, 2).Encode()),
	})
	reg := newRegistry(t, repository.New(repository.Options{Dir: dir, Backends: backends(onnxtest.Runtime(t))}))
	mem := map[string]registry.Memory{}
	for _, e := range reg.List() {
		if e.Status != registry.StatusReady {
			t.Fatalf("%s: %s %v", e.Name, e.Status, e.Err)
		}
		mem[e.Name] = e.Memory
	}
	small, big := mem["small"], mem["big"]
	t.Logf("small: %+v", small)
	t.Logf("big:   %+v", big)
	if big.ArtifactBytes < 4_000_000 || small.ArtifactBytes > 2_000 {
		t.Errorf("artifact bytes: small %d, big %d", small.ArtifactBytes, big.ArtifactBytes)
	}
	if big.Bytes-small.Bytes < 3_500_000 {
		t.Errorf("memory: small %d, big %d; want big larger by at least 3.5 MB", small.Bytes, big.Bytes)
	}
}

// recorder is a Source that remembers every pipeline its loaders build.
type recorder struct {
	registry.Source
	mu    sync.Mutex
	built []*pipeline.Pipeline
}

func (r *recorder) wrap(spec registry.ModelSpec) registry.ModelSpec {
	for i, v := range spec.Versions {
		if v.Loader == nil {
			continue
		}
		l := v.Loader
		spec.Versions[i].Loader = registry.LoaderFunc(func(ctx context.Context) (*pipeline.Pipeline, error) {
			p, err := l.Load(ctx)
			if err == nil {
				r.mu.Lock()
				r.built = append(r.built, p)
				r.mu.Unlock()
			}
			return p, err
		})
	}
	return spec
}

func (r *recorder) Models(ctx context.Context) ([]registry.ModelSpec, error) {
	specs, err := r.Source.Models(ctx)
	for i := range specs {
		specs[i] = r.wrap(specs[i])
	}
	return specs, err
}

func (r *recorder) Model(ctx context.Context, name string) (registry.ModelSpec, error) {
	spec, err := r.Source.Model(ctx, name)
	return r.wrap(spec), err
}

// waitGroup waits for wg, failing the test after a minute (the clients would be stuck).
func waitGroup(t *testing.T, wg *sync.WaitGroup, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// TestHotReload replaces an ONNX artifact and reloads it while 8 goroutines send
// requests: none fails, the new weights answer after the swap, and the old session
// is destroyed once its requests are done.
func TestHotReload(t *testing.T) {
	const yaml = "preprocess:\n  - to_tensor\n"
	weights := func(k float32) string {
		return string(onnxtest.Linear(-1, [][]float32{{k}, {k}}, []float32{0}).Encode())
	}
	dir := repo(t, map[string]string{"m/v1/model.yaml": yaml, "m/v1/model.onnx": weights(1)})
	rec := &recorder{Source: repository.New(repository.Options{Dir: dir, Backends: backends(onnxtest.Runtime(t))})}
	reg := newRegistry(t, rec)

	item := []json.RawMessage{json.RawMessage(`[1,2]`)}
	predict := func() (string, error) {
		p, err := reg.Predict(context.Background(), registry.Request{Model: "m", Version: "v1", Items: item})
		if err != nil {
			return "", err
		}
		return string(p.Results[0]), nil
	}
	if got, err := predict(); err != nil || got != `{"y":[3]}` {
		t.Fatalf("before reload: %s, %v", got, err)
	}

	// The clients run real ONNX Runtime calls on the runtime's threads, which a
	// synctest bubble cannot wait for, so the test waits on what they report: every
	// client has been answered once before the swap, and by the new weights after it.
	const clients = 8
	var failed, sawNew atomic.Int64
	var answered, answeredNew sync.WaitGroup
	answered.Add(clients)
	answeredNew.Add(clients)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first, firstNew := true, true
			for {
				select {
				case <-stop:
					return
				default:
				}
				got, err := predict()
				switch {
				case err != nil || (got != `{"y":[3]}` && got != `{"y":[30]}`):
					failed.Add(1)
					t.Errorf("during reload: %s, %v", got, err)
				case got == `{"y":[30]}`:
					sawNew.Add(1)
					if firstNew {
						answeredNew.Done()
						firstNew = false
					}
				}
				if first {
					answered.Done()
					first = false
				}
			}
		}()
	}
	waitGroup(t, &answered, "every client's first answer")
	if err := os.WriteFile(filepath.Join(dir, "m/v1/model.onnx"), []byte(weights(10)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Reload(context.Background(), "m", "v1"); err != nil {
		t.Fatal(err)
	}
	if got, err := predict(); err != nil || got != `{"y":[30]}` {
		t.Errorf("after reload: %s, %v", got, err)
	}
	waitGroup(t, &answeredNew, "every client answered by the new weights")
	close(stop)
	wg.Wait()
	if failed.Load() != 0 || sawNew.Load() == 0 {
		t.Errorf("%d requests failed, %d saw the new weights", failed.Load(), sawNew.Load())
	}

	// The first pipeline's session is destroyed once it has drained.
	rec.mu.Lock()
	old := rec.built[0]
	rec.mu.Unlock()
	var err error
	testkit.Eventually(t, 5*time.Second, func() bool {
		_, err = old.Model.Predict(context.Background(), []any{})
		return err != nil && strings.HasSuffix(err.Error(), "is closed") && errors.Is(err, pipeline.ErrExecution)
	}, "the old session closed: %s", func() string { return fmt.Sprint(err) })

	// A failed reload keeps the current pipeline.
	if err := os.WriteFile(filepath.Join(dir, "m/v1/model.onnx"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Reload(context.Background(), "m", "v1"); !errors.Is(err, registry.ErrReloadFailed) {
		t.Fatalf("reload of a broken artifact: %v", err)
	}
	if got, err := predict(); err != nil || got != `{"y":[30]}` {
		t.Errorf("after a failed reload: %s, %v", got, err)
	}

	// A version added after start loads by reloading it.
	files := map[string]string{"m/v2/model.yaml": yaml, "m/v2/model.onnx": weights(100)}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := reg.Reload(context.Background(), "m", "v2"); err != nil {
		t.Fatal(err)
	}
	if p, err := reg.Predict(context.Background(), registry.Request{Model: "m", Version: "", Items: item}); err != nil || p.Version != "v2" || string(p.Results[0]) != `{"y":[300]}` {
		t.Errorf("new version: %+v, %v", p, err)
	}
}
