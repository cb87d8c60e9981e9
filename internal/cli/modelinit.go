package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/inferd/inferd/internal/modelfile"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/pipeline/step"
	"github.com/inferd/inferd/internal/repository"
)

// runModel is `model init PATH`: it writes a version directory's model.yaml from
// what its model file declares, checked as the server checks it.
func runModel(e *env, args []string) error {
	fs := e.flagSet("model")
	force := fs.Bool("force", false, "replace the directory's model.yaml if it has one")
	pos, err := e.parse(fs, "model", args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0 && pos[0] != "init":
		return usagef("model %q: want init%s", pos[0], didYouMean(pos[0], []string{"init"}))
	case len(pos) != 2:
		return usagef("model init takes one path: a version directory or its model file")
	}
	dir, file, err := modelFile(pos[1])
	if err != nil {
		return err
	}
	m, err := modelfile.Read(filepath.Join(dir, file))
	if errors.Is(err, modelfile.ErrNotModel) || errors.Is(err, modelfile.ErrUnsupported) {
		return usageError{err.Error()}
	}
	if err != nil {
		return err
	}
	target := filepath.Join(dir, repository.ConfigFile)
	if _, err := os.Lstat(target); err == nil && !*force {
		return usagef("%s exists; nothing was written (--force replaces it)", target)
	}
	yaml := initYAML(file, m)
	c, err := repository.ParseConfig(target, []byte(yaml), offlineBackends)
	if err != nil {
		// init wrote something the server would refuse: inferctl's fault, or a file name
		// the repository does not allow as an artifact.
		return fmt.Errorf("the model.yaml for %s would not load, so it was not written: %w", file, err)
	}
	// The steps against the model's tensors, as a load builds them: a model that a
	// model.yaml without steps cannot feed (an input with a dimension of any size,
	// several inputs) gets the file to edit and the load's own reason.
	unfit := fits(c, m)
	if unfit != nil {
		yaml += "# As written this does not load: " + unfit.Error() + "\n"
	}
	if err := os.WriteFile(target, []byte(yaml), 0o644); err != nil {
		return err
	}
	if unfit != nil {
		fmt.Fprintf(e.stderr, "inferctl: wrote %s, but as written the version does not load: %v\n"+
			"Edit it before serving; docs/models.md describes the steps.\n", target, unfit)
	} else {
		e.nextSteps(dir, target, m)
	}
	return e.print(initResult{target, m.Backend, file, tensorRows(m.Inputs), tensorRows(m.Outputs), m.Features, m.Objective, m.Classes})
}

// fits builds c's steps for the model's tensors as a load does, without the model.
func fits(c *repository.Config, m *modelfile.Model) error {
	if _, _, err := step.BuildPre(c.Preprocess, perItem(m.Inputs)); err != nil {
		return err
	}
	_, err := step.BuildPost(c.Postprocess, perItem(m.Outputs))
	return err
}

// perItem is ts without the batch dimension, as the steps see a model's tensors.
func perItem(ts []pipeline.Tensor) []pipeline.Tensor {
	out := make([]pipeline.Tensor, len(ts))
	for i, t := range ts {
		out[i] = pipeline.Tensor{Name: t.Name, DType: t.DType}
		if len(t.Shape) > 0 {
			out[i].Shape = slices.Clone(t.Shape[1:])
		}
	}
	return out
}

// tensorRow is a tensor as the server's model metadata shows one.
type tensorRow struct {
	Name  string  `json:"name"`
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

func tensorRows(ts []pipeline.Tensor) []tensorRow {
	out := make([]tensorRow, len(ts))
	for i, t := range ts {
		out[i] = tensorRow(t)
	}
	return out
}

// initResult is what model init prints: the file it wrote and what it found.
type initResult struct {
	ModelYAML string      `json:"model_yaml"`
	Backend   string      `json:"backend"`
	Artifact  string      `json:"artifact"`
	Inputs    []tensorRow `json:"inputs"`
	Outputs   []tensorRow `json:"outputs"`
	Features  []string    `json:"features,omitempty"`
	Objective string      `json:"objective,omitempty"`
	Classes   int         `json:"classes,omitempty"`
}

// modelArtifacts are the file names a version directory's model goes by, in the
// order model init looks for them.
var modelArtifacts = []string{"model.onnx", "model.json", "model.ubj"}

// modelFile finds the model of path, a version directory or a file in one.
func modelFile(path string) (dir, file string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", "", err
	}
	if !fi.IsDir() {
		return filepath.Dir(path), filepath.Base(path), nil
	}
	var found []string
	for _, name := range modelArtifacts {
		if _, err := os.Stat(filepath.Join(path, name)); err == nil {
			found = append(found, name)
		}
	}
	if len(found) == 0 {
		// A model file of another name, alone in the directory, is the model.
		matches, _ := filepath.Glob(filepath.Join(path, "*.onnx"))
		for _, m := range matches {
			found = append(found, filepath.Base(m))
		}
	}
	switch {
	case len(found) == 0:
		return "", "", usagef("%s holds no model file (%s, or a *.onnx); give the file's path", path, strings.Join(modelArtifacts, ", "))
	case len(found) > 1 && !slices.Equal(found, []string{"model.json", "model.ubj"}):
		return "", "", usagef("%s holds %s; a version has one model: give the file's path", path, strings.Join(found, " and "))
	}
	// model.json and model.ubj side by side: the same booster twice, and init reads JSON.
	return path, found[0], nil
}

