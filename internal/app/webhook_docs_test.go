package app_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/readmetest"
	"github.com/inferd/inferd/internal/testkit"
)

// docReceiver is the receiver docs/webhooks.md posts to: it keeps the first request.
type docReceiver struct {
	mu     sync.Mutex
	method string
	path   string
	header http.Header
	body   []byte
}

func (d *docReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	d.mu.Lock()
	if d.header == nil {
		d.method, d.path, d.header, d.body = r.Method, r.URL.Path, r.Header.Clone(), body
	}
	d.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (d *docReceiver) got() (string, string, http.Header, []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.method, d.path, d.header, d.body
}

// TestWebhookDocs runs the example of docs/webhooks.md on an in-process server: the
// submission, the callback a receiver started here gets (headers and body as the page
// shows them, the signature checked as Standard Webhooks describes), and the record
// after. The page's receiver port, 9000, is the test receiver's.
func TestWebhookDocs(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rcv := &docReceiver{}
	hs := &http.Server{Handler: rcv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	section := strings.ReplaceAll(readmetest.FileSection(t, "docs/webhooks.md", "## Example"), "127.0.0.1:9000", ln.Addr().String())

	env := map[string]string{"MODELS_DIR": repoModels(t), "RATE_LIMIT_RPS": "0"}
	var request []string // the ```http block
	inRequest := false
	for line := range strings.SplitSeq(section, "\n") {
		switch {
		case settingsRun.MatchString(line):
			for _, kv := range strings.Fields(settingsRun.FindStringSubmatch(line)[1]) {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
		case line == "```http":
			inRequest = true
		case inRequest && line == "```":
			inRequest = false
		case inRequest:
			request = append(request, line)
		}
	}
	if env["WEBHOOK_SECRET"] == "" || len(request) < 3 {
		t.Fatalf("docs/webhooks.md's example lacks its settings line or its request (settings %v, request %q)", env, request)
	}
	exs := examplesIn(t, section, "docs/webhooks.md ## Example")
	if len(exs) != 2 || exs[0].method != http.MethodPost {
		t.Fatalf("want a submission and a read in docs/webhooks.md's example, got %+v", exs)
	}
	s := startApp(t, env, true)

	sub := exs[0]
	resp := s.c.Do(s.c.NewRequest(sub.method, sub.path, sub.key, sub.body))
	if resp.Status != sub.status {
		t.Fatalf("status %d, the page says %d: %s", resp.Status, sub.status, resp.Body)
	}
	if err := readmetest.JSON(sub.want, resp.Body); err != nil {
		t.Fatal(err)
	}
	var job struct {
		JobID string `json:"job_id"`
	}
	resp.JSON(t, &job)

	testkit.Eventually(t, 10*time.Second, func() bool { method, _, _, _ := rcv.got(); return method != "" }, "a callback")
	method, path, header, body := rcv.got()
	t.Run("request", func(t *testing.T) {
		if want := method + " " + path + " HTTP/1.1"; request[0] != want {
			t.Errorf("the page shows %q, the receiver got %q", request[0], want)
		}
		var i int
		for i = 1; i < len(request) && request[i] != ""; i++ {
			name, value, _ := strings.Cut(request[i], ": ")
			got := header.Get(name)
			switch name {
			case "webhook-id":
				value = job.JobID
			case "webhook-timestamp":
				if _, err := strconv.ParseInt(got, 10, 64); err != nil {
					t.Errorf("webhook-timestamp %q is not Unix seconds", got)
				}
				continue
			}
			if err := readmetest.Line(value, got); err != nil {
				t.Errorf("header %s: %v", name, err)
			}
		}
		if err := readmetest.JSON(strings.Join(request[i+1:], "\n"), body); err != nil {
			t.Error(err)
		}
		if err := verifySignature(env["WEBHOOK_SECRET"], header, body); err != nil {
			t.Error(err)
		}
	})

	read := exs[1]
	read.path = strings.ReplaceAll(read.path, "<job_id>", job.JobID)
	var last []byte
	testkit.Eventually(t, 10*time.Second, func() bool {
		resp := s.c.Do(s.c.NewRequest(read.method, read.path, read.key, nil))
		last = resp.Body
		return resp.Status == read.status && readmetest.JSON(read.want, resp.Body) == nil
	}, "the record read as the page shows:\n got: %s\nwant: %s", func() string { return string(last) }, read.want)
}

// verifySignature checks a callback's signature as the Standard Webhooks specification
// describes it, apart from inferd's code: HMAC-SHA256, keyed with the base64 after
// whsec_, over "{webhook-id}.{webhook-timestamp}.{body}", one of the space-separated
// "v1,<base64>" of webhook-signature.
func verifySignature(secret string, h http.Header, body []byte) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", h.Get("webhook-id"), h.Get("webhook-timestamp"), body)
	want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte("v1,"+want)) {
			return nil
		}
	}
	return fmt.Errorf("no signature of %q matches", h.Get("webhook-signature"))
}
