package repository

import (
	"errors"
	"reflect"
	"testing"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/backend/echo"
)

// FuzzParseConfig: any model.yaml either parses, the same way every time and into a
// config whose step lists pass step.Check, or fails with a *ConfigError (so
// ErrInvalidConfig) that names the file and says something; it never panics.
// (go test -run '^$' -fuzz '^FuzzParseConfig$' ./internal/repository)
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"backend: echo\n",
		"backend: echo\ndelay: 10ms\nmax_batch_size: 4\ndynamic_batching: {max_queue_delay: 2ms, max_calls: 2}\n",
		"backend: echo\npreprocess:\n  - to_tensor: {field: features, shape: [4]}\n  - standardize: {mean: [1, 2, 3, 4], std: [1, 1, 1, 1]}\n  - cast: {dtype: float32}\npostprocess:\n  - softmax\n  - top_k: {k: 2, labels: [a, b, c]}\n",
		"backend: echo\npostprocess:\n  - argmax\n  - label_map: {labels: [setosa, versicolor]}\n",
		"backend: echo\npostprocess:\n  - threshold: {threshold: 0.5}\n  - round: {decimals: 2}\n  - squeeze\n",
		"descripton: typo\n",
		"preprocess: softmax\n",
		"preprocess:\n  - [softmax]\n",
		"preprocess:\n  - {a: 1, b: 2}\n",
		"backend: onnx\n",
		"delay: -1s\n",
		"max_batch_size: 1e99\n",
		"- a list\n",
		"&a [*a]\n",
		"key: !!binary AAAA\n",
		"",
		"---\n...\n",
		"backend: echo\nbackend: echo\n",
	} {
		f.Add([]byte(s))
	}
	backends := backend.Catalogue{echo.Backend{}}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseConfig(data, backends)
		if err != nil {
			err = inFile("model.yaml", err)
			var ce *ConfigError
			if !errors.As(err, &ce) || !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("%T %v is not a *ConfigError", err, err)
			}
			if ce.File != "model.yaml" || ce.Msg == "" {
				t.Fatalf("error %+v lacks its file or message", ce)
			}
			return
		}
		again, err := parseConfig(data, backends)
		if err != nil || !reflect.DeepEqual(c, again) {
			t.Fatalf("a second parse of the same file gives %+v, %v; the first %+v", again, err, c)
		}
		if c.Backend != "" && c.Backend != "echo" {
			t.Fatalf("backend %q passed a catalogue of echo alone", c.Backend)
		}
	})
}
