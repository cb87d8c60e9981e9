package s3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/store"
	"github.com/inferd/inferd/internal/store/s3"
	"github.com/inferd/inferd/internal/storetest"
	"github.com/inferd/inferd/internal/testport"
)

// isolate keeps the machine's own AWS configuration (a profile, a session token, an
// endpoint, ~/.aws) out of the test, and sets env (NAME=value) instead.
func isolate(t *testing.T, env []string) {
	t.Helper()
	for _, k := range []string{"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
		"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_MAX_ATTEMPTS", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CA_BUNDLE"} {
		t.Setenv(k, "") // restored when the test ends
		os.Unsetenv(k)
	}
	none := filepath.Join(t.TempDir(), "none")
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// counter counts the HTTP requests a Store sends, retries included.
type counter struct {
	n  atomic.Int64
	rt http.RoundTripper
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.rt.RoundTrip(r)
}

func counted() (*http.Client, *counter) {
	c := &counter{rt: http.DefaultTransport.(*http.Transport).Clone()}
	return &http.Client{Transport: c}, c
}

// open starts versitygw and a Store over its repository, configured from the
// environment as inferd's is.
func open(t *testing.T, opts s3.Options) (*storetest.Versitygw, *s3.Store) {
	t.Helper()
	g := storetest.NewVersitygw(t)
	isolate(t, g.Env())
	s, err := s3.New(context.Background(), g.URL(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return g, s
}

func TestConformance(t *testing.T) {
	g, s := open(t, s3.Options{})
	if got := s.String(); got != g.URL() {
		t.Errorf("String() = %q, want %q", got, g.URL())
	}
	storetest.Conformance(t, g, s)
}

// TestListRequests: a listing of a repository of 1,000 versions of 3 files costs one
// request per 1,000 keys, and a read one request.
func TestListRequests(t *testing.T) {
	hc, n := counted()
	g, s := open(t, s3.Options{HTTPClient: hc})
	const versions, files = 1000, 3
	start := time.Now()
	for v := range versions {
		for _, f := range []string{"model.onnx", "model.yaml", "SHA256SUMS"} {
			g.Put(t, fmt.Sprintf("m%02d/%d/%s", v/100, v%100+1, f), []byte(f))
		}
	}
	t.Logf("uploading %d objects took %s", versions*files, time.Since(start).Round(time.Millisecond))

	n.n.Store(0)
	objs, err := s.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != versions*files {
		t.Fatalf("List = %d objects, want %d", len(objs), versions*files)
	}
	const want = versions * files / 1000
	if got := n.n.Load(); got != want {
		t.Errorf("a List of %d versions (%d objects) sent %d requests, want %d", versions, len(objs), got, want)
	}
	t.Logf("a List of %d versions of %d files (%d objects) sent %d requests", versions, files, len(objs), n.n.Load())

	n.n.Store(0)
	rc, _, err := s.Get(context.Background(), objs[0].Key, 0, objs[0].ETag)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, rc)
	rc.Close()
	if got := n.n.Load(); got != 1 {
		t.Errorf("a Get sent %d requests, want 1", got)
	}
}

// TestWrongCredentials: a key the server does not know, or a wrong secret, is
// ErrDenied at once (no retry), and the error names neither secret.
func TestWrongCredentials(t *testing.T) {
	g := storetest.NewVersitygw(t)
	g.Put(t, "m/v1/model.onnx", []byte("model"))
	env := map[string]string{}
	for _, kv := range g.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	const wrongSecret = "wrongSecretWrongSecretWrongSecret0123456"
	for _, tc := range []struct{ name, access, secret string }{
		{"unknown access key", "AKIAUNKNOWNUNKNOWN00", env["AWS_SECRET_ACCESS_KEY"]},
		{"wrong secret", env["AWS_ACCESS_KEY_ID"], wrongSecret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t, append(g.Env(), "AWS_ACCESS_KEY_ID="+tc.access, "AWS_SECRET_ACCESS_KEY="+tc.secret))
			hc, n := counted()
			s, err := s3.New(context.Background(), g.URL(), s3.Options{HTTPClient: hc})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.List(context.Background(), "")
			if !errors.Is(err, store.ErrDenied) {
				t.Fatalf("List: %v, want ErrDenied", err)
			}
			_, _, gerr := s.Get(context.Background(), "m/v1/model.onnx", 0, "")
			if !errors.Is(gerr, store.ErrDenied) {
				t.Errorf("Get: %v, want ErrDenied", gerr)
			}
			for _, secret := range []string{env["AWS_SECRET_ACCESS_KEY"], wrongSecret} {
				if strings.Contains(err.Error(), secret) || strings.Contains(gerr.Error(), secret) || strings.Contains(s.String(), secret) {
					t.Errorf("a secret is in the errors:\n%v\n%v", err, gerr)
				}
			}
			if got := n.n.Load(); got != 2 {
				t.Errorf("a List and a Get refused sent %d requests, want 2: a refusal is not retried", got)
			}
			t.Logf("List: %v", err)
		})
	}
}

