package mirror_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/mirror"
	"github.com/inferd/inferd/internal/store"
	"github.com/inferd/inferd/internal/store/dir"
	"github.com/inferd/inferd/internal/storetest"
)

// fixture is a repository in a directory (written behind the Store's back, as an
// upload tool does), the dir Store reading it through a counter of requests, and a
// Mirror of it with a cache directory of its own.
type fixture struct {
	t     *testing.T
	b     *storetest.Dir
	dir   *dir.Store
	s     *counting
	cache string
	opts  mirror.Options
	m     *mirror.Mirror
	log   *logs
}

func newFixture(t *testing.T, opts mirror.Options) *fixture {
	t.Helper()
	b := storetest.NewDir(t)
	ds, err := dir.New(b.URL())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, b: b, dir: ds, s: newCounting(ds), cache: t.TempDir(), opts: opts, log: &logs{}}
	f.open(f.s)
	return f
}

// open starts a Mirror of s on the fixture's cache directory, closing the one before,
// as a restarted process would.
func (f *fixture) open(s store.Store) {
	f.t.Helper()
	if f.m != nil {
		f.m.Close()
	}
	opts := f.opts
	opts.Store, opts.CacheDir = s, f.cache
	opts.Backoff, opts.MaxBackoff = time.Millisecond, 5*time.Millisecond
	opts.Logger = slog.New(slog.NewTextHandler(f.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m, err := mirror.New(opts)
	if err != nil {
		f.t.Fatal(err)
	}
	f.m = m
	f.t.Cleanup(func() { m.Close() })
}

// sync polls once and fails the test on an error.
func (f *fixture) sync() mirror.Result {
	f.t.Helper()
	r, err := f.m.Sync(context.Background())
	if err != nil {
		f.t.Fatalf("Sync: %v", err)
	}
	return r
}

func (f *fixture) put(files map[string]string) {
	f.t.Helper()
	for _, k := range slices.Sorted(maps.Keys(files)) {
		f.b.Put(f.t, k, []byte(files[k]))
	}
}

// copied is every file of the mirror's copy, by path below it, with its content.
func (f *fixture) copied() map[string]string {
	f.t.Helper()
	return readTree(f.t, f.m.Dir())
}

func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		got[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// below is the files of m whose path starts with prefix.
func below(m map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}

// version is the objects of model/ver holding files, with a SHA256SUMS of them when
// sums is set.
func version(model, ver string, sums bool, files map[string]string) map[string]string {
	out := map[string]string{}
	for name, content := range files {
		out[model+"/"+ver+"/"+name] = content
	}
	if sums {
		out[model+"/"+ver+"/SHA256SUMS"] = sumsOf(files)
	}
	return out
}

// sumsOf is what `sha256sum *` writes of files.
func sumsOf(files map[string]string) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(&b, "%s  %s\n", digest(files[name]), name)
	}
	return b.String()
}

func digest(s string) string {
	d := sha256.Sum256([]byte(s))
	return hex.EncodeToString(d[:])
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

// echoYAML is a model.yaml internal/repository loads without an artifact.
func echoYAML(desc string) string { return "description: " + desc + "\nbackend: echo\n" }

// counting counts the requests made of a Store: Lists, and each Get with its offset.
type counting struct {
	store.Store
	mu    sync.Mutex
	lists int
	gets  map[string][]int64
}

func newCounting(s store.Store) *counting { return &counting{Store: s, gets: map[string][]int64{}} }

func (c *counting) List(ctx context.Context, prefix string) ([]store.Object, error) {
	c.mu.Lock()
	c.lists++
	c.mu.Unlock()
	return c.Store.List(ctx, prefix)
}

func (c *counting) Get(ctx context.Context, key string, offset int64, etag string) (io.ReadCloser, store.Object, error) {
	c.mu.Lock()
	c.gets[key] = append(c.gets[key], offset)
	c.mu.Unlock()
	return c.Store.Get(ctx, key, offset, etag)
}

// take returns the Gets since the last take, by key, and the Lists.
func (c *counting) take() (map[string][]int64, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, l := c.gets, c.lists
	c.gets, c.lists = map[string][]int64{}, 0
	return g, l
}

// down is a store that cannot be reached: every request answers ErrUnavailable. It
// is named as the store it stands for, as a restarted process names its repository.
type down struct{ name string }

func (d down) List(context.Context, string) ([]store.Object, error) {
	return nil, fmt.Errorf("%w: connection refused", store.ErrUnavailable)
}

func (d down) Get(context.Context, string, int64, string) (io.ReadCloser, store.Object, error) {
	return nil, store.Object{}, fmt.Errorf("%w: connection refused", store.ErrUnavailable)
}

func (d down) String() string { return d.name }

// faulty fails the first read of key once: the Get itself with err when after is
// negative, else its body after `after` bytes.
type faulty struct {
	store.Store
	key   string
	after int64
	err   error
	done  atomic.Bool
}

func (f *faulty) Get(ctx context.Context, key string, offset int64, etag string) (io.ReadCloser, store.Object, error) {
	if key != f.key || f.done.Load() {
		return f.Store.Get(ctx, key, offset, etag)
	}
	if f.after < 0 {
		f.done.Store(true)
		return nil, store.Object{}, f.err
	}
	rc, o, err := f.Store.Get(ctx, key, offset, etag)
	if err != nil {
		return rc, o, err
	}
	f.done.Store(true)
	return &cutReader{rc: rc, left: f.after, err: f.err}, o, nil
}

// cutReader reads left bytes, then fails with err.
type cutReader struct {
	rc   io.ReadCloser
	left int64
	err  error
}

func (r *cutReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, r.err
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.rc.Read(p)
	r.left -= int64(n)
	return n, err
}

func (r *cutReader) Close() error { return r.rc.Close() }

// logs is what a Mirror logged.
type logs struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// errCut is what a cut connection answers a read with.
var errCut = errors.New("connection reset by peer")
