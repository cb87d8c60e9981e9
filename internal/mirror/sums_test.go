package mirror

import (
	"maps"
	"strings"
	"testing"
)

func TestParseSums(t *testing.T) {
	a := strings.Repeat("a", 64)
	b := strings.Repeat("b", 64)
	tests := []struct {
		name, in string
		want     map[string]string
		err      string
	}{
		{name: "text mode", in: a + "  model.onnx\n" + b + "  model.yaml\n", want: map[string]string{"model.onnx": a, "model.yaml": b}},
		{name: "binary mode", in: a + " *model.onnx\n", want: map[string]string{"model.onnx": a}},
		{name: "upper-case digits", in: strings.ToUpper(a) + "  model.onnx\n", want: map[string]string{"model.onnx": a}},
		{name: "dot slash and subdirectories", in: a + "  ./model.onnx\n" + b + "  ./vocab/words.txt\n", want: map[string]string{"model.onnx": a, "vocab/words.txt": b}},
		{name: "tag", in: "SHA256 (model.onnx) = " + a + "\n", want: map[string]string{"model.onnx": a}},
		{name: "tag, parenthesis in the name", in: "SHA256 (a (1).bin) = " + a + "\n", want: map[string]string{"a (1).bin": a}},
		{name: "escaped name", in: `\` + a + `  dir\\file\nname` + "\n", want: map[string]string{"dir\\file\nname": a}},
		{name: "spaces in a name", in: a + "  my model.onnx\n", want: map[string]string{"my model.onnx": a}},
		{name: "CRLF and blank lines", in: a + "  model.onnx\r\n\r\n\n", want: map[string]string{"model.onnx": a}},
		{name: "no trailing newline", in: a + "  model.onnx", want: map[string]string{"model.onnx": a}},
		{name: "itself, ignored", in: a + "  model.onnx\n" + b + "  SHA256SUMS\n", want: map[string]string{"model.onnx": a}},
		{name: "its signatures, ignored", in: a + "  model.onnx\n" + b + "  SHA256SUMS.sig\n" + b + "  SHA256SUMS.cosign.bundle\n", want: map[string]string{"model.onnx": a}},
		{name: "the same twice", in: a + "  model.onnx\n" + a + " *model.onnx\n", want: map[string]string{"model.onnx": a}},

		{name: "empty", in: "", err: "lists no file"},
		{name: "only itself", in: a + "  SHA256SUMS\n", err: "lists no file"},
		{name: "short digest", in: "abc  model.onnx\n", err: "line 1"},
		{name: "not hex", in: strings.Repeat("z", 64) + "  model.onnx\n", err: "not a SHA-256 digest"},
		{name: "one space", in: a + " model.onnx\n", err: "two spaces"},
		{name: "no name", in: a + "  \n", err: "line 1"},
		{name: "absolute path", in: a + "  /etc/passwd\n", err: "not a path inside"},
		{name: "parent directory", in: a + "  ../v2/model.onnx\n", err: "not a path inside"},
		{name: "a comment", in: "# digests\n" + a + "  model.onnx\n", err: "line 1"},
		{name: "twice, different digests", in: a + "  model.onnx\n" + b + "  model.onnx\n", err: "line 2: model.onnx is listed twice"},
		{name: "bad escape", in: `\` + a + `  a\tb` + "\n", err: "unknown escape"},
		{name: "md5", in: "d41d8cd98f00b204e9800998ecf8427e  model.onnx\n", err: "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseSums([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseSums(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || !maps.Equal(got, tt.want) {
				t.Fatalf("parseSums(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

// FuzzParseSums: any bytes are a list or an error, never a panic, and every path
// listed stays inside the version's directory.
func FuzzParseSums(f *testing.F) {
	f.Add([]byte(strings.Repeat("a", 64) + "  model.onnx\n"))
	f.Add([]byte("SHA256 (x) = " + strings.Repeat("0", 64)))
	f.Add([]byte(`\` + strings.Repeat("a", 64) + `  a\\b`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sums, err := parseSums(data)
		if err != nil {
			return
		}
		for name, d := range sums {
			if name == "" || strings.HasPrefix(name, "/") || name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, "/../") || len(d) != 64 {
				t.Fatalf("parseSums(%q) listed %q: %q", data, name, d)
			}
		}
	})
}
