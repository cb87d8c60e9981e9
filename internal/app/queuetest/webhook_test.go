package queuetest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/testkit"
)

// hookSecret signs the callbacks of these tests (WEBHOOK_SECRET).
const hookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// hookEnv lets jobs call back the receivers of these tests, which listen on loopback:
// 127.0.0.1 must be listed, as it would never be allowed otherwise.
var hookEnv = []string{"WEBHOOK_ALLOWED_HOSTS=127.0.0.1", "WEBHOOK_SECRET=" + hookSecret}

// receiver is a callback receiver the test starts: it verifies every request's
// signature as the Standard Webhooks specification describes, independently of
// inferd's code, and keeps what it got per webhook-id.
type receiver struct {
	url string
	// fail, when set, answers a request 503 instead of 204 when it returns true (n is
	// the attempt at that id, from 1).
	fail func(id string, n int) bool
	// hold, when set, is called before the request is answered, for a test to hold a
	// delivery under way.
	hold func(id string, r *http.Request)

	mu        sync.Mutex
	attempts  map[string]int    // by webhook-id
	delivered map[string][]byte // the bodies answered 2xx, by webhook-id
	badSigs   int
	wrong     []string // requests that were not what a callback must be
}

func startReceiver(tb testing.TB) *receiver {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	rv := &receiver{url: "http://" + ln.Addr().String() + "/hook", attempts: map[string]int{}, delivered: map[string][]byte{}}
	srv := &http.Server{Handler: rv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	tb.Cleanup(func() { _ = srv.Close() })
	return rv
}

func (rv *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	id := r.Header.Get("webhook-id")
	rv.mu.Lock()
	rv.attempts[id]++
	n := rv.attempts[id]
	if err := verifyStandard(hookSecret, r.Header, body); err != nil {
		rv.badSigs++
		rv.wrong = append(rv.wrong, fmt.Sprintf("%s: %v", id, err))
	}
	var rec jobRecord
	switch {
	case err != nil:
		rv.wrong = append(rv.wrong, fmt.Sprintf("%s: reading the body: %v", id, err))
	case r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json":
		rv.wrong = append(rv.wrong, fmt.Sprintf("%s: %s with Content-Type %q", id, r.Method, r.Header.Get("Content-Type")))
	case json.Unmarshal(body, &rec) != nil || rec.JobID != id || !rec.final():
		rv.wrong = append(rv.wrong, fmt.Sprintf("%s: the body is not the job's final record: %s", id, body))
	}
	fail := rv.fail != nil && rv.fail(id, n)
	rv.mu.Unlock()
	if rv.hold != nil {
		rv.hold(id, r)
	}
	if r.Context().Err() != nil {
		return // its sender went away: it never learns of an answer
	}
	if fail {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	rv.mu.Lock()
	rv.delivered[id] = body
	rv.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// count returns how many ids were delivered.
func (rv *receiver) count() int {
	rv.mu.Lock()
	defer rv.mu.Unlock()
	return len(rv.delivered)
}

// verifyStandard checks a callback as a Standard Webhooks receiver does, from the
// specification: the secret is whsec_ and base64 of the key; the signed content is
// "{webhook-id}.{webhook-timestamp}.{body}"; webhook-signature is a space-separated
// list of "v1,<base64 of HMAC-SHA256>", one of which must match; the timestamp is
// Unix seconds, within five minutes of now.
func verifyStandard(secret string, h http.Header, body []byte) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return err
	}
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return fmt.Errorf("missing headers: id %q, timestamp %q, signature %q", id, ts, sigs)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("timestamp %q: %w", ts, err)
	}
	if d := time.Since(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return fmt.Errorf("timestamp %s is %s off", ts, d)
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", id, ts, body)
	want := mac.Sum(nil)
	for _, sig := range strings.Fields(sigs) {
		if b64, ok := strings.CutPrefix(sig, "v1,"); ok {
			if got, err := base64.StdEncoding.DecodeString(b64); err == nil && hmac.Equal(got, want) {
				return nil
			}
		}
	}
	return fmt.Errorf("no signature of %q matches", sigs)
}

// hookRecord is the callback of a job's record.
type hookRecord struct {
	Callback *struct {
		URL       string `json:"url"`
		State     string `json:"state"`
		Attempts  int    `json:"attempts"`
		LastError string `json:"last_error"`
	} `json:"callback"`
}

func (s *server) callback(tb testing.TB, id string) hookRecord {
	tb.Helper()
	var rec hookRecord
	s.api.Get("/jobs/"+id, devKey).JSON(tb, &rec)
	if rec.Callback == nil {
		tb.Fatalf("job %s has no callback on its record", id)
	}
	return rec
}

// TestWebhooksDelivered: 1,000 jobs with callbacks, on two workers, to a receiver that
// fails the first attempt at one in ten: every callback is delivered, every request
// the receiver got verifies, and each retry carries its job's webhook-id.
func TestWebhooksDelivered(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	rv := startReceiver(t)
	failsFirst := func(id string) bool { return crc32.ChecksumIEEE([]byte(id))%10 == 0 }
	rv.fail = func(id string, n int) bool { return n == 1 && failsFirst(id) }
	s := c.startServer(hookEnv...)
	workers := []*worker{c.startWorker(hookEnv...), c.startWorker(hookEnv...)}

	const jobs = 1000
	start := time.Now()
	ids := make([]string, jobs)
	var wg sync.WaitGroup
	errs := make(chan error, jobs)
	for i := range ids {
		wg.Go(func() {
			id, err := s.trySubmit(jobSpec{Model: "echo", Version: "v1", Data: json.RawMessage(strconv.Itoa(i)), CallbackURL: rv.url})
			ids[i] = id
			if err != nil {
				errs <- err
			}
		})
		if i%50 == 49 {
			wg.Wait()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	testkit.Eventually(t, 2*time.Minute, func() bool { return rv.count() == jobs }, "every callback delivered")
	took := time.Since(start)

	rv.mu.Lock()
	badSigs, wrong := rv.badSigs, rv.wrong
	var retried int
	for _, id := range ids {
		want := 1
		if failsFirst(id) {
			want, retried = 2, retried+1
		}
		if got := rv.attempts[id]; got < want {
			t.Errorf("job %s: %d requests, want %d", id, got, want)
		}
		if _, ok := rv.delivered[id]; !ok {
			t.Errorf("job %s: not delivered", id)
		}
	}
	rv.mu.Unlock()
	if badSigs != 0 || len(wrong) != 0 {
		t.Fatalf("%d requests with a wrong signature; %d wrong requests, the first: %v", badSigs, len(wrong), wrong[:min(len(wrong), 3)])
	}
	t.Logf("%d jobs submitted and delivered in %s, %d of them on a second attempt after a 503", jobs, took.Round(10*time.Millisecond), retried)

	// The record says delivered, with the attempts it took, once the dispatcher has
	// written it (just after the receiver answered).
	for _, id := range ids {
		testkit.Eventually(t, 10*time.Second, func() bool {
			return s.callback(t, id).Callback.State == "delivered"
		}, "job %s's callback recorded delivered", id)
		want := 1
		if failsFirst(id) {
			want = 2
		}
		if cb := s.callback(t, id).Callback; cb.Attempts != want || cb.URL != rv.url {
			t.Errorf("job %s: callback %+v, want %d attempts to %s", id, cb, want, rv.url)
		}
	}
	var delivered, refused float64
	for _, w := range workers {
		delivered += metric(t, w.Proc, `inferd_webhook_deliveries_total{state="delivered"}`)
		refused += metric(t, w.Proc, `inferd_webhook_attempts_total{outcome="refused"}`)
	}
	if delivered != jobs || int(refused) != retried {
		t.Errorf("metrics: %v delivered and %v refused attempts, want %d and %d", delivered, refused, jobs, retried)
	}
}

// TestWebhookAfterWorkerKill: the worker posting a callback is killed with SIGKILL
// while the receiver holds the request; once the callback's lease ends another worker
// posts it again, with the same webhook-id and a valid signature.
func TestWebhookAfterWorkerKill(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	rv := startReceiver(t)
	arrived := make(chan string, 1)
	var held atomic.Bool
	rv.hold = func(id string, r *http.Request) {
		if held.CompareAndSwap(false, true) { // the first request: held until its worker dies
			arrived <- id
			<-r.Context().Done()
		}
	}
	s := c.startServer(hookEnv...)
	// A timeout that outlasts the kill, and a short lease after it (timeout + 5 s).
	victim := c.startWorker(append(hookEnv, "WEBHOOK_TIMEOUT=3s")...)
	id := s.submit(t, jobSpec{Model: "echo", Version: "v1", Data: json.RawMessage(`"kill"`), CallbackURL: rv.url})
	select {
	case got := <-arrived:
		if got != id {
			t.Fatalf("the receiver got %s, want %s", got, id)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no callback arrived within 30 s")
	}
	victim.Signal(syscall.SIGKILL)
	killed := time.Now()
	c.startWorker(append(hookEnv, "WEBHOOK_TIMEOUT=3s")...)
	testkit.Eventually(t, time.Minute, func() bool { return rv.count() == 1 }, "the callback delivered after the kill")
	t.Logf("delivered %s after the kill", time.Since(killed).Round(100*time.Millisecond))

	rv.mu.Lock()
	badSigs, wrong, attempts := rv.badSigs, rv.wrong, rv.attempts[id]
	_, delivered := rv.delivered[id]
	rv.mu.Unlock()
	if badSigs != 0 || len(wrong) != 0 {
		t.Fatalf("%d wrong signatures; wrong requests: %v", badSigs, wrong)
	}
	if !delivered || attempts != 2 {
		t.Fatalf("the receiver got %d requests with webhook-id %s (delivered %v), want 2: the killed one and its repeat", attempts, id, delivered)
	}
	// The killed worker never recorded its attempt: the record counts the one that
	// was.
	testkit.Eventually(t, 10*time.Second, func() bool {
		cb := s.callback(t, id).Callback
		return cb.State == "delivered" && cb.Attempts == 1
	}, "the callback recorded delivered")
}

// TestWebhookForbiddenHost: a server that does not list loopback refuses a callback to
// it at submission, whatever the workers allow. Under *, a name that resolves to
// loopback (localhost) is accepted, and the worker fails its delivery at the first
// attempt, unretried, the record saying why.
func TestWebhookForbiddenHost(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	rv := startReceiver(t)
	s := c.startServer("WEBHOOK_ALLOWED_HOSTS=hooks.example.com", "WEBHOOK_SECRET="+hookSecret)
	resp := s.api.Post("/predict/async", devKey, jobSpec{Model: "echo", Version: "v1", Data: json.RawMessage(`1`), CallbackURL: rv.url})
	if resp.Status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400: %s", resp.Status, resp.Body)
	}
	if p := resp.Problem(t); p.Code != "callback_not_allowed" || !strings.Contains(p.Detail, "this machine") {
		t.Errorf("problem %s %q, want callback_not_allowed naming this machine", p.Code, p.Detail)
	}

	anyHost := []string{"WEBHOOK_ALLOWED_HOSTS=*", "WEBHOOK_SECRET=" + hookSecret}
	s = c.startServer(anyHost...)
	w := c.startWorker(anyHost...)
	id := s.submit(t, jobSpec{Model: "echo", Version: "v1", Data: json.RawMessage(`1`), CallbackURL: strings.Replace(rv.url, "127.0.0.1", "localhost", 1)})
	testkit.Eventually(t, time.Minute, func() bool { return s.callback(t, id).Callback.State != "pending" }, "the callback settled")
	if cb := s.callback(t, id).Callback; cb.State != "failed" || cb.Attempts != 1 || !strings.Contains(cb.LastError, "not retried") || !strings.Contains(cb.LastError, "this machine") {
		t.Errorf("callback %+v, want failed at its one attempt, saying localhost's address is this machine's", cb)
	}
	if n := rv.count(); n != 0 {
		t.Errorf("the receiver got %d callbacks", n)
	}
	if n := metric(t, w.Proc, `inferd_webhook_attempts_total{outcome="forbidden"}`); n != 1 {
		t.Errorf("%v attempts counted forbidden, want 1", n)
	}
}

// TestWebhookCancelled: a job the API server cancels, whose final record no worker
// writes, is called back all the same, by a worker, with the cancelled record.
func TestWebhookCancelled(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.addSlowModel("slow", "v1", time.Minute)
	rv := startReceiver(t)
	s := c.startServer(hookEnv...)
	s.requireModel(t, "slow", "v1")
	c.startWorker(hookEnv...)
	id := s.submit(t, jobSpec{Model: "slow", Version: "v1", Data: json.RawMessage(`1`), CallbackURL: rv.url})
	s.waitStatus(t, id, "running", 30*time.Second)
	if resp := s.api.Do(s.api.NewRequest(http.MethodDelete, "/predict/async/"+id, devKey, nil)); resp.Status != http.StatusOK {
		t.Fatalf("cancel: status %d: %s", resp.Status, resp.Body)
	}
	testkit.Eventually(t, 30*time.Second, func() bool { return rv.count() == 1 }, "the cancelled job called back")
	rv.mu.Lock()
	body, wrong := rv.delivered[id], rv.wrong
	rv.mu.Unlock()
	var rec jobRecord
	if err := json.Unmarshal(body, &rec); err != nil || rec.Status != "cancelled" || len(wrong) != 0 {
		t.Fatalf("the receiver got %s (wrong requests: %v), want the cancelled record", body, wrong)
	}
}

// TestWebhooksOnRedisCluster: on a Redis Cluster with four shards, where each shard's
// queue of callbacks is in its jobs' slot (one script queues a callback as it finishes
// the job), the callbacks of jobs of every shard are all delivered.
func TestWebhooksOnRedisCluster(t *testing.T) {
	t.Parallel()
	c, _, env := newRedisCluster(t, 0)
	env = append(env, hookEnv...)
	rv := startReceiver(t)
	s := c.startServer(env...)
	c.startWorker(env...)
	const jobs = 200
	ids := make([]string, jobs)
	for i := range ids {
		ids[i] = s.submit(t, jobSpec{Model: "echo", Version: "v1", Data: json.RawMessage(strconv.Itoa(i)), CallbackURL: rv.url})
	}
	testkit.Eventually(t, time.Minute, func() bool { return rv.count() == jobs }, "every callback delivered")
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if rv.badSigs != 0 || len(rv.wrong) != 0 {
		t.Fatalf("%d wrong signatures; wrong requests: %v", rv.badSigs, rv.wrong[:min(len(rv.wrong), 3)])
	}
	for _, id := range ids {
		if _, ok := rv.delivered[id]; !ok {
			t.Errorf("job %s: not delivered", id)
		}
	}
}

// TestWebhookRedirectAndSlowReceiver: with the built worker, a receiver that redirects
// (to a host it is allowed to reach) has the attempt failed and its target never
// asked, and one that does not answer within WEBHOOK_TIMEOUT has it cut; the record
// says why, and the metrics count each.
func TestWebhookRedirectAndSlowReceiver(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	target := startReceiver(t)
	rv := startReceiver(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	rv.hold = func(_ string, r *http.Request) {
		if r.URL.Query().Get("slow") != "" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}
	redirect := startRedirector(t, target.url)
	s := c.startServer(hookEnv...)
	w := c.startWorker(append(hookEnv, "WEBHOOK_TIMEOUT=1s")...)
	tests := []struct {
		name, url, lastError, outcome string
	}{
		{"redirect", redirect, "redirect, which is not followed", "refused"},
		{"slow", rv.url + "?slow=1", "did not answer in time", "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := s.submit(t, jobSpec{Model: "echo", Version: "v1", Data: json.RawMessage(`1`), CallbackURL: tt.url})
			testkit.Eventually(t, 30*time.Second, func() bool {
				cb := s.callback(t, id).Callback
				return cb.Attempts > 0 && cb.State == "pending" && strings.Contains(cb.LastError, tt.lastError)
			}, "an attempt recorded")
			if n := metric(t, w.Proc, `inferd_webhook_attempts_total{outcome="`+tt.outcome+`"}`); n < 1 {
				t.Errorf("no attempt counted %s", tt.outcome)
			}
		})
	}
	if n := target.count(); n != 0 {
		t.Errorf("the redirect's target got %d callbacks", n)
	}
}

// TestWebhookFairness: in queue mode, at the default settings (WEBHOOK_CONCURRENCY
// 16, WEBHOOK_TIMEOUT 10 s), key A's 120 finished jobs call back a receiver that never
// answers, taking every slot of the worker; then key B submits 5 jobs whose receiver
// answers at once. B's callbacks are each delivered within 5 s of their submission: a
// key's share of the slots is its own whatever another key's receivers do.
func TestWebhookFairness(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	hang, fast := startReceiver(t), startReceiver(t)
	s := c.startServer(hookEnv...)
	c.startWorker(hookEnv...)
	release := make(chan struct{})
	// After the worker's start: its stop waits for the attempts these hold.
	t.Cleanup(func() { close(release) })
	var holding atomic.Int64
	hang.hold = func(_ string, r *http.Request) {
		holding.Add(1)
		defer holding.Add(-1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	var mu sync.Mutex
	arrived := map[string]time.Time{}
	fast.hold = func(id string, _ *http.Request) {
		mu.Lock()
		if _, ok := arrived[id]; !ok {
			arrived[id] = time.Now()
		}
		mu.Unlock()
	}

	var aIDs []string
	for i := range 120 {
		aIDs = append(aIDs, s.submit(t, jobSpec{Model: "echo", Version: "v1", Data: json.RawMessage(strconv.Itoa(i)), CallbackURL: hang.url}))
	}
	for _, id := range aIDs {
		s.waitStatus(t, id, "succeeded", time.Minute)
	}
	testkit.Eventually(t, time.Minute, func() bool { return holding.Load() == 16 }, "A's callbacks holding every slot")

	type sent struct {
		id string
		at time.Time
	}
	var b []sent
	for i := range 5 {
		at := time.Now()
		resp := s.api.Post("/predict/async", adminKey, jobSpec{Model: "echo", Version: "v1", Data: json.RawMessage(strconv.Itoa(i)), CallbackURL: fast.url})
		var sub struct {
			JobID string `json:"job_id"`
		}
		resp.JSON(t, &sub)
		if resp.Status != http.StatusOK || sub.JobID == "" {
			t.Fatalf("submit as B: status %d: %s", resp.Status, resp.Body)
		}
		b = append(b, sent{sub.JobID, at})
	}
	testkit.Eventually(t, time.Minute, func() bool { return fast.count() == 5 }, "B's 5 callbacks delivered")
	var took []time.Duration
	mu.Lock()
	for _, j := range b {
		at, ok := arrived[j.id]
		if !ok {
			t.Fatalf("B's job %s was not called back", j.id)
		}
		took = append(took, at.Sub(j.at))
	}
	mu.Unlock()
	var out []string
	for _, d := range took {
		out = append(out, d.Round(time.Millisecond).String())
	}
	t.Logf("queue mode: B's 5 callbacks delivered %s after their submissions, A's receiver holding %d", strings.Join(out, ", "), holding.Load())
	if worst := slices.Max(took); worst > 5*time.Second {
		t.Errorf("B's callbacks took up to %s, want at most 5 s", worst.Round(time.Millisecond))
	}
	fast.mu.Lock()
	defer fast.mu.Unlock()
	if fast.badSigs != 0 || len(fast.wrong) != 0 {
		t.Errorf("%d wrong signatures; wrong requests: %v", fast.badSigs, fast.wrong)
	}
}

// startRedirector starts a receiver that answers every request with a 307 to to.
func startRedirector(tb testing.TB, to string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, to, http.StatusTemporaryRedirect)
	})}
	go func() { _ = srv.Serve(ln) }()
	tb.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/hook"
}
