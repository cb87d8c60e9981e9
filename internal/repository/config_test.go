package repository_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/echo"
	"github.com/inferd/inferd/internal/backend/onnx/onnxtest"
	"github.com/inferd/inferd/internal/pipeline"
	"github.com/inferd/inferd/internal/repository"
)

// TestConfigErrors checks that each fault in a model.yaml is reported with the file
// and the field, at discovery when the config alone shows it and at load when only
// the model does.
func TestConfigErrors(t *testing.T) {
	replace := func(old, new string) string {
		if !strings.Contains(irisYAML, old) {
			panic(old)
		}
		return strings.Replace(irisYAML, old, new, 1)
	}
	tests := []struct {
		name     string
		yaml     string
		artifact bool // write model.onnx
		phase    string
		want     string // after "<dir>/iris/v1/model.yaml: "
	}{
		{name: "unknown step", yaml: replace("  - softmax\n", "  - sigmoid\n"), artifact: true, phase: "discover",
			want: `postprocess[0]: unknown step "sigmoid" (postprocess steps: argmax, label_map, round, softmax, squeeze, threshold, top_k)`},
		{name: "step in the wrong stage", yaml: replace("  - softmax\n", "  - cast: {dtype: float32}\n"), artifact: true, phase: "discover",
			want: `postprocess[0]: cast is a preprocess step, not a postprocess step`},
		{name: "unknown field", yaml: "descripton: typo\n" + irisYAML, artifact: true, phase: "discover",
			want: `descripton: unknown field (fields: description, backend, artifact, max_batch_size, dynamic_batching, delay, preprocess, postprocess)`},
		{name: "unknown parameter", yaml: replace("std:", "sd:"), artifact: true, phase: "discover",
			want: `preprocess[1].standardize.sd: unknown field (fields: mean, std)`},
		{name: "parameter of the wrong type", yaml: replace("std: [0.8, 0.4, 1.7, 0.7]", "std: [0.8, 0.4, high, 0.7]"), artifact: true, phase: "discover",
			want: `preprocess[1].standardize.std[2]: expected a number, got the string "high"`},
		{name: "parameter not a list", yaml: replace("std: [0.8, 0.4, 1.7, 0.7]", "std: 0.8"), artifact: true, phase: "discover",
			want: `preprocess[1].standardize.std: expected a list, got 0.8`},
		{name: "bad parameter value", yaml: replace("std: [0.8, 0.4, 1.7, 0.7]", "std: [0.8, 0, 1.7, 0.7]"), artifact: true, phase: "discover",
			want: `preprocess[1].standardize.std[1]: must be greater than 0, got 0`},
		// YAML's .nan and .inf are numbers to the decoder; no step option takes them.
		{name: "NaN mean", yaml: replace("mean: [5.8, 3.0, 3.7, 1.2]", "mean: [5.8, .nan, 3.7, 1.2]"), artifact: true, phase: "discover",
			want: `preprocess[1].standardize.mean[1]: must be a finite number, got NaN`},
		{name: "infinite std", yaml: replace("std: [0.8, 0.4, 1.7, 0.7]", "std: [0.8, 0.4, .inf, 0.7]"), artifact: true, phase: "discover",
			want: `preprocess[1].standardize.std[2]: must be a finite number, got +Inf`},
		{name: "NaN threshold", yaml: replace("  - softmax\n  - top_k: {k: 2, labels: [setosa, versicolor, virginica]}\n", "  - threshold: {value: .NaN}\n"), artifact: true, phase: "discover",
			want: `postprocess[0].threshold.value: must be a finite number, got NaN`},
		{name: "minus infinite threshold", yaml: replace("  - softmax\n  - top_k: {k: 2, labels: [setosa, versicolor, virginica]}\n", "  - threshold: {value: -.inf}\n"), artifact: true, phase: "discover",
			want: `postprocess[0].threshold.value: must be a finite number, got -Inf`},
		{name: "step not a mapping", yaml: replace("  - softmax\n", "  - [softmax]\n"), artifact: true, phase: "discover",
			want: "postprocess[0]: expected a step: its name mapped to its parameters, like `- standardize: {mean: [...], std: [...]}`, got a list"},
		{name: "steps not a list", yaml: "preprocess: to_tensor\n", artifact: true, phase: "discover",
			want: `preprocess: expected a list of steps, got the string "to_tensor"`},
		{name: "unknown backend", yaml: "backend: torch\n" + irisYAML, artifact: true, phase: "discover",
			want: `backend: unknown backend "torch" (backends: onnx, xgboost, echo)`},
		{name: "artifact outside the version", yaml: "artifact: ../v2/model.onnx\n" + irisYAML, artifact: true, phase: "discover",
			want: `artifact: "../v2/model.onnx" must be a file name in the version directory`},
		{name: "delay for onnx", yaml: "delay: 1s\n" + irisYAML, artifact: true, phase: "discover",
			want: `delay: only backend echo takes a delay`},
		{name: "echo with steps", yaml: "backend: echo\n" + irisYAML, phase: "discover",
			want: `preprocess: backend echo takes no steps`},
		{name: "echo with an artifact", yaml: "backend: echo\nartifact: model.onnx\n", phase: "discover",
			want: `artifact: backend echo reads no artifact`},
		{name: "echo with postprocess steps", yaml: "backend: echo\npostprocess: [softmax]\n", phase: "discover",
			want: `postprocess: backend echo takes no steps`},
		{name: "echo with a negative delay", yaml: "backend: echo\ndelay: -1s\n", phase: "discover",
			want: `delay: must not be negative, got -1s`},
		{name: "echo with a negative batch size", yaml: "backend: echo\nmax_batch_size: -1\n", phase: "discover",
			want: `max_batch_size: must be 0 (no cap) or more, got -1`},
		{name: "echo with a bad delay", yaml: "backend: echo\ndelay: soon\n", phase: "discover",
			want: `delay: expected a duration such as 250ms or 2s, got the string "soon"`},
		{name: "negative batch size", yaml: "max_batch_size: -1\n" + irisYAML, artifact: true, phase: "discover",
			want: `max_batch_size: must be 0 (no cap) or more, got -1`},
		{name: "batch size not whole", yaml: "max_batch_size: 1.5\n" + irisYAML, artifact: true, phase: "discover",
			want: `max_batch_size: expected a whole number, got 1.5`},
		{name: "batching without a delay", yaml: "dynamic_batching: {}\n" + irisYAML, artifact: true, phase: "discover",
			want: `dynamic_batching.max_queue_delay: must be a positive duration such as 2ms, got 0s`},
		{name: "batching with a negative delay", yaml: "backend: echo\ndynamic_batching: {max_queue_delay: -1ms}\n", phase: "discover",
			want: `dynamic_batching.max_queue_delay: must be a positive duration such as 2ms, got -1ms`},
		{name: "batching with a bad delay", yaml: "dynamic_batching: {max_queue_delay: soon}\n" + irisYAML, artifact: true, phase: "discover",
			want: `dynamic_batching.max_queue_delay: expected a duration such as 250ms or 2s, got the string "soon"`},
		{name: "batching with an unknown field", yaml: "dynamic_batching: {max_queue_delay: 2ms, preferred_batch_size: [4]}\n" + irisYAML, artifact: true, phase: "discover",
			want: `dynamic_batching.preferred_batch_size: unknown field (fields: max_queue_delay, max_calls)`},
		{name: "batching with negative calls", yaml: "backend: echo\ndynamic_batching: {max_queue_delay: 2ms, max_calls: -1}\n", phase: "discover",
			want: `dynamic_batching.max_calls: must be 1 or more (0 or absent means 1), got -1`},
		{name: "batching with calls not whole", yaml: "backend: echo\ndynamic_batching: {max_queue_delay: 2ms, max_calls: 1.5}\n", phase: "discover",
			want: `dynamic_batching.max_calls: expected a whole number, got 1.5`},
		{name: "negative batch size for echo", yaml: "backend: echo\nmax_batch_size: -2\n", phase: "discover",
			want: `max_batch_size: must be 0 (no cap) or more, got -2`},
		{name: "syntax", yaml: "description: [oops\n", artifact: true, phase: "discover",
			want: `line 1: did not find expected ',' or ']'`},
		{name: "not a mapping", yaml: "- to_tensor\n", artifact: true, phase: "discover",
			want: `expected a mapping, got a list`},

		{name: "missing artifact", yaml: irisYAML, phase: "load",
			want: `artifact: {dir}/model.onnx does not exist`},
		{name: "missing named artifact", yaml: "artifact: iris.onnx\n" + irisYAML, artifact: true, phase: "load",
			want: `artifact: {dir}/iris.onnx does not exist`},
		{name: "wrong input name", yaml: replace("  - to_tensor:\n", "  - to_tensor:\n      input: features\n"), artifact: true, phase: "load",
			want: `preprocess[0].to_tensor.input: the model has no input "features" (it has x)`},
		{name: "shape mismatch", yaml: "preprocess:\n  - to_tensor: {shape: [3]}\n", artifact: true, phase: "load",
			want: `preprocess[0].to_tensor.shape: makes shape [3] per item, but model input "x" takes [4] per item`},
		{name: "dtype mismatch", yaml: replace("  - to_tensor:\n", "  - to_tensor:\n      dtype: float64\n"), artifact: true, phase: "load",
			want: `preprocess[0].to_tensor.dtype: makes float64, but model input "x" takes float32; change the dtype or add a cast step`},
		{name: "standardize does not fit", yaml: replace("mean: [5.8, 3.0, 3.7, 1.2]\n      std: [0.8, 0.4, 1.7, 0.7]", "mean: [5.8, 3.0, 3.7]\n      std: [0.8, 0.4, 1.7]"), artifact: true, phase: "load",
			want: `preprocess[1].standardize.std: expected 4 numbers, got 3`},
		{name: "wrong output name", yaml: replace("  - softmax\n", "  - softmax: {output: probabilities}\n"), artifact: true, phase: "load",
			want: `postprocess[0].softmax.output: the model has no output "probabilities" (it has y)`},
		{name: "too many labels", yaml: replace("labels: [setosa, versicolor, virginica]", "labels: [setosa, versicolor, virginica, rosa]"), artifact: true, phase: "load",
			want: `postprocess[1].top_k.labels: expected 3 labels, one per score, got 4`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"iris/v1/model.yaml": tt.yaml}
			if tt.artifact {
				files["iris/v1/model.onnx"] = irisONNX()
			}
			dir := repo(t, files)
			vdir := filepath.Join(dir, "iris", "v1")
			want := filepath.Join(vdir, "model.yaml") + ": " + strings.ReplaceAll(tt.want, "{dir}", vdir)
			spec, err := repository.New(repository.Options{Dir: dir, Backends: backends(onnxtest.Runtime(t))}).Model(context.Background(), "iris")
			if err != nil {
				t.Fatal(err)
			}
			v := spec.Versions[0]
			phase, got := "discover", v.Err
			if got == nil {
				phase = "load"
				p, err := v.Loader.Load(context.Background())
				if err == nil {
					p.Close()
					t.Fatalf("loaded; want %s", want)
				}
				got = err
			}
			if phase != tt.phase || got.Error() != want {
				t.Fatalf("%s error = %v\nwant %s error   %s", phase, got, tt.phase, want)
			}
			if !errors.Is(got, repository.ErrInvalidConfig) {
				t.Errorf("error does not wrap ErrInvalidConfig")
			}
			// ParseConfig (inferctl model init's check) refuses what discovery refuses,
			// alike, and passes what only a load finds out.
			_, perr := repository.ParseConfig(filepath.Join(vdir, "model.yaml"), []byte(tt.yaml), backends(onnxtest.Runtime(t)))
			switch {
			case tt.phase == "discover" && (perr == nil || perr.Error() != want):
				t.Errorf("ParseConfig: %v\nwant %s", perr, want)
			case tt.phase == "load" && perr != nil:
				t.Errorf("ParseConfig: %v, want nil: only the load finds it", perr)
			}
		})
	}
}

