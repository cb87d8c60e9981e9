package app_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/apitest"
	"github.com/inferd/inferd/internal/readmetest"
	"github.com/inferd/inferd/internal/testkit"
)

// example is one curl call of README.md or a page of docs/, and the answer it shows.
type example struct {
	line         int
	method, path string
	key, body    string
	// headers are the -H headers other than the key and the content type.
	headers map[string]string
	status  int
	want    string
}

// readmeSections are the sections whose curl calls TestReadmeExamples runs, in order:
// the README's, then those of the pages it links to.
var readmeSections = []struct{ file, heading string }{
	{"README.md", "## curl"},
	{"README.md", "## Triton and KServe clients"},
	{"docs/api.md", "## Example models"},
	{"docs/api.md", "## REST with curl"},
	{"docs/api.md", "## Idempotent submissions"},
	{"docs/api.md", "## Priorities, deadlines and timeouts"},
	{"docs/api.md", "## Batches that keep their good items"},
	{"docs/oip.md", "## Calls"},
}

// readmeExamples reads the calls of a section: a curl command (continued with
// \) followed by a "# " line with the answer, optionally prefixed by its status when
// that is not 200.
func readmeExamples(t *testing.T, file, heading string) []example {
	t.Helper()
	return examplesIn(t, readmetest.FileSection(t, file, heading), file+" "+strconv.Quote(heading))
}

// examplesIn reads the calls of a section's text, as readmeExamples does; where names
// the section in failures.
func examplesIn(t *testing.T, section, where string) []example {
	t.Helper()
	lines := strings.Split(section, "\n")
	var out []example
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "curl ") {
			continue
		}
		cmd := lines[i]
		first := i
		for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
			i++
			cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(lines[i])
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "# ") {
			t.Fatalf("%s line %d: a curl example without its answer", where, first)
		}
		ex := parseCurl(t, cmd)
		ex.line = first
		ex.status, ex.want = http.StatusOK, strings.TrimPrefix(lines[i+1], "# ")
		if code, rest, ok := strings.Cut(ex.want, " "); ok {
			if n, err := strconv.Atoi(code); err == nil {
				ex.status, ex.want = n, rest
			}
		}
		out = append(out, ex)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no examples found", where)
	}
	return out
}

// parseCurl understands the shapes the README uses: -s, -H 'K: V', -d '...',
// -X METHOD and a localhost:8080 URL.
func parseCurl(t *testing.T, cmd string) example {
	t.Helper()
	var args []string
	for cmd = strings.TrimSpace(cmd); cmd != ""; cmd = strings.TrimSpace(cmd) {
		if cmd[0] == '\'' {
			end := strings.IndexByte(cmd[1:], '\'')
			if end < 0 {
				t.Fatalf("unbalanced quote in %q", cmd)
			}
			args = append(args, cmd[1:end+1])
			cmd = cmd[end+2:]
			continue
		}
		word, rest, _ := strings.Cut(cmd, " ")
		args, cmd = append(args, word), rest
	}
	ex := example{method: http.MethodGet}
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-s":
		case a == "-H":
			i++
			switch k, v, _ := strings.Cut(args[i], ": "); k {
			case "X-API-Key":
				ex.key = v
			case "Content-Type": // NewRequest sets it
			default:
				if ex.headers == nil {
					ex.headers = map[string]string{}
				}
				ex.headers[k] = v
			}
		case a == "-d":
			i++
			ex.body, ex.method = args[i], http.MethodPost
		case a == "-X":
			i++
			ex.method = args[i]
		case strings.HasPrefix(a, "localhost:8080"):
			ex.path = strings.TrimPrefix(a, "localhost:8080")
		default:
			t.Fatalf("unexpected curl argument %q", a)
		}
	}
	return ex
}

// TestReadmeExamples runs the curl calls of the README and docs/, in order, against a
// server of the example repository and checks each answer holds what the page shows.
func TestReadmeExamples(t *testing.T) {
	s := startApp(t, map[string]string{"MODELS_DIR": repoModels(t), "RATE_LIMIT_RPS": "0"}, true)
	var jobID string // the README's <job_id>: the id the last submission returned
	for _, sec := range readmeSections {
		for _, ex := range readmeExamples(t, sec.file, sec.heading) {
			ex.path = strings.ReplaceAll(ex.path, "<job_id>", jobID)
			ex.want = strings.ReplaceAll(ex.want, "<job_id>", jobID)
			t.Run(fmt.Sprintf("%s line %d %s %s", sec.file, ex.line, ex.method, ex.path), func(t *testing.T) {
				var body any
				if ex.body != "" {
					body = ex.body
				}
				req := s.c.NewRequest(ex.method, ex.path, ex.key, body)
				for k, v := range ex.headers {
					req.Header.Set(k, v)
				}
				resp := s.c.Do(req)
				if strings.HasPrefix(ex.path, "/predict/async") && ex.method == http.MethodPost && resp.Status == http.StatusOK {
					var sub struct {
						JobID string `json:"job_id"`
					}
					resp.JSON(t, &sub)
					jobID = sub.JobID
					waitFinished(t, s.c, jobID)
				}
				if resp.Status != ex.status {
					t.Fatalf("status %d, README says %d: %s", resp.Status, ex.status, resp.Body)
				}
				if text, ok := strings.CutPrefix(ex.want, "text: "); ok {
					if !strings.Contains(string(resp.Body), text) {
						t.Errorf("the answer lacks %q:\n%s", text, resp.Body)
					}
					return
				}
				if err := readmetest.JSON(ex.want, resp.Body); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// waitFinished waits until the job is no longer queued or running, so the README's
// next call sees it finished.
func waitFinished(t *testing.T, c *apitest.Client, id string) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, func() bool {
		var rec struct {
			Status string `json:"status"`
		}
		c.Get("/jobs/"+id, "dev-key").JSON(t, &rec)
		return rec.Status == "succeeded" || rec.Status == "failed" || rec.Status == "cancelled"
	}, "job %s finished", id)
}
