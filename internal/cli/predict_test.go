package cli

import (
	"strings"
	"testing"
)

// TestModelArgument: predict and submit take the model's name alone; an input given
// as a second argument is answered with the flag that carries it.
func TestModelArgument(t *testing.T) {
	tests := []struct {
		name      string
		pos       []string
		model     string
		fromStdin bool
		err       string
	}{
		{"a model", []string{"iris"}, "iris", false, ""},
		{"a model and - for stdin", []string{"iris", "-"}, "iris", true, ""},
		{"the input as an argument", []string{"iris", "[5.1,3.5,1.4,0.2]"}, "", false,
			"predict takes one model name, got 2 arguments; give the input with --input (inferctl predict iris --input '[5.1,3.5,1.4,0.2]'), -f file or -"},
		{"nothing", nil, "", false, "predict takes one model name, got 0 arguments"},
		{"three", []string{"a", "b", "c"}, "", false, "predict takes one model name, got 3 arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var src source
			model, err := modelAndStdin(tc.pos, &src, "predict")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || exitCode(err) != ExitUsage {
					t.Fatalf("error %v (exit %d), want usage: %s", err, exitCode(err), tc.err)
				}
				return
			}
			if err != nil || model != tc.model || (src.file == "-") != tc.fromStdin {
				t.Fatalf("model %q, file %q, error %v", model, src.file, err)
			}
		})
	}
}
