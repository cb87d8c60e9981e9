package keywatch_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/keywatch"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/testkit"
)

// logs is a log the watcher writes to from its goroutine while the test reads it.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// take returns what was logged since the last take.
func (l *logs) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.buf.String()
	l.buf.Reset()
	return s
}

// fixture is a keys file, the keys read from it at start, a Watcher of it reporting
// to the real metrics, and its log.
type fixture struct {
	t    *testing.T
	path string
	keys *auth.Keys
	w    *keywatch.Watcher
	log  *logs
	prom *prometheus.Registry
}

func newFixture(t *testing.T, text string, interval time.Duration, reload chan os.Signal) *fixture {
	t.Helper()
	f := &fixture{t: t, path: filepath.Join(t.TempDir(), "api-keys"), log: &logs{}, prom: prometheus.NewRegistry()}
	f.write(text)
	k, _, err := config.ReadKeysFile(f.path)
	if err != nil {
		t.Fatal(err)
	}
	f.keys = auth.NewKeys(k)
	f.w = keywatch.New(keywatch.Options{
		Path: f.path, Keys: f.keys, Interval: interval, Reload: reload,
		Logger:   slog.New(slog.NewTextHandler(f.log, nil)),
		Observer: metrics.New(f.prom).ObserveKeys(),
	})
	return f
}

// write replaces the file as an operator should, by renaming a new one over it, so
// that no reading sees it half written.
func (f *fixture) write(text string) {
	f.t.Helper()
	tmp := f.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) accepted(key string) bool {
	_, err := f.keys.Authorize(key, "")
	if err != nil && !errors.Is(err, auth.ErrUnauthenticated) {
		f.t.Fatal(err)
	}
	return err == nil
}