// TestNoCredentials: with no credentials anywhere (no environment, no files, no
// instance role) a request is never sent, and the error says what to set.
func TestNoCredentials(t *testing.T) {
	isolate(t, []string{"AWS_ENDPOINT_URL_S3=http://127.0.0.1:1", "AWS_REGION=us-east-1"})
	hc, n := counted()
	s, err := s3.New(context.Background(), "s3://models/repo", s3.Options{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(context.Background(), ""); !errors.Is(err, store.ErrDenied) || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Errorf("List: %v, want ErrDenied naming AWS_ACCESS_KEY_ID", err)
	}
	if _, _, err := s.Get(context.Background(), "m/v1/model.onnx", 0, ""); !errors.Is(err, store.ErrDenied) {
		t.Errorf("Get: %v, want ErrDenied", err)
	}
	if got := n.n.Load(); got != 0 {
		t.Errorf("%d requests sent without credentials", got)
	}
}

// TestDeadStore: a store that refuses connections answers ErrUnavailable after
// Attempts requests, within seconds.
func TestDeadStore(t *testing.T) {
	port, err := testport.Free()
	if err != nil {
		t.Fatal(err)
	}
	isolate(t, []string{"AWS_ENDPOINT_URL_S3=http://127.0.0.1:" + strconv.Itoa(port), "AWS_ACCESS_KEY_ID=a", "AWS_SECRET_ACCESS_KEY=b"})
	for _, attempts := range []int{0, 1, 5} {
		t.Run("attempts "+strconv.Itoa(attempts), func(t *testing.T) {
			hc, n := counted()
			s, err := s3.New(context.Background(), "s3://models/repo", s3.Options{HTTPClient: hc, Attempts: attempts})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = s.List(context.Background(), "")
			took := time.Since(start)
			if !errors.Is(err, store.ErrUnavailable) {
				t.Fatalf("List: %v, want ErrUnavailable", err)
			}
			want := int64(attempts)
			if attempts == 0 {
				want = s3.DefaultAttempts
			}
			if got := n.n.Load(); got != want {
				t.Errorf("sent %d requests, want %d", got, want)
			}
			if took > time.Duration(want)*2*time.Second {
				t.Errorf("ErrUnavailable took %s", took)
			}
			t.Logf("%d requests, %s: %v", n.n.Load(), took.Round(time.Millisecond), err)
		})
	}
}

// TestSilentStore: a store that takes connections and never answers is
// ErrUnavailable once the read timeout has passed, not a hang.
func TestSilentStore(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the SDK client's read timeout; runs without -short")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c) }() // read the request, never answer
		}
	}()
	isolate(t, []string{"AWS_ENDPOINT_URL_S3=http://" + l.Addr().String(), "AWS_ACCESS_KEY_ID=a", "AWS_SECRET_ACCESS_KEY=b"})
	s, err := s3.New(context.Background(), "s3://models/repo", s3.Options{Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.List(context.Background(), "")
	if took := time.Since(start); !errors.Is(err, store.ErrUnavailable) || took > 20*time.Second {
		t.Errorf("List of a silent store: %v after %s, want ErrUnavailable within 20 s", err, took)
	}
	t.Logf("%s: %v", time.Since(start).Round(time.Millisecond), err)
}

// TestPrefix: keys are relative to the repository's prefix; a Store of the whole
// bucket sees them below it.
func TestPrefix(t *testing.T) {
	g, s := open(t, s3.Options{})
	g.Put(t, "m/v1/model.onnx", []byte("model"))
	whole, err := s3.New(context.Background(), "s3://models/", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    store.Store
		want string
	}{{s, "m/v1/model.onnx"}, {whole, "repo/m/v1/model.onnx"}} {
		objs, err := tc.s.List(context.Background(), "")
		if err != nil || len(objs) != 1 || objs[0].Key != tc.want {
			t.Errorf("%s: List = %+v, %v, want %s", tc.s, objs, err, tc.want)
		}
		if _, _, err := tc.s.Get(context.Background(), tc.want, 0, ""); err != nil {
			t.Errorf("%s: Get(%s): %v", tc.s, tc.want, err)
		}
	}
	for _, key := range []string{"../repo/m/v1/model.onnx", "/m/v1/model.onnx", "m//v1/model.onnx", ""} {
		if _, _, err := s.Get(context.Background(), key, 0, ""); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get(%q): %v, want ErrNotFound", key, err)
		}
	}
}

