package reposync_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/mirror"
	"github.com/inferd/inferd/internal/registry"
	"github.com/inferd/inferd/internal/repository"
	"github.com/inferd/inferd/internal/reposync"
	"github.com/inferd/inferd/internal/store"
	"github.com/inferd/inferd/internal/store/dir"
	"github.com/inferd/inferd/internal/store/s3"
	"github.com/inferd/inferd/internal/storetest"
	"github.com/inferd/inferd/internal/testkit"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// upload writes a version as a user's tool does, file by file, with a SHA256SUMS of
// the files (sums: the digests it claims, when they are not the files').
func upload(t *testing.T, b storetest.Bucket, version string, files map[string]string, sums map[string]string) {
	t.Helper()
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		b.Put(t, version+"/"+name, []byte(files[name]))
		d := sha256.Sum256([]byte(files[name]))
		digest := hex.EncodeToString(d[:])
		if s, ok := sums[name]; ok {
			digest = s
		}
		lines = append(lines, digest+"  "+name)
	}
	b.Put(t, version+"/"+mirror.SumsFile, []byte(strings.Join(lines, "\n")+"\n"))
}

func echoModel(description string) map[string]string {
	return map[string]string{"model.yaml": "backend: echo\ndescription: " + description + "\n"}
}

// node is one process's view of a repository: its mirror on a cache directory of its
// own, the registry over it, and the Syncer between them.
type node struct {
	m   *mirror.Mirror
	reg *registry.Registry
	s   *reposync.Syncer
}

