package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/readmetest"
)

// guideSections are the sections of docs/serving.md that TestServingGuide executes,
// each with the Debian package its Python needs.
var guideSections = []struct{ heading, module, pkg string }{
	{"## From XGBoost", "xgboost", "python3-xgboost"},
	{"## From PyTorch", "torch", "python3-torch"},
}

// guideRun is the line each Python block of the guide prints: the library's own
// answers for a few rows, which the served model must give too.
type guideRun struct {
	Model, Output string
	Rows          [][]float32
	Expected      [][]float64
}

// TestServingGuide does what docs/serving.md tells a user to do: it runs the Python
// blocks of its executed sections in an empty directory, writes the model.yaml blocks
// where their first line says, serves that directory and runs the curl calls; then it
// asks each model for the rows the library predicted and compares the numbers.
func TestServingGuide(t *testing.T) {
	work := t.TempDir()
	var runs []guideRun
	var calls []example
	for _, sec := range guideSections {
		text := readmetest.FileSection(t, "docs/serving.md", sec.heading)
		python, yamls := guideBlocks(text)
		if len(python) != 1 || len(yamls) != 1 {
			t.Fatalf("%s: %d Python and %d model.yaml blocks, want one of each", sec.heading, len(python), len(yamls))
		}
		needPython(t, sec.module, sec.pkg)
		cmd := exec.Command("/usr/bin/python3", "-c", python[0])
		cmd.Dir = work
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: the Python block failed: %v\n%s", sec.heading, err, stderr.String())
		}
		var run guideRun
		if err := json.Unmarshal(lastLine(out), &run); err != nil {
			t.Fatalf("%s: the Python block printed %q: %v", sec.heading, out, err)
		}
		runs = append(runs, run)
		path, body, _ := strings.Cut(yamls[0], "\n")
		path = strings.TrimPrefix(path, "# ")
		if err := os.WriteFile(filepath.Join(work, filepath.FromSlash(path)), []byte(body), 0o644); err != nil {
			t.Fatalf("%s: %v", sec.heading, err)
		}
		calls = append(calls, examplesIn(t, text, "docs/serving.md "+sec.heading)...)
	}

	s := startApp(t, map[string]string{"MODELS_DIR": filepath.Join(work, "models"), "RATE_LIMIT_RPS": "0"}, true)
	for _, ex := range calls {
		t.Run(fmt.Sprintf("line %d %s %s", ex.line, ex.method, ex.path), func(t *testing.T) {
			resp := s.c.Do(s.c.NewRequest(ex.method, ex.path, ex.key, ex.body))
			if resp.Status != ex.status {
				t.Fatalf("status %d, the guide says %d: %s", resp.Status, ex.status, resp.Body)
			}
			if err := readmetest.JSON(ex.want, resp.Body); err != nil {
				t.Error(err)
			}
		})
	}
	for _, run := range runs {
		t.Run(run.Model+" equals the library", func(t *testing.T) {
			var flat []float32
			for _, r := range run.Rows {
				flat = append(flat, r...)
			}
			req := map[string]any{"inputs": []any{map[string]any{
				"name": "input", "datatype": "FP32", "shape": []int{len(run.Rows), len(run.Rows[0])}, "data": flat}}}
			var got struct {
				Outputs []struct {
					Name string
					Data []float64
				}
			}
			s.c.Post("/v2/models/"+run.Model+"/infer", "dev-key", req).JSON(t, &got)
			if len(got.Outputs) != 1 || got.Outputs[0].Name != run.Output {
				t.Fatalf("outputs %+v, want one named %s", got.Outputs, run.Output)
			}
			i := 0
			for r, row := range run.Expected {
				for c, want := range row {
					if i >= len(got.Outputs[0].Data) {
						t.Fatalf("%d numbers, want more", len(got.Outputs[0].Data))
					}
					if d := math.Abs(got.Outputs[0].Data[i] - want); d > 1e-5 {
						t.Errorf("row %d class %d: %v, the library says %v", r, c, got.Outputs[0].Data[i], want)
					}
					i++
				}
			}
		})
	}
}

// guideBlocks returns a section's fenced Python blocks and its model.yaml blocks, the
// ones whose first line names the file ("# models/NAME/VERSION/model.yaml").
func guideBlocks(text string) (python, yamls []string) {
	for rest := text; ; {
		_, after, ok := strings.Cut(rest, "\n```")
		if !ok {
			return python, yamls
		}
		lang, after, _ := strings.Cut(after, "\n")
		body, next, _ := strings.Cut(after, "\n```")
		rest = next
		switch {
		case lang == "python":
			python = append(python, body)
		case lang == "yaml" && strings.HasPrefix(body, "# models/"):
			yamls = append(yamls, body+"\n")
		}
	}
}

// needPython fails the test under CI, and skips it elsewhere, when Debian's python3
// cannot import module.
func needPython(t *testing.T, module, pkg string) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import "+module).Run(); err != nil {
		msg := fmt.Sprintf("/usr/bin/python3 cannot import %s (%v): apt-get install %s", module, err, pkg)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

func lastLine(b []byte) []byte {
	b = bytes.TrimRight(b, "\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}