// metric is the value of one of the keys' metrics.
func (f *fixture) metric(name string) float64 {
	f.t.Helper()
	mfs, err := f.prom.Gather()
	if err != nil {
		f.t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			m := mf.GetMetric()[0]
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	f.t.Fatalf("no metric %s", name)
	return 0
}

const (
	failures = "inferd_api_keys_reload_failures_total"
	loadedAt = "inferd_api_keys_loaded_timestamp_seconds"
	inForce  = "inferd_api_keys"
)

// TestCheck walks one keys file through what operators do to it, one reading after
// each step: every step says which keys are accepted after it, what the log says, and
// how many failed readings the metric has counted by then.
func TestCheck(t *testing.T) {
	f := newFixture(t, "old-key:predict\nops-key:admin\n", 0, nil)
	oldID := principal(t, "old-key:predict", "old-key")
	newID := principal(t, "new-key:predict", "new-key")
	steps := []struct {
		name     string
		do       func()
		accepted []string
		refused  []string
		logs     []string // each in the log of the step; nil: nothing logged
		failures float64
	}{
		{"the file read at start", func() {}, []string{"old-key", "ops-key"}, []string{"new-key"}, nil, 0},
		{"revoke and add", func() { f.write("new-key:predict\nops-key:admin\n") },
			[]string{"new-key", "ops-key"}, []string{"old-key"},
			[]string{`msg="API keys reloaded" reason=interval keys=2 added=[` + newID + `] removed=[` + oldID + `] rescoped=[]`}, 0},
		{"nothing changed", func() {}, []string{"new-key"}, []string{"old-key"}, nil, 0},
		{"malformed", func() { f.write("old-key:predict\nops-key:superuser\n") },
			[]string{"new-key", "ops-key"}, []string{"old-key"},
			[]string{`level=ERROR msg="API_KEYS_FILE cannot be used: the keys in force stay as they were until the file is fixed" reason=interval error="malformed API key entry: API_KEYS_FILE ` + f.path + ` entry 2: unknown scope`, "keys=2"}, 1},
		{"still malformed: counted, not logged again", func() {}, []string{"new-key"}, []string{"old-key"}, nil, 2},
		{"empty", func() { f.write("# emptied\n") },
			[]string{"new-key"}, []string{"old-key"}, []string{"API_KEYS_FILE " + f.path + " holds no keys"}, 3},
		{"removed", func() {
			if err := os.Remove(f.path); err != nil {
				t.Fatal(err)
			}
		}, []string{"new-key"}, []string{"old-key"}, []string{"no such file or directory"}, 4},
		{"put back as it was", func() { f.write("new-key:predict\nops-key:admin\n") },
			[]string{"new-key", "ops-key"}, []string{"old-key"},
			[]string{`msg="API_KEYS_FILE unchanged: the keys in force stay as they are" reason=interval keys=2`}, 4},
		{"rewritten in place, same size", func() {
			if err := os.WriteFile(f.path, []byte("old-key:predict\nops-key:admin\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{"old-key", "ops-key"}, []string{"new-key"}, []string{`msg="API keys reloaded"`, "added=[" + oldID + "] removed=[" + newID + "]"}, 4},
	}
	f.w.Check("start")
	f.log.take()
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.do()
			f.w.Check("interval")
			for _, k := range st.accepted {
				if !f.accepted(k) {
					t.Errorf("%s is refused", k)
				}
			}
			for _, k := range st.refused {
				if f.accepted(k) {
					t.Errorf("%s is accepted", k)
				}
			}
			got := f.log.take()
			if st.logs == nil && got != "" {
				t.Errorf("logged %q, want nothing", got)
			}
			for _, want := range st.logs {
				if !strings.Contains(got, want) {
					t.Errorf("the log lacks %q:\n%s", want, got)
				}
			}
			for _, k := range []string{"old-key", "new-key", "ops-key"} {
				if strings.Contains(got, k) {
					t.Errorf("the log shows the key %s:\n%s", k, got)
				}
			}
			if n := f.metric(failures); n != st.failures {
				t.Errorf("%s = %v, want %v", failures, n, st.failures)
			}
		})
	}
}

func principal(t *testing.T, text, key string) string {
	t.Helper()
	k, err := auth.Parse("test", text)
	if err != nil {
		t.Fatal(err)
	}
	p, err := k.Authenticate(key)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// TestCheckKubernetesSecret swaps the keys as the kubelet updates a Secret volume: the
// file is a symbolic link through ..data, which is renamed to point at a new
// directory. The link the server reads never changes, the file behind it does.
func TestCheckKubernetesSecret(t *testing.T) {
	dir := t.TempDir()
	version := func(name, text string) {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "api-keys"), []byte(text), 0o400); err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(dir, "..data_tmp")
		if err := os.Symlink(name, tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
			t.Fatal(err)
		}
	}
	version("..2026_11_27_10_00_00.1", "old-key:predict\n")
	path := filepath.Join(dir, "api-keys")
	if err := os.Symlink("..data/api-keys", path); err != nil {
		t.Fatal(err)
	}
	k, _, err := config.ReadKeysFile(path)
	if err != nil {
		t.Fatal(err)
	}
	keys := auth.NewKeys(k)
	w := keywatch.New(keywatch.Options{Path: path, Keys: keys, Logger: slog.New(slog.DiscardHandler)})
	w.Check("start")
	version("..2026_11_27_10_01_00.2", "new-key:predict\n")
	w.Check("interval")
	if _, err := keys.Authorize("old-key", ""); err == nil {
		t.Error("the revoked key is accepted after the Secret's update")
	}
	if _, err := keys.Authorize("new-key", ""); err != nil {
		t.Errorf("the new key: %v", err)
	}
}

// TestRun runs the watcher as the server does: on its timer, and on SIGHUP with the
// timer off. Each waits for the revoked key to be refused, within a deadline.
func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		interval time.Duration
		hup      bool
		reason   string
	}{
		{"interval", 20 * time.Millisecond, false, "reason=interval"},
		{"SIGHUP", 0, true, "reason=SIGHUP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reload := make(chan os.Signal, 1)
			f := newFixture(t, "old-key:predict\n", tt.interval, reload)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { f.w.Run(ctx); close(done) }()
			t.Cleanup(func() { cancel(); <-done })

			before := time.Now()
			testkit.Eventually(t, 5*time.Second, func() bool { return f.metric(inForce) == 1 }, "the start's keys counted")
			start := f.metric(loadedAt)
			f.write("new-key:predict\nother-key:read_models\n")
			if tt.hup {
				reload <- syscall.SIGHUP
			}
			testkit.Eventually(t, 5*time.Second, func() bool { return !f.accepted("old-key") && f.accepted("new-key") }, "old-key refused")
			testkit.Eventually(t, 5*time.Second, func() bool { return strings.Contains(f.log.take(), tt.reason) }, "the log line")
			if n := f.metric(inForce); n != 2 {
				t.Errorf("%s = %v, want 2", inForce, n)
			}
			if at := f.metric(loadedAt); at <= start || at < float64(before.Unix()) {
				t.Errorf("%s = %v, want after the start's %v", loadedAt, at, start)
			}
		})
	}
}

// TestRunWithoutFile: keys from API_KEYS have no file to re-read; SIGHUP says so and
// the process goes on.
func TestRunWithoutFile(t *testing.T) {
	reload := make(chan os.Signal, 1)
	l := &logs{}
	k, err := auth.Parse("API_KEYS", "inline-key:predict")
	if err != nil {
		t.Fatal(err)
	}
	w := keywatch.New(keywatch.Options{Keys: auth.NewKeys(k), Reload: reload, Interval: time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(l, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	reload <- syscall.SIGHUP
	testkit.Eventually(t, 5*time.Second, func() bool { return strings.Contains(l.take(), "there is no API_KEYS_FILE to re-read") }, "the SIGHUP logged")
}
