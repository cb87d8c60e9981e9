package cli_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/onnx"
	"github.com/inferd/inferd/internal/backend/xgboost"
	"github.com/inferd/inferd/internal/readmetest"
	"github.com/inferd/inferd/internal/repository"
)

// initOutput is what model init prints on stdout.
type initOutput struct {
	ModelYAML string            `json:"model_yaml"`
	Backend   string            `json:"backend"`
	Artifact  string            `json:"artifact"`
	Inputs    []json.RawMessage `json:"inputs"`
	Outputs   []json.RawMessage `json:"outputs"`
	Features  []string          `json:"features"`
}

// TestModelInitExamples runs model init on every example model's artifact alone in a
// version directory. What it writes passes the repository's own parser with the
// server's backends and serves, as written, on a real server: an ONNX file's
// backend and artifact alone (/predict takes data shaped as the model's one input),
// an XGBoost file's to_tensor over its feature names. The tensors init read from the
// file are those the server reports for it.
func TestModelInitExamples(t *testing.T) {
	// The first wine of internal/repository/testdata/examples.json, by name, and
	// XGBoost 1.7.4's own predict_proba of it (its "raw" answer), in class order.
	const wine = `{"alcohol":13.32,"malic_acid":3.24,"ash":2.38,"alcalinity_of_ash":21.5,"magnesium":92,"total_phenols":1.93,` +
		`"flavanoids":0.76,"nonflavanoid_phenols":0.45,"proanthocyanins":1.25,"color_intensity":8.42,"hue":0.55,"od280_od315":1.62,"proline":650}`
	examples := []struct {
		name, version, artifact string
		input                   string
		result                  string    // readmetest shorthand of predict's stdout
		probabilities           []float64 // when set, result.probabilities within 1e-6
	}{
		// The logits under the softmax of models/iris/v1 (setosa 0.9816).
		{"iris", "v1", "model.onnx", "[5.1,3.5,1.4,0.2]", `{"model":"iris","result":{"logits":[7.3355775,3.3595934,-10.695171]},"version":"v1"}`, nil},
		// v2 and diabetes take standardised values: raw ones give other answers than
		// the examples', which standardize first.
		{"iris", "v2", "model.onnx", "[5.1,3.5,1.4,0.2]", `{"model":"iris","result":{"label":2,"probabilities":[0.0065128603,0.08242557,0.9110615]},"version":"v2"}`, nil},
		{"diabetes", "v1", "model.onnx", "[59,2,32.1,101,157,93.2,38,4,4.8598,87]", `{"model":"diabetes","result":{"prediction":[...]},"version":"v1"}`, nil},
		{"digits", "v1", "model.onnx", "[" + strings.TrimSuffix(strings.Repeat("0,", 64), ",") + "]", `{"model":"digits","result":{"logits":[0.004834514, ...]},"version":"v1"}`, nil},
		// The first image of examples.json, one channel of 8 rows of 8: a 0.
		{"digits-cnn", "v1", "model.onnx", "[[[0,0,2,14,13,3,0,0],[0,0,13,13,9,11,0,0],[0,0,16,7,0,12,0,0],[0,3,16,5,0,10,5,0]," +
			"[0,5,16,1,0,8,5,0],[0,3,16,1,0,10,5,0],[0,0,16,8,5,14,3,0],[0,0,4,16,16,9,1,0]]]",
			`{"model":"digits-cnn","result":{"label":0,"probabilities":[0.99996686, ...]},"version":"v1"}`, nil},
		{"wine", "v1", "model.json", wine, `{"model":"wine","result":{"probabilities":[...]},"version":"v1"}`,
			[]float64{0.002741983626037836, 0.0027281215880066156, 0.9945299029350281}},
	}
	root := repoRoot(t)
	repo := t.TempDir()
	parser := backend.Catalogue{onnx.Backend{}, xgboost.Backend{}} // Check needs no runtime
	outs := map[string]initOutput{}
	for _, ex := range examples {
		t.Run("init "+ex.name+"/"+ex.version, func(t *testing.T) {
			dir := filepath.Join(repo, ex.name, ex.version)
			copyFile(t, filepath.Join(root, "models", ex.name, ex.version, ex.artifact), filepath.Join(dir, ex.artifact))
			r := inferctl(t, nil, "", "model", "init", dir)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var out initOutput
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("stdout %q: %v", r.stdout, err)
			}
			file := filepath.Join(dir, "model.yaml")
			wantBackend := map[string]string{"model.onnx": "onnx", "model.json": "xgboost"}[ex.artifact]
			if out.ModelYAML != file || out.Backend != wantBackend || out.Artifact != ex.artifact {
				t.Errorf("init printed %s", r.stdout)
			}
			check(t, "stderr", "inferctl: wrote "+file+"; the server's parser of model.yaml accepts it.\n"+
				"Next:\n...\n...model \""+ex.name+"\", version \""+ex.version+"\".\n...\n     inferctl repository load "+ex.name+"\n"+
				strings.Repeat("...\n", 8), r.stderr)
			data := readFile(t, file)
			if ex.name == "iris" && ex.version == "v1" {
				if doc := docsYAML(t); doc != string(data) {
					t.Errorf("docs/models.md shows\n%s\ninit writes\n%s", doc, data)
				}
			}
			c, err := repository.ParseConfig(file, data, parser)
			if err != nil {
				t.Fatalf("the repository refuses what init wrote: %v\n%s", err, data)
			}
			steps := 0 // an ONNX file's to_tensor is left commented out
			if wantBackend == "xgboost" {
				steps = 1 // the to_tensor of the file's feature names
			}
			if c.Backend != wantBackend || c.Artifact != ex.artifact || len(c.Preprocess) != steps || len(c.Postprocess) != 0 {
				t.Errorf("parsed %+v", c)
			}
			if strings.Contains(string(data), "\n# preprocess:\n") {
				// Served as written; the example, for naming the values, parses too.
				ex := uncomment(t, string(data))
				if _, err := repository.ParseConfig(file, []byte(ex), parser); err != nil {
					t.Errorf("the to_tensor example, uncommented, does not parse: %v\n%s", err, ex)
				}
			}
			outs[ex.name+"/"+ex.version] = out
		})
	}
	if t.Failed() {
		return
	}
	s := start(t, repo)
	env := []string{"INFERD_URL=" + s.URL, "INFERD_API_KEY=dev-key"}
	for _, ex := range examples {
		t.Run("serve "+ex.name+"/"+ex.version, func(t *testing.T) {
			r := inferctl(t, env, "", "predict", ex.name, "--version", ex.version, "--input", ex.input)
			if r.code != 0 {
				t.Fatalf("predict: exit %d: %s", r.code, r.stderr)
			}
			check(t, "stdout", ex.result, r.stdout)
			if ex.probabilities != nil {
				var got struct {
					Result struct{ Probabilities []float64 }
				}
				if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
					t.Fatal(err)
				}
				if len(got.Result.Probabilities) != len(ex.probabilities) {
					t.Fatalf("probabilities %v, want %v", got.Result.Probabilities, ex.probabilities)
				}
				for i, p := range ex.probabilities {
					if math.Abs(got.Result.Probabilities[i]-p) > 1e-6 {
						t.Errorf("probabilities %v, want XGBoost's %v", got.Result.Probabilities, ex.probabilities)
						break
					}
				}
			}
			r = inferctl(t, env, "", "models", "get", ex.name, ex.version)
			var md struct {
				Inputs, Outputs []json.RawMessage
			}
			if err := json.Unmarshal([]byte(r.stdout), &md); err != nil {
				t.Fatalf("models get: %q: %v", r.stdout, err)
			}
			out := outs[ex.name+"/"+ex.version]
			if !sameTensors(t, md.Inputs, out.Inputs) || !sameTensors(t, md.Outputs, out.Outputs) {
				t.Errorf("init read inputs %s, outputs %s; the server: %s, %s", out.Inputs, out.Outputs, md.Inputs, md.Outputs)
			}
		})
	}
}