// TestBackendNotGiven: a version whose backend the server was not given fails at
// discovery, saying which backends there are.
func TestBackendNotGiven(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"default backend", irisYAML, `backend: unknown backend "onnx" (backends: echo)`},
		{"named backend", "backend: onnx\n" + irisYAML, `backend: unknown backend "onnx" (backends: echo)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := repo(t, map[string]string{"iris/v1/model.yaml": tt.yaml, "iris/v1/model.onnx": irisONNX()})
			spec, err := repository.New(repository.Options{Dir: dir, Backends: backend.Catalogue{echo.Backend{}}}).Model(context.Background(), "iris")
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(dir, "iris", "v1", "model.yaml") + ": " + tt.want
			if v := spec.Versions[0]; v.Err == nil || v.Err.Error() != want || !errors.Is(v.Err, repository.ErrInvalidConfig) || v.Loader != nil {
				t.Fatalf("Err = %v, loader %v\nwant  %s", v.Err, v.Loader, want)
			}
		})
	}
}

// TestDynamicBatchingConfig: dynamic_batching reaches the pipeline with max_batch_size
// as its cap, for onnx and echo alike; without the key a pipeline does not batch.
func TestDynamicBatchingConfig(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		artifact bool
		want     pipeline.Batching
	}{
		{name: "absent", yaml: irisYAML, artifact: true, want: pipeline.Batching{}},
		{name: "null", yaml: "dynamic_batching:\n" + irisYAML, artifact: true, want: pipeline.Batching{}},
		{name: "onnx", yaml: "max_batch_size: 32\ndynamic_batching: {max_queue_delay: 2ms}\n" + irisYAML, artifact: true,
			want: pipeline.Batching{Enabled: true, MaxSize: 32, MaxQueueDelay: 2 * time.Millisecond, MaxCalls: 1}},
		{name: "echo without a cap", yaml: "backend: echo\ndynamic_batching: {max_queue_delay: 500us}\n",
			want: pipeline.Batching{Enabled: true, MaxQueueDelay: 500 * time.Microsecond, MaxCalls: 1}},
		{name: "two calls at once", yaml: "max_batch_size: 32\ndynamic_batching: {max_queue_delay: 2ms, max_calls: 2}\n" + irisYAML, artifact: true,
			want: pipeline.Batching{Enabled: true, MaxSize: 32, MaxQueueDelay: 2 * time.Millisecond, MaxCalls: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"iris/v1/model.yaml": tt.yaml}
			if tt.artifact {
				files["iris/v1/model.onnx"] = irisONNX()
			}
			spec, err := repository.New(repository.Options{Dir: repo(t, files), Backends: backends(onnxtest.Runtime(t))}).Model(context.Background(), "iris")
			if err != nil {
				t.Fatal(err)
			}
			if err := spec.Versions[0].Err; err != nil {
				t.Fatal(err)
			}
			p, err := spec.Versions[0].Loader.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if p.Batching != tt.want {
				t.Errorf("Batching = %+v, want %+v", p.Batching, tt.want)
			}
		})
	}
}
