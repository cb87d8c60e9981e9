package gcs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/api/option"

	"github.com/inferd/inferd/internal/store"
	"github.com/inferd/inferd/internal/store/gcs"
	"github.com/inferd/inferd/internal/storetest"
)

// open returns the Store of b's repository, reached through b's environment as an
// inferd process would be.
func open(t *testing.T, b storetest.Bucket, opts gcs.Options) *gcs.Store {
	t.Helper()
	for _, kv := range b.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	s, err := gcs.New(context.Background(), b.URL(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	b := storetest.NewFakeGCS(t)
	storetest.Conformance(t, b, open(t, b, gcs.Options{}))
}

// counter counts the requests of a client.
type counter struct{ n atomic.Int64 }

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// TestListRequests: a listing of a repository of 1,000 versions of 3 files each costs
// one request per 1,000 keys, the cost of every poll, changed or not.
func TestListRequests(t *testing.T) {
	b := storetest.NewFakeGCS(t)
	const versions = 1000
	for v := 1; v <= versions; v++ {
		for _, f := range []string{"model.onnx", "model.yaml", "SHA256SUMS"} {
			b.Put(t, fmt.Sprintf("m%d/%d/%s", v%10, v, f), []byte(f))
		}
	}
	c := &counter{}
	s := open(t, b, gcs.Options{ClientOptions: []option.ClientOption{option.WithHTTPClient(&http.Client{Transport: c})}})
	for poll := range 2 {
		c.n.Store(0)
		objs, err := s.List(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) != 3*versions {
			t.Fatalf("listed %d objects, want %d", len(objs), 3*versions)
		}
		t.Logf("poll %d: a List of %d versions (%d objects) took %d requests", poll+1, versions, len(objs), c.n.Load())
		if got := c.n.Load(); got != 3 {
			t.Errorf("a List of %d objects took %d requests, want 3 (pages of 1,000)", len(objs), got)
		}
	}
}

// TestReadAtEnd: a read from the object's end (a download resumed after its last byte)
// reads nothing, where GCS answers 416; one past it is an error.
func TestReadAtEnd(t *testing.T) {
	b := storetest.NewFakeGCS(t)
	s := open(t, b, gcs.Options{})
	b.Put(t, "m/1/model.onnx", []byte("0123456789"))
	objs, err := s.List(context.Background(), "m/")
	if err != nil || len(objs) != 1 {
		t.Fatalf("List = %v, %v", objs, err)
	}
	rc, o, err := s.Get(context.Background(), "m/1/model.onnx", 10, objs[0].ETag)
	if err != nil {
		t.Fatalf("Get from the end: %v", err)
	}
	if got, err := io.ReadAll(rc); err != nil || len(got) != 0 || o.Size != 10 || o.ETag != objs[0].ETag {
		t.Errorf("Get from the end read %q, %v (object %+v), want nothing of %+v", got, err, o, objs[0])
	}
	rc.Close()
	if _, _, err := s.Get(context.Background(), "m/1/model.onnx", 11, ""); err == nil || !strings.Contains(err.Error(), "past the object's end") {
		t.Errorf("Get past the end: %v", err)
	}
}

// TestKilledMidRead: a server killed while an object is read ends the read with
// ErrUnavailable once the bounded retries of its resumption are spent, rather than
// with a short body taken for a whole one.
func TestKilledMidRead(t *testing.T) {
	b := storetest.NewFakeGCS(t)
	s := open(t, b, gcs.Options{})
	const size = 64 << 20 // more than the sockets' buffers hold
	b.Put(t, "big/1/model.onnx", make([]byte, size))
	rc, _, err := s.Get(context.Background(), "big/1/model.onnx", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := io.ReadFull(rc, make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	b.Stop(t)
	start := time.Now()
	n, err := io.Copy(io.Discard, rc)
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("read after the kill: %d more bytes, %v: want ErrUnavailable", n, err)
	}
	t.Logf("the read failed %s after the kill, %d bytes short: %v", time.Since(start).Round(time.Millisecond), size-(1<<20)-n, err)
}

// TestAnswers: the store's answers that the emulator never gives (a refusal, an
// error of its own, a silence) are told apart, each after a bounded number of requests
// and time. The server is a plain HTTP server answering as GCS does.
func TestAnswers(t *testing.T) {
	const timeout = 500 * time.Millisecond
	for _, tc := range []struct {
		name     string
		status   int // 0: headers and 10 bytes of 100, then silence
		list     error
		get      error
		requests int64 // of the List
	}{
		{"401", http.StatusUnauthorized, store.ErrDenied, store.ErrDenied, 1},
		{"403", http.StatusForbidden, store.ErrDenied, store.ErrDenied, 1},
		{"404", http.StatusNotFound, store.ErrNotFound, store.ErrNotFound, 1},
		{"412", http.StatusPreconditionFailed, store.ErrChanged, store.ErrChanged, 1},
		{"503 retried 3 times", http.StatusServiceUnavailable, store.ErrUnavailable, store.ErrUnavailable, 3},
		{"429 retried 3 times", http.StatusTooManyRequests, store.ErrUnavailable, store.ErrUnavailable, 3},
		{"silent", 0, store.ErrUnavailable, store.ErrUnavailable, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var requests atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				if tc.status != 0 {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(tc.status)
					fmt.Fprintf(w, `{"error":{"code":%d,"message":"as GCS says it"}}`, tc.status)
					return
				}
				if strings.HasPrefix(r.URL.Path, "/storage/v1/") {
					<-r.Context().Done() // a listing never answered
					return
				}
				w.Header().Set("Content-Length", "100")
				w.Header().Set("X-Goog-Generation", "7")
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(make([]byte, 10))
				w.(http.Flusher).Flush()
				<-r.Context().Done() // the rest never comes
			}))
			defer srv.Close()
			t.Setenv("STORAGE_EMULATOR_HOST", srv.Listener.Addr().String()) // host:port, the other form it takes
			s, err := gcs.New(context.Background(), "gs://models/repo", gcs.Options{Timeout: timeout})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()

			start := time.Now()
			_, err = s.List(context.Background(), "")
			t.Logf("List: %v", err)
			if !errors.Is(err, tc.list) {
				t.Errorf("List: %v, want %v", err, tc.list)
			}
			if got := requests.Load(); tc.requests != 0 && got != tc.requests {
				t.Errorf("List made %d requests, want %d", got, tc.requests)
			}
			if d := time.Since(start); d > timeout+2*time.Second {
				t.Errorf("List took %s", d)
			}

			start = time.Now()
			rc, _, err := s.Get(context.Background(), "m/1/model.onnx", 0, "7")
			if err == nil {
				_, err = io.ReadAll(rc)
				rc.Close()
			}
			t.Logf("Get: %v", err)
			if !errors.Is(err, tc.get) {
				t.Errorf("Get: %v, want %v", err, tc.get)
			}
			if d := time.Since(start); d > timeout+2*time.Second {
				t.Errorf("Get took %s", d)
			}
			if strings.Contains(fmt.Sprint(err), "@") {
				t.Errorf("the error names credentials: %v", err)
			}
		})
	}
}