// TestModelInitXGBoost: an XGBoost file's feature names become a to_tensor step;
// without names the file gets the commented-out example, as an ONNX file. The UBJ
// file of the same booster gets the same model.yaml but for the artifact.
func TestModelInitXGBoost(t *testing.T) {
	tests := []struct {
		file     string
		yaml     string // readmetest shorthand of the model.yaml written
		features []string
	}{
		{"binary.json", "# Written by inferctl model init from model.json (XGBoost, objective binary:logistic, 2 classes).\n" +
			"...\n...\n...\n#   input   input          float32 [-1, 4]\n#   output  probabilities  float32 [-1, 2]\n" +
			"backend: xgboost\nartifact: model.json\n...\npreprocess:\n  - to_tensor:\n      features: [sepal_length, sepal_width, petal_length, petal_width]",
			[]string{"sepal_length", "sepal_width", "petal_length", "petal_width"}},
		{"multiclass.json", "# Written by inferctl model init from model.json (XGBoost, objective multi:softprob, 3 classes).\n" +
			"...\n...\n...\n#   input   input          float32 [-1, 4]\n#   output  probabilities  float32 [-1, 3]\n" +
			"backend: xgboost\nartifact: model.json\n" + strings.Repeat("...\n", 5) + "#       # features: [x0, x1, x2, x3]", nil},
		{"regression.json", "# Written by inferctl model init from model.json (XGBoost, objective reg:squarederror).\n" +
			"...\n...\n...\n#   input   input        float32 [-1, 4]\n#   output  predictions  float32 [-1]\n" +
			"backend: xgboost\nartifact: model.json\n# For /predict to take the 4 values by name, uncomment and name them:\n" +
			"# preprocess:\n#   - to_tensor:\n#       dtype: float32\n#       shape: [4]\n#       # features: [x0, x1, x2, x3]", nil},
	}
	ubj := tests[0]
	ubj.file, ubj.yaml = "binary.ubj", strings.ReplaceAll(ubj.yaml, "model.json", "model.ubj")
	tests = append(tests, ubj)
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "trees", "1")
			artifact := "model" + filepath.Ext(tc.file)
			copyFile(t, filepath.Join(repoRoot(t), "internal", "modelfile", "testdata", tc.file), filepath.Join(dir, artifact))
			r := inferctl(t, nil, "", "model", "init", dir)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var out initOutput
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatal(err)
			}
			if out.Backend != "xgboost" || out.Artifact != artifact || !reflect.DeepEqual(out.Features, tc.features) {
				t.Errorf("init printed %s", r.stdout)
			}
			check(t, "model.yaml", tc.yaml, string(readFile(t, filepath.Join(dir, "model.yaml"))))
			if tc.features != nil && !strings.Contains(r.stderr, `"data":{"sepal_length":0,"sepal_width":0,"petal_length":0,"petal_width":0}`) {
				t.Errorf("the /predict example does not name the features:\n%s", r.stderr)
			}
		})
	}
}