// TestMissingBucket: a bucket that is not there is a configuration to change
// (ErrDenied), never an empty repository or a missing object.
func TestMissingBucket(t *testing.T) {
	_, _ = open(t, s3.Options{})
	s, err := s3.New(context.Background(), "s3://no-such-bucket/repo", s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(context.Background(), ""); !errors.Is(err, store.ErrDenied) {
		t.Errorf("List: %v, want ErrDenied", err)
	}
	if _, _, err := s.Get(context.Background(), "m/v1/model.onnx", 0, ""); !errors.Is(err, store.ErrDenied) {
		t.Errorf("Get: %v, want ErrDenied", err)
	}
}

// TestOffsets: a read from the end is empty (a download resumed after its last
// byte), one past it an error.
func TestOffsets(t *testing.T) {
	g, s := open(t, s3.Options{})
	g.Put(t, "m/v1/model.onnx", []byte("0123456789"))
	objs, err := s.List(context.Background(), "m/")
	if err != nil || len(objs) != 1 {
		t.Fatalf("List: %v, %v", objs, err)
	}
	etag := objs[0].ETag
	for _, tc := range []struct {
		offset int64
		want   string
	}{{0, "0123456789"}, {9, "9"}, {10, ""}} {
		rc, o, err := s.Get(context.Background(), "m/v1/model.onnx", tc.offset, etag)
		if err != nil {
			t.Errorf("Get from %d: %v", tc.offset, err)
			continue
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(b) != tc.want || o.Size != 10 || o.ETag != etag {
			t.Errorf("Get from %d = %q, %+v, %v; want %q of 10 bytes", tc.offset, b, o, err, tc.want)
		}
	}
	if _, _, err := s.Get(context.Background(), "m/v1/model.onnx", 11, etag); err == nil {
		t.Error("Get from past the end: no error")
	}
	g.Put(t, "m/v1/model.onnx", []byte("changed"))
	if _, _, err := s.Get(context.Background(), "m/v1/model.onnx", 10, etag); !errors.Is(err, store.ErrChanged) {
		t.Errorf("Get from the end of a changed object: %v, want ErrChanged", err)
	}
}

func TestNew(t *testing.T) {
	isolate(t, []string{"AWS_REGION=eu-west-3"})
	for _, tc := range []struct{ url, want string }{
		{"s3://models", "s3://models"},
		{"s3://models/", "s3://models"},
		{"s3://models/teams/vision/", "s3://models/teams/vision"},
		{"s3://my.models-2/repo", "s3://my.models-2/repo"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			s, err := s3.New(context.Background(), tc.url, s3.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s.String() != tc.want {
				t.Errorf("String() = %q, want %q", s.String(), tc.want)
			}
		})
	}
}

func TestBadURL(t *testing.T) {
	isolate(t, []string{"AWS_REGION=eu-west-3"})
	for _, tc := range []struct{ url, want string }{
		{"", "not an s3:// URL"},
		{"./models", "not an s3:// URL"},
		{"gs://models/repo", "not an s3:// URL"},
		{"s3://", "no bucket"},
		{"s3:///repo", "no bucket"},
		{"s3:models/repo", "want s3://bucket/prefix"},
		{"s3://ab/repo", "3 to 63 characters"},
		{"s3://" + strings.Repeat("a", 64), "3 to 63 characters"},
		{"s3://Models/repo", "lowercase letters"},
		{"s3://my_models/repo", "lowercase letters"},
		{"s3://-models/repo", "begins and ends"},
		{"s3://models./repo", "begins and ends"},
		{"s3://my..models/repo", "two '.'"},
		{"s3://models:9000/repo", "AWS_ENDPOINT_URL_S3"},
		{"s3://AKIAEXAMPLE:hunter2secret@models/repo", "credentials do not go in the URL"},
		{"s3://models/a//b", "empty, '.' or '..' segment"},
		{"s3://models/a/../b", "empty, '.' or '..' segment"},
		{"s3://models/./b", "empty, '.' or '..' segment"},
		{"s3://models/repo?versionId=1", "no query or fragment"},
		{"s3://models/repo#v1", "no query or fragment"},
		{"s3://mod els/repo", "not a URL"},
		{"s3://user:hunter2secret@mod els/repo", "not a URL"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := s3.New(context.Background(), tc.url, s3.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New(%q): %v, want an error saying %q", tc.url, err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2secret") {
				t.Errorf("the error repeats the URL's password: %v", err)
			}
		})
	}
}

// TestRegion: AWS needs the bucket's region; an S3-compatible server is signed for
// us-east-1 when none is set.
func TestRegion(t *testing.T) {
	isolate(t, nil)
	if _, err := s3.New(context.Background(), "s3://models/repo", s3.Options{}); err == nil || !strings.Contains(err.Error(), "AWS_REGION") {
		t.Errorf("New without a region: %v, want an error naming AWS_REGION", err)
	}
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000")
	if _, err := s3.New(context.Background(), "s3://models/repo", s3.Options{}); err != nil {
		t.Errorf("New with an endpoint and no region: %v", err)
	}
}

// TestAWSCLI: an object uploaded with the AWS CLI (Debian's awscli, which needs
// --endpoint-url) is listed and read through the Store.
func TestAWSCLI(t *testing.T) {
	aws, err := exec.LookPath("aws")
	storetest.Require(t, "the aws command (Debian's awscli)", err)
	g, s := open(t, s3.Options{})
	// 9 MiB, past the CLI's multipart threshold (8 MiB): uploaded in parts, as
	// model files are.
	data := bytes.Repeat([]byte("onnx"), 9<<20/4)
	file := filepath.Join(t.TempDir(), "model.onnx")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(aws, "s3", "cp", "--only-show-errors", "--endpoint-url", g.Endpoint(), file, g.URL()+"/iris/v1/model.onnx")
	cmd.Env = os.Environ() // isolate's, with the gateway's credentials
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("aws s3 cp: %v\n%s", err, out)
	}
	objs, err := s.List(context.Background(), "iris/")
	if err != nil || len(objs) != 1 || objs[0].Key != "iris/v1/model.onnx" || objs[0].Size != int64(len(data)) {
		t.Fatalf("List after aws s3 cp = %+v, %v", objs, err)
	}
	rc, _, err := s.Get(context.Background(), objs[0].Key, 0, objs[0].ETag)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if got, err := io.ReadAll(rc); err != nil || !bytes.Equal(got, data) {
		t.Errorf("read %d bytes, %v; want the %d uploaded", len(got), err, len(data))
	}
}
