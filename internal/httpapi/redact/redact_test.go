package redact

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/backend"
	"github.com/inferd/inferd/internal/registry"
)

// TestLoadError: load errors as clients see them keep no server path and no build
// instructions (see docs/design.md#load-errors-keep-the-servers-paths-to-themselves).
func TestLoadError(t *testing.T) {
	rd := New("/srv/inferd/models")
	lib := fmt.Errorf("ONNX Runtime %w: no .onnxruntime/lib/libonnxruntime.so in /opt/inferd or its parents; run `make onnxruntime` (tools/onnxruntime.sh) or set ONNXRUNTIME_LIB to the library's path", backend.ErrLibraryNotFound)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"a path in the repository", errors.New("/srv/inferd/models/iris/v3/model.yaml: artifact: /srv/inferd/models/iris/v3/model.onnx does not exist"),
			"iris/v3/model.yaml: artifact: iris/v3/model.onnx does not exist"},
		{"a path elsewhere", errors.New(`loading "/var/lib/other/thing.so": no such file`), `loading "thing.so": no such file`},
		{"the library, wrapped as a 503 wraps it", fmt.Errorf("%w: iris v1 failed to load: %w", registry.ErrUnavailable, lib),
			"model unavailable: iris v1 failed to load: " + libraryMissing},
		{"the library, as a reload wraps it", fmt.Errorf("%w: iris v1: %w", registry.ErrReloadFailed, lib), "iris v1: " + libraryMissing},
		{"no path at all", errors.New(`preprocess[0]: unknown step "nope"`), `preprocess[0]: unknown step "nope"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := rd.LoadError(tc.err)
			if !strings.HasSuffix(got, tc.want) {
				t.Errorf("got  %q\nwant %q at its end", got, tc.want)
			}
			for _, leak := range []string{"/srv", "/opt", "/var", "make ", "ONNXRUNTIME_LIB"} {
				if strings.Contains(got, leak) {
					t.Errorf("%q leaks %q", got, leak)
				}
			}
		})
	}
}