// TestModelInitRefuses: what init cannot make a model.yaml of is refused with what
// to do, and leaves the directory as it was.
func TestModelInitRefuses(t *testing.T) {
	iris := filepath.Join(repoRoot(t), "models", "iris", "v1", "model.onnx")
	ubj := filepath.Join(repoRoot(t), "internal", "modelfile", "testdata", "binary.ubj")
	tests := []struct {
		name   string
		files  map[string]string // name in the version directory -> source file, or "text:..." for contents
		arg    string            // the path given, relative to the version directory
		args   []string          // more arguments
		code   int
		stderr string
	}{
		{name: "not a model file", files: map[string]string{"model.onnx": "text:hello, world\n"}, code: 2,
			stderr: "inferctl: .../model.onnx: not a model file: not an ONNX model (no ModelProto with a graph that has inputs and outputs)\n..."},
		{name: "a JSON file that is not XGBoost's", arg: "model.json", files: map[string]string{"model.json": `text:{"a": 1}`}, code: 2,
			stderr: "inferctl: .../model.json: not a model file: invalid XGBoost model: no learner.gradient_booster: not an XGBoost model file\n..."},
		{name: "model.yaml exists", files: map[string]string{"model.onnx": iris, "model.yaml": "text:backend: onnx\n"}, code: 2,
			stderr: "inferctl: .../model.yaml exists; nothing was written (--force replaces it)\n..."},
		{name: "model.yaml a dangling link", files: map[string]string{"model.onnx": iris, "model.yaml": "link:nowhere"}, code: 2,
			stderr: "inferctl: .../model.yaml exists; nothing was written (--force replaces it)\n..."},
		{name: "unreadable: model.onnx a directory", files: map[string]string{"model.onnx/x": "text:"}, code: 1,
			stderr: "inferctl: read .../model.onnx: is a directory"},
		{name: "no such path", arg: "nope", code: 1, stderr: "inferctl: stat .../nope: no such file or directory"},
		{name: "no model in the directory", files: map[string]string{"notes.txt": "text:x"}, code: 2,
			stderr: "inferctl: ... holds no model file (model.onnx, model.json, model.ubj, or a *.onnx); give the file's path\n..."},
		{name: "two models", files: map[string]string{"model.onnx": iris, "model.json": "text:{}"}, code: 2,
			stderr: "inferctl: ... holds model.onnx and model.json; a version has one model: give the file's path\n..."},
		{name: "UBJ that is not", files: map[string]string{"model.ubj": "text:{i\x03abc"}, code: 2,
			stderr: "inferctl: .../model.ubj: not a model file: invalid XGBoost model: UBJSON: ...\n..."},
		{name: "a UBJ and an ONNX file", files: map[string]string{"model.ubj": ubj, "model.onnx": iris}, code: 2,
			stderr: "inferctl: ... holds model.onnx and model.ubj; a version has one model: give the file's path\n..."},
		{name: "a name the repository refuses as an artifact", arg: ".hidden.onnx", files: map[string]string{".hidden.onnx": iris}, code: 1,
			stderr: "inferctl: the model.yaml for .hidden.onnx would not load, so it was not written: .../model.yaml: artifact: \".hidden.onnx\" must be a file name in the version directory"},
		{name: "no path", arg: "-", args: []string{}, code: 2, stderr: "inferctl: model init takes one path: a version directory or its model file\n..."},
		{name: "mistyped verb", arg: "-", args: []string{"int"}, code: 2, stderr: "inferctl: model \"int\": want init; did you mean \"init\"?\n..."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "m", "1")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, src := range tc.files {
				dst := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					t.Fatal(err)
				}
				switch {
				case strings.HasPrefix(src, "text:"):
					err := os.WriteFile(dst, []byte(strings.TrimPrefix(src, "text:")), 0o644)
					if err != nil {
						t.Fatal(err)
					}
				case strings.HasPrefix(src, "link:"):
					if err := os.Symlink(strings.TrimPrefix(src, "link:"), dst); err != nil {
						t.Fatal(err)
					}
				default:
					copyFile(t, src, dst)
				}
			}
			before := listing(t, dir)
			args := []string{"model", "init", filepath.Join(dir, tc.arg)}
			if tc.args != nil {
				args = append([]string{"model"}, tc.args...)
			}
			r := inferctl(t, nil, "", args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\nstderr: %s", r.code, tc.code, r.stderr)
			}
			check(t, "stdout", "", r.stdout)
			check(t, "stderr", tc.stderr, r.stderr)
			if after := listing(t, dir); !reflect.DeepEqual(after, before) {
				t.Errorf("the directory changed: %v, was %v", after, before)
			}
		})
	}
}