// start runs what a process does at start on a repository read through st: the
// first sync, then discovery and the load.
func start(t *testing.T, st store.Store, cache string) (*node, error) {
	t.Helper()
	m, err := mirror.New(mirror.Options{Store: st, CacheDir: cache, Attempts: 1, Backoff: time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	src := reposync.NewSource(repository.New(repository.Options{Dir: m.Dir(), Backends: backend.Catalogue{echo.Backend{}}}))
	reg := registry.New(registry.Options{Sources: []registry.Source{src}, Logger: quiet})
	t.Cleanup(func() { reg.Close() })
	s, err := reposync.New(reposync.Options{Mirror: m, Source: src, Registry: reg, MinGap: time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ctx := context.Background()
	if _, err := s.Settle(ctx); err != nil {
		return nil, err
	}
	if err := reg.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	reg.Load(ctx)
	return &node{m: m, reg: reg, s: s}, nil
}

func (n *node) poll(t *testing.T) {
	t.Helper()
	if err := n.s.Demand(context.Background(), time.Now()); err != nil {
		t.Fatalf("poll: %v", err)
	}
}

// index is the registry's repository index: each version's state and its error.
func (n *node) index(t *testing.T) map[string]string {
	t.Helper()
	idx, err := n.reg.Index(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range idx {
		s := string(e.Status)
		if e.Err != nil {
			s += ": " + e.Err.Error()
		}
		if e.LoadErr != nil {
			s += "; " + e.LoadErr.Error()
		}
		out[e.Name+"/"+e.Version] = s
	}
	return out
}

// description is what the version that serves says of itself, or its error.
func (n *node) description(model, version string) string {
	m, err := n.reg.Describe(model)
	if err != nil {
		return err.Error()
	}
	for _, e := range m.Versions {
		if e.Version == version {
			if e.Status != registry.StatusReady {
				return string(e.Status)
			}
			return e.Info.Description
		}
	}
	return "no version " + version
}

// provenance is what the registry says was verified of a version's files.
func (n *node) provenance(t *testing.T, model, version string) registry.Provenance {
	t.Helper()
	m, err := n.reg.Describe(model)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m.Versions {
		if e.Version == version {
			return e.Provenance
		}
	}
	t.Fatalf("%s has no version %s", model, version)
	return registry.Provenance{}
}

func newDirStore(t *testing.T) (*storetest.Dir, store.Store) {
	t.Helper()
	b := storetest.NewDir(t)
	st, err := dir.New(b.URL())
	if err != nil {
		t.Fatal(err)
	}
	return b, st
}

// TestPolls: what each poll finds is what the registry serves: a version added loads,
// one changed is rebuilt, one deleted is dropped, one refused shows why (the version
// of it served before serving on), and a version uploaded file by file serves only
// once whole.
func TestPolls(t *testing.T) {
	b, st := newDirStore(t)
	upload(t, b, "m/v1", echoModel("first"), nil)
	n, err := start(t, st, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := n.description("m", "v1"); got != "first" {
		t.Fatalf("at start m/v1 is %q", got)
	}

	t.Run("a version added loads", func(t *testing.T) {
		upload(t, b, "m/v2", echoModel("second"), nil)
		n.poll(t)
		if got := n.description("m", "v2"); got != "second" {
			t.Errorf("m/v2 is %q, want it served", got)
		}
	})
	t.Run("a version changed is rebuilt", func(t *testing.T) {
		before := n.provenance(t, "m", "v1")
		upload(t, b, "m/v1", echoModel("first, again"), nil)
		n.poll(t)
		if got := n.description("m", "v1"); got != "first, again" {
			t.Errorf("m/v1 is %q, want its new content", got)
		}
		// The digest of the SHA256SUMS upload wrote: that of its one line.
		d := sha256.Sum256([]byte(echoModel("first, again")["model.yaml"]))
		want := sha256.Sum256([]byte(hex.EncodeToString(d[:]) + "  model.yaml\n"))
		if got := n.provenance(t, "m", "v1"); got.Digests != hex.EncodeToString(want[:]) || got == before || got.Signer != "" {
			t.Errorf("m/v1's provenance is %+v (before the change %+v), want SHA256SUMS's digest %x, no signer", got, before, want)
		}
	})
	t.Run("a corrupt upload is refused, the content before serving on", func(t *testing.T) {
		upload(t, b, "m/v1", echoModel("tampered"), map[string]string{"model.yaml": strings.Repeat("ab", 32)})
		upload(t, b, "m/v3", echoModel("third"), map[string]string{"model.yaml": strings.Repeat("cd", 32)})
		n.poll(t)
		idx := n.index(t)
		if got := n.description("m", "v1"); got != "first, again" || !strings.Contains(idx["m/v1"], "refused") || !strings.Contains(idx["m/v1"], "digest mismatch") {
			t.Errorf("m/v1 is %q, index %q: want the content before, with the refusal", got, idx["m/v1"])
		}
		if !strings.HasPrefix(idx["m/v3"], "failed: ") || !strings.Contains(idx["m/v3"], "SHA256SUMS says "+strings.Repeat("cd", 32)) {
			t.Errorf("m/v3 in the index: %q, want failed with the digests", idx["m/v3"])
		}
		if n.reg.FailedAtStart() {
			t.Error("a refusal holds readiness back")
		}
	})
	t.Run("a refused version fixed loads", func(t *testing.T) {
		upload(t, b, "m/v1", echoModel("first, fixed"), nil)
		upload(t, b, "m/v3", echoModel("third"), nil)
		n.poll(t)
		idx := n.index(t)
		if got := n.description("m", "v1"); got != "first, fixed" || idx["m/v1"] != "ready" {
			t.Errorf("m/v1 is %q, index %q", got, idx["m/v1"])
		}
		if got := n.description("m", "v3"); got != "third" {
			t.Errorf("m/v3 is %q", got)
		}
	})
	t.Run("a version uploaded file by file serves once whole", func(t *testing.T) {
		files := map[string]string{"model.yaml": "backend: echo\ndescription: fourth\n", "vocab.txt": "a b c"}
		var sums []string
		for _, name := range slices.Sorted(maps.Keys(files)) {
			d := sha256.Sum256([]byte(files[name]))
			sums = append(sums, hex.EncodeToString(d[:])+"  "+name)
		}
		b.Put(t, "m/v4/"+mirror.SumsFile, []byte(strings.Join(sums, "\n")+"\n"))
		n.poll(t)
		b.Put(t, "m/v4/model.yaml", []byte(files["model.yaml"]))
		n.poll(t)
		n.poll(t) // a listing that holds still does not make it whole: it is refused
		if got := n.description("m", "v4"); got == "fourth" {
			t.Errorf("m/v4 is served half-uploaded (index %q)", n.index(t)["m/v4"])
		}
		b.Put(t, "m/v4/vocab.txt", []byte(files["vocab.txt"]))
		n.poll(t)
		if got := n.description("m", "v4"); got != "fourth" {
			t.Errorf("m/v4, whole, is %q", got)
		}
	})
	t.Run("a version deleted is dropped", func(t *testing.T) {
		for _, f := range []string{"model.yaml", mirror.SumsFile} {
			b.Delete(t, "m/v2/"+f)
		}
		n.poll(t)
		if got, ok := n.index(t)["m/v2"]; ok {
			t.Errorf("m/v2 deleted upstream is still %q", got)
		}
	})
	t.Run("a model unloaded by hand stays unloaded", func(t *testing.T) {
		upload(t, b, "u/v1", echoModel("u"), nil)
		n.poll(t)
		if err := n.reg.UnloadModel(context.Background(), "u"); err != nil {
			t.Fatal(err)
		}
		upload(t, b, "u/v2", echoModel("u2"), nil)
		upload(t, b, "u/v1", echoModel("u1, changed"), nil)
		n.poll(t)
		if idx := n.index(t); idx["u/v1"] != "not_loaded" || idx["u/v2"] != "not_loaded" {
			t.Errorf("after a poll, the unloaded model is %q and %q", idx["u/v1"], idx["u/v2"])
		}
		if err := n.reg.LoadModel(context.Background(), "u"); err != nil {
			t.Fatal(err)
		}
		if got := n.description("u", "v1"); got != "u1, changed" {
			t.Errorf("loaded again, u/v1 is %q", got)
		}
	})
}

// TestRestartFromCache: a process started with the store down serves what the cache
// kept of the last good sync; one with nothing cached refuses to start.
func TestRestartFromCache(t *testing.T) {
	b, st := newDirStore(t)
	upload(t, b, "m/v1", echoModel("cached"), nil)
	cache := t.TempDir()
	first, err := start(t, st, cache)
	if err != nil {
		t.Fatal(err)
	}
	first.s.Close()
	first.m.Close()

	down := deadStore(t, st.String())
	n, err := start(t, down, cache)
	if err != nil {
		t.Fatalf("start with the store down: %v", err)
	}
	if got := n.description("m", "v1"); got != "cached" {
		t.Errorf("m/v1 is %q, want it served from the cache", got)
	}
	if _, err := start(t, down, t.TempDir()); !errors.Is(err, reposync.ErrNoCopy) || !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("start with the store down and no cache: %v, want ErrNoCopy and the store's error", err)
	}
}

// deadStore is an S3 store on an address nothing listens on, named name (the
// mirror keeps its state by the store's name): every request is refused.
func deadStore(t *testing.T, name string) store.Store {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	t.Setenv("AWS_ENDPOINT_URL_S3", "http://"+addr)
	t.Setenv("AWS_ACCESS_KEY_ID", "nobody")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "nothing")
	t.Setenv("AWS_REGION", "us-east-1")
	st, err := s3.New(context.Background(), "s3://models/repo", s3.Options{Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return renamed{st, name}
}

// renamed is a store under another name: the mirror's state is kept per store name,
// and a restart reads the state of the store it names.
type renamed struct {
	store.Store
	name string
}

func (r renamed) String() string { return r.name }

// TestDemand: callers that miss a version at once share one poll; a caller waits for
// a poll that began after its miss, not one under way before it; and Demand after
// Close fails.
func TestDemand(t *testing.T) {
	b, st := newDirStore(t)
	upload(t, b, "m/v1", echoModel("first"), nil)
	counting := &countingStore{Store: st}
	n, err := start(t, counting, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	before := counting.lists()
	since := time.Now()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if err := n.s.Demand(context.Background(), since); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := counting.lists() - before; got != 1 {
		t.Errorf("20 callers missing at once made %d listings, want 1", got)
	}
	upload(t, b, "m/v2", echoModel("second"), nil)
	n.poll(t)
	if got := n.description("m", "v2"); got != "second" {
		t.Errorf("after a demanded poll m/v2 is %q", got)
	}
	n.s.Close()
	if err := n.s.Demand(context.Background(), time.Now()); !errors.Is(err, reposync.ErrClosed) {
		t.Errorf("Demand after Close: %v", err)
	}
}

// countingStore counts the listings made of its store.
type countingStore struct {
	store.Store
	mu sync.Mutex
	n  int
}

func (c *countingStore) List(ctx context.Context, prefix string) ([]store.Object, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.Store.List(ctx, prefix)
}

func (c *countingStore) lists() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// TestRun: with an interval the polls come by themselves; Close stops them.
func TestRun(t *testing.T) {
	b, st := newDirStore(t)
	upload(t, b, "m/v1", echoModel("first"), nil)
	m, err := mirror.New(mirror.Options{Store: st, CacheDir: t.TempDir(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	src := reposync.NewSource(repository.New(repository.Options{Dir: m.Dir(), Backends: backend.Catalogue{echo.Backend{}}}))
	reg := registry.New(registry.Options{Sources: []registry.Source{src}, Logger: quiet})
	defer reg.Close()
	s, err := reposync.New(reposync.Options{Mirror: m, Source: src, Registry: reg, Interval: 20 * time.Millisecond, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := s.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	if err := reg.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	reg.Load(ctx)
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	upload(t, b, "m/v2", echoModel("second"), nil)
	testkit.Eventually(t, 30*time.Second, func() bool {
		_, err := reg.Resolve("m", "v2")
		return err == nil
	}, "m/v2 served after its upload")
	cancel()
	<-done
	s.Close()
}
