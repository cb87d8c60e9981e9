package app_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/proctest"
	"github.com/inferd/inferd/internal/storetest"
	"github.com/inferd/inferd/internal/testkit"
)

// A repository in an S3 bucket (versitygw, a real S3 server), served by the real
// binary over its sockets with polls every 200 ms: what a user uploads, changes,
// corrupts and deletes there, and what the server does when the store goes away.

// syncedPoll is the tests' poll interval: short, so that each step takes a few polls.
const syncedPoll = "200ms"

// versionFiles reads a version of the example repository.
func versionFiles(t *testing.T, model, version string) map[string][]byte {
	t.Helper()
	dir := filepath.Join(repoModels(t), model, version)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// sums is what `sha256sum * > SHA256SUMS` writes in a version's directory; claimed
// replaces the digests of some files, as a SHA256SUMS of other content would.
func sums(files map[string][]byte, claimed map[string]string) []byte {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(files)) {
		d := sha256.Sum256(files[name])
		digest := hex.EncodeToString(d[:])
		if c, ok := claimed[name]; ok {
			digest = c
		}
		fmt.Fprintf(&b, "%s  %s\n", digest, name)
	}
	return []byte(b.String())
}

// uploadVersion puts a version's files and its SHA256SUMS into the bucket, one object
// after the other, as `aws s3 cp --recursive` does.
func uploadVersion(t *testing.T, b storetest.Bucket, model, version string, files map[string][]byte, claimed map[string]string) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		b.Put(t, model+"/"+version+"/"+name, files[name])
	}
	b.Put(t, model+"/"+version+"/SHA256SUMS", sums(files, claimed))
}

func echoFiles(description string) map[string][]byte {
	return map[string][]byte{"model.yaml": []byte("backend: echo\ndescription: " + description + "\n")}
}

// syncedServer is the inferd binary serving a bucket's repository.
type syncedServer struct {
	*proctest.Proc
	c *apitest.Client
}

// startSynced runs inferd on g's repository with MODEL_CACHE_DIR cache, and waits until
// it is ready: generously, since the first sync with the store down retries for a
// while before it serves the cache.
func startSynced(t *testing.T, g storetest.Bucket, cache string, extra ...string) *syncedServer {
	t.Helper()
	onnxtest.Runtime(t)
	env := append(g.Env(), "MODELS_DIR="+g.URL(), "MODEL_CACHE_DIR="+cache, "REPOSITORY_POLL_INTERVAL="+syncedPoll,
		"LISTEN_ADDR=127.0.0.1:0", "RATE_LIMIT_RPS=0", "SHUTDOWN_DRAIN=0s")
	env = append(env, extra...)
	p := proctest.StartListening(t, proctest.Build(t, "inferd"), "/health", env...)
	s := &syncedServer{Proc: p, c: apitest.New(t, p.URL)}
	testkit.Eventually(t, 90*time.Second, func() (bool, string) {
		r := s.c.Get("/ready", "")
		return r.Status == http.StatusOK, string(r.Body)
	}, "the server is ready")
	return s
}

const irisInput = `[5.1,3.5,1.4,0.2]`

// polls waits until the server at c has polled its repository n more times with
// success (inferd_repository_syncs_total), calling check before each look: a wait for
// what the server makes of the store as it is now, where a sleep would guess how long
// n polls take. The poll under way when it starts may have listed the store before
// the test's last change; n counts it.
func polls(t *testing.T, c *apitest.Client, n int, check func()) {
	t.Helper()
	sample := regexp.MustCompile(`(?m)^inferd_repository_syncs_total\{outcome="success"\} (\d+)$`)
	count := func() int {
		m := sample.FindSubmatch(c.Get("/metrics", "").Body)
		if m == nil {
			t.Fatal(`/metrics has no inferd_repository_syncs_total{outcome="success"}`)
		}
		v, _ := strconv.Atoi(string(m[1]))
		return v
	}
	want := count() + n
	got := 0
	testkit.Eventually(t, time.Minute, func() bool {
		if check != nil {
			check()
		}
		got = count()
		return got >= want
	}, "%d polls of the repository: %s done", n, func() string { return strconv.Itoa(got - want + n) })
}