// docsYAML is the model.yaml docs/models.md shows model init writing for iris v1.
func docsYAML(t *testing.T) string {
	t.Helper()
	section := readmetest.FileSection(t, "docs/models.md", "### Writing model.yaml: inferctl model init")
	_, block, ok := strings.Cut(section, "```yaml\n")
	if !ok {
		t.Fatal("docs/models.md shows no model.yaml from model init")
	}
	block, _, _ = strings.Cut(block, "```")
	return block
}

// uncomment turns on the to_tensor example init leaves commented out.
func uncomment(t *testing.T, yaml string) string {
	t.Helper()
	head, example, ok := strings.Cut(yaml, "\n# preprocess:\n")
	if !ok {
		t.Fatalf("no commented-out to_tensor example:\n%s", yaml)
	}
	lines := strings.Split("# preprocess:\n"+example, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "# ")
	}
	return head + "\n" + strings.Join(lines, "\n")
}

// sameTensors compares two lists of tensors as JSON objects, whatever their key order.
func sameTensors(t *testing.T, a, b []json.RawMessage) bool {
	t.Helper()
	var x, y []map[string]any
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if json.Unmarshal(ja, &x) != nil || json.Unmarshal(jb, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// listing is the names and sizes in dir, to see that a refusal wrote nothing.
func listing(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out[path] = fi.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, readFile(t, src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestModelInitUnfit: a model a model.yaml without steps cannot feed (testdata's
// sequence.onnx, build_onnx.py, takes [batch, seq]) gets the file to edit, with the
// reason the load would give in it and on stderr, and no call to make.
func TestModelInitUnfit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "seq", "1")
	copyFile(t, filepath.Join(repoRoot(t), "internal", "modelfile", "testdata", "sequence.onnx"), filepath.Join(dir, "model.onnx"))
	r := inferctl(t, nil, "", "model", "init", dir)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	const why = `preprocess: required: model input "tokens" has dimensions of any size, [-1] per item, so /predict cannot tell which to take; ` +
		`list a to_tensor step with the shape, e.g. preprocess: [{to_tensor: {shape: [1]}}]`
	file := filepath.Join(dir, "model.yaml")
	check(t, "stderr", "inferctl: wrote "+file+", but as written the version does not load: "+why+
		"\nEdit it before serving; docs/models.md describes the steps.", r.stderr)
	check(t, "model.yaml", strings.Repeat("...\n", 7)+"artifact: model.onnx\n# As written this does not load: "+why, string(readFile(t, file)))
}
