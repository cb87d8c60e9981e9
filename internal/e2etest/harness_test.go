package e2etest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/inferd/inferd/client"
	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/proctest"
	"github.com/inferd/inferd/internal/testkit"
)

// slowModel is an echo model with a delay that the tests' own server adds to the
// example models, so a job is certainly unfinished when a test cancels it. A server
// named by INFERD_E2E_URL may have it too; without it those checks race the job.
const (
	slowModel = "slow"
	slowDelay = 2 * time.Second
)

// target is the server under test and SDK clients of it, one per kind of key.
type target struct {
	url string
	own bool // started by this test, with the settings below
	// dev holds predict and read_models, admin also admin; anon sends no key and
	// wrong an unknown one.
	dev, admin, anon, wrong *client.Client
	hasSlow                 bool
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// devKey and adminKey are the keys of the server under test.
func devKey() string   { return env("INFERD_E2E_KEY", "dev-key") }
func adminKey() string { return env("INFERD_E2E_ADMIN_KEY", "admin-key") }

// start returns the server named by INFERD_E2E_URL, or else runs the built inferd
// binary on the example models with in-process jobs, extra settings last.
func start(t testing.TB, extra ...string) *target {
	t.Helper()
	tg := &target{url: os.Getenv("INFERD_E2E_URL")}
	if tg.url == "" {
		onnxtest.Runtime(t) // the example models need it: fail under CI, skip elsewhere
		tg.own = true
		port := proctest.FreePort(t)
		settings := []string{
			"PORT=" + strconv.Itoa(port),
			"MODELS_DIR=" + models(t),
			"RATE_LIMIT_RPS=0", // tests call faster than a client would
			// The tests of refused keys all come from one address.
			"AUTH_FAILURES_PER_MINUTE=0",
		}
		if lib := os.Getenv("ONNXRUNTIME_LIB"); lib != "" {
			settings = append(settings, "ONNXRUNTIME_LIB="+lib)
		}
		p := proctest.Start(t, proctest.Build(t, "inferd"), port, "/ready", append(settings, extra...)...)
		tg.url = p.URL
	}
	tg.dev = tg.client(t, client.WithAPIKey(devKey()))
	tg.admin = tg.client(t, client.WithAPIKey(adminKey()))
	tg.anon = tg.client(t)
	tg.wrong = tg.client(t, client.WithAPIKey("not-a-key"))
	if !tg.own {
		waitReady(t, tg.anon)
	}
	list, err := tg.dev.Models(ctx(t))
	if err != nil {
		t.Fatalf("listing the models: %v", err)
	}
	tg.hasSlow = slices.Contains(list.Models, client.ModelEntry{Name: slowModel, Version: "v1"})
	return tg
}

// client returns an SDK client of the target whose every response is validated
// against openapi.yaml.
func (tg *target) client(t testing.TB, opts ...client.Option) *client.Client {
	t.Helper()
	h := &http.Client{Transport: apitest.Transport(t, nil)}
	c, err := client.New(tg.url, append([]client.Option{client.WithHTTPClient(h), client.WithUserAgent("inferd-e2etest")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// models copies the example repository and adds slowModel.
func models(t testing.TB) string {
	t.Helper()
	dst := proctest.ExampleModels(t)
	proctest.AddSlowModel(t, dst, slowModel, "v1", slowDelay)
	return dst
}

// waitReady waits until a server started elsewhere has loaded its pipelines.
func waitReady(t testing.TB, c *client.Client) {
	t.Helper()
	var err error
	testkit.Eventually(t, 30*time.Second, func() bool {
		_, err = c.Ready(ctx(t))
		return err == nil
	}, "the server under test ready: %s", func() string { return fmt.Sprint(err) })
}

// ctx bounds a call so a hung server fails the test instead of the whole run.
func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}