func TestBadURL(t *testing.T) {
	t.Setenv("STORAGE_EMULATOR_HOST", "127.0.0.1:1") // New makes no request
	for _, tc := range []struct{ url, want string }{
		{"s3://models/repo", `the scheme is "s3", not gs`},
		{"models/repo", `the scheme is "", not gs`},
		{"gs:models", "no // after gs:"},
		{"gs://", "no bucket name"},
		{"gs:///repo", "no bucket name"},
		{"gs://Models", "bucket names are lower-case"},
		{"gs://ab", "3 to 63 characters"},
		{"gs://" + strings.Repeat("a", 64), "3 to 63 characters"},
		{"gs://-models", "starts and ends with a letter or a digit"},
		{"gs://mod*els", "not '*'"},
		{"gs://my models", "invalid character"},
		{"gs://models:443/repo", "no port"},
		{"gs://reader:s3cr3t@models/repo", "never credentials in the URL"},
		{"gs://models/repo?generation=1", "a query"},
		{"gs://models/repo#v1", "a fragment"},
		{"gs://models/a//b", "empty segment"},
		{"gs://models/a/../b", `".." segment`},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := gcs.New(context.Background(), tc.url, gcs.Options{})
			if !errors.Is(err, gcs.ErrURL) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%q): %v, want ErrURL saying %q", tc.url, err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("the error repeats the password: %v", err)
			}
		})
	}
	for url, want := range map[string]string{
		"gs://models":               "gs://models",
		"gs://models/":              "gs://models",
		"gs://models/team/repo/":    "gs://models/team/repo",
		"gs://models.example.com/r": "gs://models.example.com/r",
	} {
		s, err := gcs.New(context.Background(), url, gcs.Options{})
		if err != nil {
			t.Errorf("New(%q): %v", url, err)
			continue
		}
		if s.String() != want {
			t.Errorf("New(%q).String() = %q, want %q", url, s.String(), want)
		}
		_ = s.Close()
	}
}

// TestFolders: the objects that consoles make to show folders ("name/", empty) are no
// files of the repository. fake-gcs-server keeps none with its file-system backend, so
// the page is GCS's answer as it documents it, from a plain HTTP server.
func TestFolders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("prefix") != "repo/" || r.URL.Query().Get("maxResults") != "1000" {
			http.Error(w, "unexpected query "+r.URL.RawQuery, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"storage#objects","items":[
			{"name":"repo/","size":"0","generation":"1","updated":"2026-01-02T03:04:05.000Z"},
			{"name":"repo/iris/","size":"0","generation":"2","updated":"2026-01-02T03:04:05.000Z"},
			{"name":"repo/iris/1/model.onnx","size":"5","generation":"3","updated":"2026-01-02T03:04:05.000Z"}]}`)
	}))
	defer srv.Close()
	t.Setenv("STORAGE_EMULATOR_HOST", srv.URL)
	s, err := gcs.New(context.Background(), "gs://models/repo", gcs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	objs, err := s.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].Key != "iris/1/model.onnx" || objs[0].Size != 5 || objs[0].ETag != "3" || objs[0].Modified.IsZero() {
		t.Errorf("List = %+v, want only iris/1/model.onnx (5 bytes, ETag 3)", objs)
	}
}