// predictStatus is the status of a prediction on model's version.
func (s *syncedServer) predictStatus(model, version, data string) (int, string) {
	r := s.c.Post("/predict", "dev-key", `{"model":"`+model+`","version":"`+version+`","data":`+data+`}`)
	return r.Status, string(r.Body)
}

// serves waits until a prediction on model's version succeeds.
func (s *syncedServer) serves(t *testing.T, model, version, data string) {
	t.Helper()
	testkit.Eventually(t, 60*time.Second, func() (bool, string) {
		st, body := s.predictStatus(model, version, data)
		return st == http.StatusOK, fmt.Sprintf("%d %s", st, body)
	}, "%s %s served", model, version)
}

func (s *syncedServer) index(t *testing.T) map[string]indexEntry {
	t.Helper()
	var idx []indexEntry
	resp := s.c.Post("/v2/repository/index", "admin-key", nil)
	if resp.Status != http.StatusOK {
		t.Fatalf("index: %d %s", resp.Status, resp.Body)
	}
	resp.JSON(t, &idx)
	out := map[string]indexEntry{}
	for _, e := range idx {
		out[e.Name+" "+e.Version] = e
	}
	return out
}

// metric is the value of a sample of /metrics, or -1 when it is absent.
func (s *syncedServer) metric(t *testing.T, sample string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` (\S+)$`).FindStringSubmatch(string(s.c.Get("/metrics", "").Body))
	if m == nil {
		return -1
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("%s: %v", sample, err)
	}
	return f
}

// TestRepositoryInBucket: the server serves what the bucket holds and follows it: a
// version uploaded later serves after a poll; a corrupt upload is refused with its
// reason in the repository index while the rest serves; a version uploaded file by
// file never serves half (every answer on the way is 400 version_not_found or 503) and
// serves once whole; a version deleted upstream is dropped; the store killed, serving
// goes on and /ready stays 200; restarted with the store still down, the server serves
// from its cache, and syncs again once the store is back. In an S3 bucket (versitygw)
// and in a GCS one (fake-gcs-server).
func TestRepositoryInBucket(t *testing.T) {
	for _, tt := range []struct {
		name   string
		bucket func(testing.TB) storetest.Outage
	}{
		{"s3", func(t testing.TB) storetest.Outage { return storetest.NewVersitygw(t) }},
		{"gcs", func(t testing.TB) storetest.Outage { return storetest.NewFakeGCS(t) }},
	} {
		t.Run(tt.name, func(t *testing.T) { repositoryInBucket(t, tt.bucket(t)) })
	}
}

