package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/storetest"
	"github.com/inferd/inferd/internal/testkit"
)

// TestPolledRoutingWaits: a routing.yaml uploaded with a version it names waits for
// that version. While the version is refused (a digest mismatch) or not yet whole (its
// model.yaml missing), the previous rule keeps routing the requests that name no
// version, the model's other versions serve on, and the index says why the version is
// not served; once the version is whole and loaded, the new rule applies. Over a polled
// directory, through the same copy a bucket goes through.
func TestPolledRoutingWaits(t *testing.T) {
	repo := storetest.NewDir(t)
	uploadVersion(t, repo, "e", "v1", echoFiles("first"), nil)
	uploadVersion(t, repo, "e", "v2", echoFiles("second"), nil)
	repo.Put(t, "e/routing.yaml", []byte("strategy: static\nversion: v1\n"))
	s := startApp(t, map[string]string{"MODELS_DIR": repo.URL(), "REPOSITORY_POLL_INTERVAL": syncedPoll,
		"MODEL_CACHE_DIR": t.TempDir(), "RATE_LIMIT_RPS": "0"}, true)

	// routed is the version a request naming none is answered by, or its failure.
	routed := func() string {
		resp := s.c.Post("/predict", "dev-key", `{"model":"e","data":1}`)
		if resp.Status != http.StatusOK {
			return fmt.Sprintf("status %d: %s", resp.Status, resp.Body)
		}
		var out struct{ Version string }
		if err := json.Unmarshal(resp.Body, &out); err != nil {
			t.Fatalf("%s: %v", resp.Body, err)
		}
		return out.Version
	}
	routesTo := func(t *testing.T, want string) {
		t.Helper()
		testkit.Eventually(t, 60*time.Second, func() (bool, string) {
			got := routed()
			return got == want, got
		}, "requests without a version routed to %s", want)
	}
	// holds checks, over five polls, that the rule in force stays.
	holds := func(t *testing.T, want string, ready ...string) {
		t.Helper()
		polls(t, s.c, 5, func() {
			if got := routed(); got != want {
				t.Fatalf("a request without a version: %s, want %s (the rule in force)", got, want)
			}
		})
		idx := repositoryIndex(t, s)
		for _, v := range ready {
			if e := idx["e "+v]; e.State != "READY" {
				t.Errorf("e %s: %+v, want READY: a rule waiting must not fail the model", v, e)
			}
		}
	}
	routesTo(t, "v1")

	t.Run("refused", func(t *testing.T) {
		uploadVersion(t, repo, "e", "v3", echoFiles("third"), map[string]string{"model.yaml": strings.Repeat("f", 64)})
		repo.Put(t, "e/routing.yaml", []byte("strategy: static\nversion: v3\n"))
		testkit.Eventually(t, 60*time.Second, func() (bool, string) {
			e := repositoryIndex(t, s)["e v3"]
			return e.State == "UNAVAILABLE" && strings.Contains(e.Reason, "digest mismatch"), fmt.Sprintf("%+v", e)
		}, "e v3 refused")
		holds(t, "v1", "v1", "v2")

		// Uploaded again whole: v3 loads, and the rule that waited for it applies.
		uploadVersion(t, repo, "e", "v3", echoFiles("third"), nil)
		routesTo(t, "v3")
	})

	t.Run("not yet whole", func(t *testing.T) {
		files := echoFiles("fourth")
		repo.Put(t, "e/v4/SHA256SUMS", sums(files, nil))
		repo.Put(t, "e/routing.yaml", []byte("strategy: weighted\nweights:\n  v3: 50\n  v4: 50\n"))
		holds(t, "v3", "v1", "v2", "v3")
		if e, listed := repositoryIndex(t, s)["e v4"]; listed && e.State == "READY" {
			t.Errorf("e v4: %+v, before its model.yaml", e)
		}

		repo.Put(t, "e/v4/model.yaml", files["model.yaml"])
		testkit.Eventually(t, 60*time.Second, func() (bool, string) {
			seen := map[string]int{}
			for range 40 {
				seen[routed()]++
			}
			return len(seen) == 2 && seen["v3"] > 0 && seen["v4"] > 0, fmt.Sprint(seen)
		}, "requests without a version split over v3 and v4")
	})
}