// initYAML is the model.yaml of the model in file: the backend and artifact, the
// tensors as comments, and the steps the file's names allow.
func initYAML(file string, m *modelfile.Model) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by inferctl model init from %s", file)
	if m.Objective != "" {
		fmt.Fprintf(&b, " (XGBoost, objective %s", m.Objective)
		if m.Classes > 0 {
			fmt.Fprintf(&b, ", %d classes", m.Classes)
		}
		b.WriteString(")")
	}
	b.WriteString(".\n# docs/models.md describes every field and step.\n#\n")
	b.WriteString("# The model's tensors, batch dimension first (-1: any size):\n")
	rows := make([][3]string, 0, len(m.Inputs)+len(m.Outputs))
	for _, t := range m.Inputs {
		rows = append(rows, [3]string{"input", t.Name, tensorType(t)})
	}
	for _, t := range m.Outputs {
		rows = append(rows, [3]string{"output", t.Name, tensorType(t)})
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r[1]))
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "#   %-6s  %-*s  %s\n", r[0], width, r[1], r[2])
	}
	fmt.Fprintf(&b, "backend: %s\nartifact: %s\n", m.Backend, yamlString(file))
	if len(m.Features) > 0 {
		b.WriteString("# /predict takes the features by name, as an object, or as an array in this order.\n")
		fmt.Fprintf(&b, "preprocess:\n  - to_tensor:\n      features: [%s]\n", yamlList(m.Features))
		return b.String()
	}
	if n, dtype, ok := oneRowInput(m); ok {
		fmt.Fprintf(&b, "# For /predict to take the %d values by name, uncomment and name them:\n", n)
		fmt.Fprintf(&b, "# preprocess:\n#   - to_tensor:\n#       dtype: %s\n#       shape: [%d]\n", dtype, n)
		fmt.Fprintf(&b, "#       # features: [%s]\n", yamlList(placeholderNames(n)))
	}
	return b.String()
}

// oneRowInput reports whether the model takes one input of rows of n floats,
// [-1, n], which a to_tensor step can feed from named features.
func oneRowInput(m *modelfile.Model) (int64, string, bool) {
	if len(m.Inputs) != 1 {
		return 0, "", false
	}
	t := m.Inputs[0]
	if (t.DType != "float32" && t.DType != "float64") || len(t.Shape) != 2 || t.Shape[1] <= 0 {
		return 0, "", false
	}
	return t.Shape[1], t.DType, true
}

// placeholderNames are names for an example: the first three and the last.
func placeholderNames(n int64) []string {
	var names []string
	for i := int64(0); i < n && i < 3; i++ {
		names = append(names, "x"+strconv.FormatInt(i, 10))
	}
	if n > 4 {
		names = append(names, "...")
	}
	if n > 3 {
		names = append(names, "x"+strconv.FormatInt(n-1, 10))
	}
	return names
}

func tensorType(t pipeline.Tensor) string {
	if t.Shape == nil {
		return t.DType
	}
	return t.DType + " " + shapeString(t.Shape)
}

func shapeString(shape []int64) string {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = strconv.FormatInt(d, 10)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// plainYAML is a string YAML reads as itself without quotes.
var plainYAML = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// yamlString quotes s when YAML would read it as something else (a number, true, a
// mapping).
func yamlString(s string) string {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null":
		return strconv.Quote(s)
	}
	if plainYAML.MatchString(s) {
		return s
	}
	// A double-quoted YAML string takes Go's escapes for what a feature name holds.
	return strconv.Quote(s)
}

func yamlList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = yamlString(n)
		if n == "..." {
			q[i] = n
		}
	}
	return strings.Join(q, ", ")
}