func repositoryInBucket(t *testing.T, g storetest.Outage) {
	uploadVersion(t, g, "iris", "v1", versionFiles(t, "iris", "v1"), nil)
	uploadVersion(t, g, "e", "v1", echoFiles("first"), nil)
	cache := t.TempDir()
	s := startSynced(t, g, cache)
	s.serves(t, "iris", "v1", irisInput)
	s.serves(t, "e", "v1", `1`)

	t.Run("a version uploaded later serves after a poll", func(t *testing.T) {
		uploadVersion(t, g, "iris", "v2", versionFiles(t, "iris", "v2"), nil)
		s.serves(t, "iris", "v2", irisInput)
	})

	t.Run("a corrupt upload is refused with its reason", func(t *testing.T) {
		wrong := strings.Repeat("0", 64)
		uploadVersion(t, g, "e", "v2", echoFiles("corrupt"), map[string]string{"model.yaml": wrong})
		testkit.Eventually(t, 60*time.Second, func() (bool, string) {
			e := s.index(t)["e v2"]
			return e.State == "UNAVAILABLE" && strings.Contains(e.Reason, "digest mismatch") && strings.Contains(e.Reason, "SHA256SUMS says "+wrong), fmt.Sprintf("%+v", e)
		}, "e v2 refused in the index")
		if st, body := s.predictStatus("e", "v2", `1`); st != http.StatusServiceUnavailable {
			t.Errorf("e v2: %d %s, want 503", st, body)
		}
		for _, v := range [][2]string{{"iris", "v1"}, {"iris", "v2"}, {"e", "v1"}} {
			data := irisInput
			if v[0] == "e" {
				data = `1`
			}
			if st, body := s.predictStatus(v[0], v[1], data); st != http.StatusOK {
				t.Errorf("%s %s beside the refused version: %d %s", v[0], v[1], st, body)
			}
		}
		if r := s.c.Get("/ready", ""); r.Status != http.StatusOK {
			t.Errorf("/ready with a version refused: %d %s", r.Status, r.Body)
		}
		if got := s.metric(t, "inferd_repository_versions_refused"); got != 1 {
			t.Errorf("inferd_repository_versions_refused = %v, want 1", got)
		}
		if !strings.Contains(s.Logs(), "model version refused") {
			t.Error("the log does not say the version was refused")
		}
	})

	t.Run("a version uploaded file by file serves only whole", func(t *testing.T) {
		files := versionFiles(t, "iris", "v1")
		ctx, stop := context.WithCancel(context.Background())
		var mu sync.Mutex
		seen := map[int]int{}
		var watching sync.WaitGroup
		watching.Go(func() {
			served := false
			for ctx.Err() == nil {
				resp, err := s.c.TryDo(s.c.NewRequest(http.MethodPost, "/predict", "dev-key", `{"model":"iris","version":"v3","data":`+irisInput+`}`))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seen[resp.Status]++
				mu.Unlock()
				if served && resp.Status != http.StatusOK {
					t.Errorf("iris v3 answered %d after it served: %s", resp.Status, resp.Body)
				}
				served = served || resp.Status == http.StatusOK
				time.Sleep(10 * time.Millisecond) // the next sample of what the child inferd answers while the files arrive
			}
		})
		g.Put(t, "iris/v3/SHA256SUMS", sums(files, nil))
		g.Put(t, "iris/v3/model.yaml", files["model.yaml"])
		polls(t, s.c, 10, nil) // the listing holds still, half the version there
		g.Put(t, "iris/v3/model.onnx", files["model.onnx"])
		s.serves(t, "iris", "v3", irisInput)
		stop()
		watching.Wait()
		mu.Lock()
		defer mu.Unlock()
		for status := range seen {
			// 400 version_not_found while it is pending, 503 while it is refused.
			if status != http.StatusOK && status != http.StatusBadRequest && status != http.StatusServiceUnavailable {
				t.Errorf("iris v3 answered %d while it was uploaded (answers: %v)", status, seen)
			}
		}
		t.Logf("answers to iris v3 while it was uploaded file by file: %v", seen)
	})

	t.Run("a version deleted upstream is dropped", func(t *testing.T) {
		for _, name := range []string{"model.yaml", "SHA256SUMS"} {
			g.Delete(t, "e/v1/"+name)
		}
		testkit.Eventually(t, 60*time.Second, func() (bool, string) {
			st, body := s.predictStatus("e", "v1", `1`)
			_, listed := s.index(t)["e v1"]
			return st == http.StatusBadRequest && strings.Contains(body, `"version_not_found"`) && !listed, fmt.Sprintf("%d %s", st, body)
		}, "e v1 dropped")
	})

	t.Run("the store killed, serving goes on and the server stays ready", func(t *testing.T) {
		failures := s.metric(t, `inferd_repository_syncs_total{outcome="failure"}`)
		g.Stop(t)
		testkit.Eventually(t, 90*time.Second, func() (bool, string) {
			if r := s.c.Get("/ready", ""); r.Status != http.StatusOK {
				t.Fatalf("/ready with the store down: %d %s", r.Status, r.Body)
			}
			if st, body := s.predictStatus("iris", "v2", irisInput); st != http.StatusOK {
				t.Fatalf("iris v2 with the store down: %d %s", st, body)
			}
			got := s.metric(t, `inferd_repository_syncs_total{outcome="failure"}`)
			return got > failures, fmt.Sprintf("failed polls %v", got)
		}, "a poll has failed")
		if got := s.metric(t, `inferd_repository_sync_errors_total{reason="unavailable"}`); got < 1 {
			t.Errorf(`sync errors {reason="unavailable"} = %v, want some`, got)
		}
	})

	t.Run("a restart with the store down serves from the cache", func(t *testing.T) {
		s.Signal(syscall.SIGTERM)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if code, err := s.Wait(ctx); err != nil || code != 0 {
			t.Fatalf("the first server: exit %d %v", code, err)
		}
		again := startSynced(t, g, cache)
		for _, v := range []string{"v1", "v2", "v3"} {
			if st, body := again.predictStatus("iris", v, irisInput); st != http.StatusOK {
				t.Errorf("iris %s from the cache: %d %s", v, st, body)
			}
		}
		testkit.Eventually(t, 10*time.Second, func() (bool, string) {
			return strings.Contains(again.Logs(), "model versions restored from the cache"), "" // info lines wait 100 ms in a buffer
		}, "the log says the versions came from the cache")

		g.Start(t)
		uploadVersion(t, g, "e", "v3", echoFiles("after the outage"), nil)
		again.serves(t, "e", "v3", `1`)
		if last := again.metric(t, "inferd_repository_last_success_timestamp_seconds"); time.Since(time.Unix(int64(last), 0)) > time.Minute {
			t.Errorf("the last success is %v, not since the store came back", time.Unix(int64(last), 0))
		}
	})
}