// nextSteps tells, on stderr, where the directory goes and how to call the model.
func (e *env) nextSteps(dir, target string, m *modelfile.Model) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	version, name := filepath.Base(abs), filepath.Base(filepath.Dir(abs))
	w := e.stderr
	fmt.Fprintf(w, "inferctl: wrote %s; the server's parser of model.yaml accepts it.\n", target)
	fmt.Fprintf(w, "Next:\n  1. The directory is one version of a model: the repository (MODELS_DIR) holds it as\n")
	fmt.Fprintf(w, "     <model>/<version>/; here that is model %q, version %q.\n", name, version)
	fmt.Fprintf(w, "  2. Start inferd with MODELS_DIR set to the repository, or have a running one load it:\n")
	fmt.Fprintf(w, "     inferctl repository load %s\n", name)
	key := `-H 'X-API-Key: dev-key'`
	if e.apiKey != "" {
		key = `-H "X-API-Key: $INFERD_API_KEY"`
	}
	infer, ok := oipExample(m)
	if !ok {
		fmt.Fprintf(w, "  3. Call it over /v2 or gRPC (inferctl models get %s %s shows its tensors).\n", name, version)
		return
	}
	fmt.Fprintf(w, "  3. Call it: tensors over /v2 (or gRPC), the batch dimension first\n")
	fmt.Fprintf(w, "     curl -s %s -H 'Content-Type: application/json' \\\n       -d '%s' \\\n       %s/v2/models/%s/infer\n", key, infer, e.url, name)
	data, ok := predictExample(m)
	if !ok {
		return
	}
	fmt.Fprintf(w, "     and one item over /predict\n")
	fmt.Fprintf(w, "     curl -s %s -H 'Content-Type: application/json' \\\n       -d '{\"model\":%s,\"data\":%s}' \\\n       %s/predict\n", key, strconv.Quote(name), data, e.url)
}

// oipDatatypes are the Open Inference Protocol's names of the dtypes.
var oipDatatypes = map[string]string{
	"float32": "FP32", "float64": "FP64", "float16": "FP16", "int8": "INT8", "int16": "INT16",
	"int32": "INT32", "int64": "INT64", "uint8": "UINT8", "uint16": "UINT16", "uint32": "UINT32",
	"uint64": "UINT64", "bool": "BOOL", "bytes": "BYTES",
}

// oipExample is an infer request of one item of zeros.
func oipExample(m *modelfile.Model) (string, bool) {
	inputs := make([]string, len(m.Inputs))
	for i, t := range m.Inputs {
		dt, ok := oipDatatypes[t.DType]
		if !ok {
			return "", false
		}
		shape := itemShape(t.Shape)
		full := append([]int64{1}, shape...)
		if len(t.Shape) > 0 && t.Shape[0] > 0 {
			full[0] = t.Shape[0]
		}
		inputs[i] = fmt.Sprintf(`{"name":%s,"datatype":"%s","shape":%s,"data":[%s]}`,
			strconv.Quote(t.Name), dt, strings.ReplaceAll(shapeString(full), " ", ""), zeros(count(full), t.DType))
	}
	return `{"inputs":[` + strings.Join(inputs, ",") + `]}`, true
}

// predictExample is the data of one /predict item: the features by name, or one
// item of a one-input model, nested arrays of its shape.
func predictExample(m *modelfile.Model) (string, bool) {
	if len(m.Features) > 0 {
		kv := make([]string, len(m.Features))
		for i, f := range m.Features {
			kv[i] = strconv.Quote(f) + ":0"
		}
		return "{" + strings.Join(kv, ",") + "}", true
	}
	if len(m.Inputs) != 1 {
		return "", false
	}
	t := m.Inputs[0]
	shape := itemShape(t.Shape)
	if len(shape) == 0 {
		return "", false
	}
	return nestedZeros(shape, t.DType), true
}

// nestedZeros is one item of zeros as /predict reads a model's input without steps:
// nested arrays of the item's shape.
func nestedZeros(shape []int64, dtype string) string {
	if len(shape) == 1 {
		return "[" + zeros(shape[0], dtype) + "]"
	}
	inner := nestedZeros(shape[1:], dtype)
	return "[" + strings.TrimSuffix(strings.Repeat(inner+",", int(shape[0])), ",") + "]"
}

// itemShape is one item's shape: the batch dimension dropped, open ones made 1.
func itemShape(shape []int64) []int64 {
	if len(shape) == 0 {
		return nil
	}
	out := slices.Clone(shape[1:])
	for i, d := range out {
		if d <= 0 {
			out[i] = 1
		}
	}
	return out
}

func count(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

func zeros(n int64, dtype string) string {
	z := "0"
	switch dtype {
	case "bool":
		z = "false"
	case "bytes":
		z = `""`
	}
	return strings.TrimSuffix(strings.Repeat(z+",", int(n)), ",")
}