// TestPolledDirectory: a directory polled (REPOSITORY_POLL_INTERVAL) goes through the
// same copy as a bucket: a version copied in later serves once whole (its SHA256SUMS
// first, its model.yaml after), a corrupt one is refused in the index, and one removed
// is dropped; the repository's metrics say so.
func TestPolledDirectory(t *testing.T) {
	repo := storetest.NewDir(t)
	uploadVersion(t, repo, "e", "v1", echoFiles("first"), nil)
	s := startApp(t, map[string]string{"MODELS_DIR": repo.URL(), "REPOSITORY_POLL_INTERVAL": syncedPoll,
		"MODEL_CACHE_DIR": t.TempDir(), "RATE_LIMIT_RPS": "0"}, true)
	predict := func(version string) int {
		return s.c.Post("/predict", "dev-key", `{"model":"e","version":"`+version+`","data":1}`).Status
	}
	if st := predict("v1"); st != http.StatusOK {
		t.Fatalf("e v1: %d", st)
	}

	files := echoFiles("second")
	repo.Put(t, "e/v2/SHA256SUMS", sums(files, nil))
	polls(t, s.c, 5, nil)
	if st := predict("v2"); st == http.StatusOK {
		t.Error("e v2 serves with its SHA256SUMS alone")
	}
	repo.Put(t, "e/v2/model.yaml", files["model.yaml"])
	testkit.Eventually(t, 60*time.Second, func() (bool, string) { st := predict("v2"); return st == http.StatusOK, strconv.Itoa(st) }, "e v2 served")

	uploadVersion(t, repo, "e", "v3", echoFiles("third"), map[string]string{"model.yaml": strings.Repeat("f", 64)})
	testkit.Eventually(t, 60*time.Second, func() (bool, string) {
		e := repositoryIndex(t, s)["e v3"]
		return e.State == "UNAVAILABLE" && strings.Contains(e.Reason, "digest mismatch"), fmt.Sprintf("%+v", e)
	}, "e v3 refused")

	repo.Delete(t, "e/v1/model.yaml")
	repo.Delete(t, "e/v1/SHA256SUMS")
	testkit.Eventually(t, 60*time.Second, func() (bool, string) {
		_, listed := repositoryIndex(t, s)["e v1"]
		return !listed, "still listed"
	}, "e v1 dropped")
	if got := metricValue(t, s, "inferd_repository_versions_refused"); got != "1" {
		t.Errorf("inferd_repository_versions_refused = %q, want 1", got)
	}
}
