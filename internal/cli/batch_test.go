package cli_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inferd/inferd/internal/cli"
)

// flowersV1 is what iris v1 answers for docs/examples/flowers.csv, row by row.
const flowersV1 = `{"line":2,"result":[{"label":"setosa","score":0.9816},{"label":"versicolor","score":0.0184},{"label":"virginica","score":0}],"version":"v1"}
{"line":3,"result":[{"label":"setosa","score":0.9713},{"label":"versicolor","score":0.0287},{"label":"virginica","score":0}],"version":"v1"}
{"line":4,"result":[{"label":"versicolor","score":0.874},{"label":"virginica","score":0.1239},{"label":"setosa","score":0.0021}],"version":"v1"}
{"line":5,"result":[{"label":"versicolor","score":0.8597},{"label":"virginica","score":0.1344},{"label":"setosa","score":0.0058}],"version":"v1"}
{"line":6,"result":[{"label":"virginica","score":0.9961},{"label":"versicolor","score":0.0039},{"label":"setosa","score":0}],"version":"v1"}
{"line":7,"result":[{"label":"virginica","score":0.8372},{"label":"versicolor","score":0.1625},{"label":"setosa","score":0.0002}],"version":"v1"}`

// echoLines writes n JSON Lines of assorted values (objects, big integers, strings
// that need escaping, null, arrays) with a blank line now and then, and returns the
// file and the lines echo v1 must answer, in order.
func echoLines(t testing.TB, n int) (string, []string) {
	t.Helper()
	var in strings.Builder
	want := make([]string, 0, n)
	line := 0
	for i := range n {
		var item string
		switch i % 5 {
		case 0:
			item = fmt.Sprintf(`{"i":%d,"big":1234567890123456789%d}`, i, i%10)
		case 1:
			item = fmt.Sprintf(`"line \"%d\" <&>"`, i)
		case 2:
			item = "null"
		case 3:
			item = fmt.Sprintf(`[%d,1.5e300,-0.25,true]`, i)
		default:
			item = fmt.Sprintf(`{"nested":{"i":%d,"s":"é"}}`, i)
		}
		line++
		want = append(want, fmt.Sprintf(`{"line":%d,"result":%s,"version":"v1"}`, line, item))
		in.WriteString(item + "\n")
		if i%1000 == 999 {
			in.WriteString("\n")
			line++
		}
	}
	file := filepath.Join(t.TempDir(), "items.jsonl")
	if err := os.WriteFile(file, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, want
}

// TestBatch sends files through `inferctl batch` and checks that every result comes
// back, once, in the order of the file.
func TestBatch(t *testing.T) {
	s := startServer(t)
	env := []string{"INFERD_URL=" + s.URL, "INFERD_API_KEY=dev-key"}
	big, bigWant := echoLines(t, 10000)
	dir := t.TempDir()
	badCSV := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(badCSV, []byte("sepal_length,sepal_width,petal_length,petal_width\n5.1,3.5,1.4,0.2\n4.9,,1.4,0.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badJSONL := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(badJSONL, []byte("1\n2\n{oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string
		stderr string
		calls  int // POST /predict/batch calls, when not 0
	}{
		{name: "10k JSON Lines", args: []string{"batch", "echo", "--version", "v1", "-f", big, "--progress"},
			stdout: strings.Join(bigWant, "\n"), stderr: "...10000/10000 items...items/s  in ...", calls: 40},
		{name: "10k JSON Lines in chunks of 1000, the version routing picked", args: []string{"batch", "echo", "-f", big, "--chunk", "1000"},
			stdout: strings.ReplaceAll(strings.Join(bigWant, "\n"), `"version":"v1"}`, `"version":"v2"}`), calls: 10},
		{name: "CSV", args: []string{"batch", "iris", "--version", "v1", "-f", "docs/examples/flowers.csv"}, stdout: flowersV1, calls: 1},
		{name: "CSV in chunks of 4", args: []string{"batch", "iris", "--version", "v1", "-f", "docs/examples/flowers.csv", "--chunk", "4"}, stdout: flowersV1, calls: 2},
		{name: "CSV as a table", args: []string{"batch", "iris", "--version", "v1", "-f", "docs/examples/flowers.csv", "-o", "table"},
			stdout: "ITEM  LINE  VERSION  RESULT\n1     2     v1       [{\"label\":\"setosa\",\"score\":0.9816},...]\n" + strings.Repeat("...\n", 4) + "6     7     v1       [{\"label\":\"virginica\",\"score\":0.8372},...]"},
		{name: "stdin", stdin: "1\n\"two\"\n\nnull\n", args: []string{"batch", "echo", "--version", "v2", "-"},
			stdout: `{"line":1,"result":1,"version":"v2"}` + "\n" + `{"line":2,"result":"two","version":"v2"}` + "\n" + `{"line":4,"result":null,"version":"v2"}`},
		{name: "stdin as CSV", stdin: "a,b\n1,x\n", args: []string{"batch", "echo", "-f", "-", "--format", "csv"}, stdout: `{"line":2,"result":{"a":1,"b":"x"},"version":"v2"}`},
		{name: "a row the model refuses", args: []string{"batch", "iris", "--version", "v1", "-f", badCSV},
			code: 3, stderr: `inferctl: 400 invalid_input: items[1]: missing the feature "sepal_width"... (request ...); items[1] is item 2, line 3 of ` + badCSV},
		{name: "a line that is not JSON", args: []string{"batch", "echo", "-f", badJSONL},
			code: 2, stderr: "inferctl: " + badJSONL + ":3 is not a JSON value: ...\n..."},
		{name: "no file", args: []string{"batch", "echo"}, code: 2, stderr: "inferctl: batch needs -f file.jsonl, -f file.csv or -f - (stdin)\n..."},
		{name: "unknown model", args: []string{"batch", "nope", "-f", "docs/examples/flowers.csv"},
			code: 3, stderr: `inferctl: 400 model_not_found: ... (request ...); in items 1-6, lines 2-7 of docs/examples/flowers.csv`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(s.seen(http.MethodPost, "/predict/batch"))
			r := inferctl(t, env, tc.stdin, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstderr: %s", r.code, tc.code, r.stderr)
			}
			check(t, "stdout", tc.stdout, r.stdout)
			check(t, "stderr", tc.stderr, r.stderr)
			if got := len(s.seen(http.MethodPost, "/predict/batch")) - before; tc.calls != 0 && got != tc.calls {
				t.Errorf("%d calls of /predict/batch, want %d", got, tc.calls)
			}
		})
	}
}

// TestBatchSplitsOn413 runs batches against servers whose limits are smaller than the
// chunks (or their answers): each 413 halves the chunk, and every result still comes
// back, in order.
func TestBatchSplitsOn413(t *testing.T) {
	file, want := echoLines(t, 1000)
	huge := filepath.Join(t.TempDir(), "huge.jsonl")
	if err := os.WriteFile(huge, []byte("1\n\""+strings.Repeat("x", 5000)+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		env    string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{name: "MAX_REQUEST_BYTES", env: "MAX_REQUEST_BYTES=4096", args: []string{"-f", file}, stdout: strings.Join(want, "\n")},
		{name: "MAX_BATCH_ITEMS", env: "MAX_BATCH_ITEMS=10", args: []string{"-f", file, "--chunk", "64"}, stdout: strings.Join(want, "\n")},
		{name: "MAX_RESPONSE_BYTES", env: "MAX_RESPONSE_BYTES=4096", args: []string{"-f", file}, stdout: strings.Join(want, "\n")},
		{name: "one item too large", env: "MAX_REQUEST_BYTES=4096", args: []string{"-f", huge}, code: 3,
			stdout: `{"line":1,"result":1,"version":"v1"}`, stderr: "inferctl: 413 payload_too_large: the request body exceeds 4096 bytes (MAX_REQUEST_BYTES)... (request ...); item 2, line 2 of " + huge},
		{name: "one item too large, --continue-on-error", env: "MAX_REQUEST_BYTES=4096", args: []string{"-f", huge, "--continue-on-error"}, code: 8,
			stdout: `{"line":1,"result":1,"version":"v1"}` + "\n" + `{"error":{"code":"payload_too_large","detail":"the request body exceeds 4096 bytes (MAX_REQUEST_BYTES); split the batch or send less data","request_id":"...","status":413},"line":2}`,
			stderr: "inferctl: 413 payload_too_large: the request body exceeds 4096 bytes (MAX_REQUEST_BYTES)... (request ...); item 2, line 2 of " + huge + "\n" +
				"inferctl: 1 of 2 items failed (line 2 of " + huge + "); 1 answered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, tc.env)
			r := inferctl(t, []string{"INFERD_URL=" + s.URL, "INFERD_API_KEY=dev-key"}, "", append([]string{"batch", "echo", "--version", "v1"}, tc.args...)...)
			if r.code != tc.code {
				t.Errorf("exit code %d, want %d\nstderr: %s", r.code, tc.code, r.stderr)
			}
			check(t, "stdout", tc.stdout, r.stdout)
			check(t, "stderr", tc.stderr, r.stderr)
			statuses := s.seen(http.MethodPost, "/predict/batch")
			n413 := strings.Count(fmt.Sprint(statuses), "413")
			if n413 == 0 || n413 > 3 {
				t.Errorf("statuses %v: want a few 413s, each followed by smaller chunks", statuses)
			}
		})
	}
}

// BenchmarkBatch10k runs `inferctl batch` in process on 10,000 JSON Lines against a
// live server (echo v1, chunks of 256) and reports items per second.
func BenchmarkBatch10k(b *testing.B) {
	s := startServer(b)
	file, _ := echoLines(b, 10000)
	b.Setenv("INFERD_URL", s.URL)
	b.Setenv("INFERD_API_KEY", "dev-key")
	b.ResetTimer()
	for b.Loop() {
		var stdout, stderr strings.Builder
		if code := cli.Main([]string{"batch", "echo", "--version", "v1", "-f", file}, strings.NewReader(""), &stdout, &stderr); code != 0 {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
	b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "items/s")
}

// TestBatchContinueOnError runs files with lines that are not items and items the model
// refuses: with --continue-on-error every other line is answered, each failure is a
// line of its own on stdout and on stderr, in the file's order, and the exit code says
// whether some (8) or all (that of the first failure) failed. Refusals that name no
// item stop the run, with or without the flag. The server answers each item of a chunk
// on its own (on_error continue), in one call per chunk; a server before contract
// 1.7.0 refuses on_error, and inferctl then sets each refused item aside itself and
// sends the rest of its chunk again, to the same output (the request ids aside: an
// item the server answered on its own has none).
func TestBatchContinueOnError(t *testing.T) {
	s := startServer(t)
	env := []string{"INFERD_URL=" + s.URL, "INFERD_API_KEY=dev-key"}
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// Lines 2 and 9 are not JSON, 3 and 5 are flowers the model refuses, 7 is blank.
	mixed := write("mixed.jsonl", "[5.1,3.5,1.4,0.2]\n{oops\n[5.1,3.5,1.4]\n[6.7,3.0,5.2,2.3]\n\"a flower\"\n[4.9,3.0,1.4,0.2]\n\n[6.3,3.3,6.0,2.5]\n[1,2\n")
	badCSV := write("bad.csv", "sepal_length,sepal_width,petal_length,petal_width\n5.1,3.5,1.4,0.2\n4.9,,1.4,0.2\n7.0,3.2,4.7\n6.3,3.3,6.0,2.5\n")
	allRefused := write("refused.jsonl", "[1]\n[1,2]\n")
	allUnreadable := write("unreadable.jsonl", "{\n[\n")
	const (
		setosa    = `{"line":1,"result":[{"label":"setosa","score":0.9816},...],"version":"v1"}`
		virginica = `{"line":4,"result":[{"label":"virginica","score":0.9199},...],"version":"v1"}`
	)
	mixedOut := strings.Join([]string{
		setosa,
		`{"error":{"code":"invalid_line","detail":"` + mixed + `:2 is not a JSON value: invalid character 'o' looking for beginning of object key string"},"line":2}`,
		`{"error":{"code":"invalid_input","detail":"data: expected 4 numbers, got 3","request_id":"...","status":400},"line":3}`,
		virginica,
		`{"error":{"code":"invalid_input","detail":"data: expected 4 numbers or an object of features (sepal_length, sepal_width, petal_length, petal_width), got a string","request_id":"...","status":400},"line":5}`,
		`{"line":6,"result":[{"label":"setosa","score":0.9713},...],"version":"v1"}`,
		`{"line":8,"result":[{"label":"virginica","score":0.9961},...],"version":"v1"}`,
		`{"error":{"code":"invalid_line","detail":"` + mixed + `:9 is not a JSON value: unexpected end of JSON input"},"line":9}`,
	}, "\n")
	mixedErr := strings.Join([]string{
		"inferctl: " + mixed + ":2 is not a JSON value: ...",
		"inferctl: 400 invalid_input: items[1]: expected 4 numbers, got 3 (request ...); items[1] is item 3, line 3 of " + mixed,
		"inferctl: 400 invalid_input: items[...]: ... (request ...); items[...] is item 5, line 5 of " + mixed,
		"inferctl: " + mixed + ":9 is not a JSON value: ...",
		"inferctl: 4 of 8 items failed (lines 2, 3, 5 and 9 of " + mixed + "); 4 answered",
	}, "\n")
	tests := []struct {
		name   string
		model  string // iris when empty
		args   []string
		code   int
		stdout string
		stderr string
		calls  int  // POST /predict/batch calls of a server before 1.7.0, on_error refused
		each   int  // POST /predict/batch calls of a server that answers each item
		stop   bool // without --continue-on-error
	}{
		{name: "JSON Lines", args: []string{"-f", mixed}, code: 8, stdout: mixedOut, stderr: mixedErr,
			calls: 4, each: 1}, // on_error, the refusals of lines 3 and 5, then the four good lines
		{name: "JSON Lines in chunks of 2", args: []string{"-f", mixed, "--chunk", "2"}, code: 8, stdout: mixedOut, stderr: mixedErr,
			calls: 6, each: 3}, // on_error, lines 1 and 3, then 1 alone, 4 and 5, then 4 alone, 6 and 8
		{name: "CSV", args: []string{"-f", badCSV}, code: 8,
			stdout: `{"line":2,"result":[{"label":"setosa","score":0.9816},...],"version":"v1"}` + "\n" +
				`{"error":{"code":"invalid_input","detail":"data: missing the feature \"sepal_width\" (features: sepal_length, sepal_width, petal_length, petal_width)","request_id":"...","status":400},"line":3}` + "\n" +
				`{"error":{"code":"invalid_line","detail":"` + badCSV + `: record on line 4: wrong number of fields"},"line":4}` + "\n" +
				`{"line":5,"result":[{"label":"virginica","score":0.9961},...],"version":"v1"}`,
			stderr: "inferctl: 400 invalid_input: items[1]: missing the feature \"sepal_width\"... (request ...); items[1] is item 2, line 3 of " + badCSV + "\n" +
				"inferctl: " + badCSV + ": record on line 4: wrong number of fields\n" +
				"inferctl: 2 of 4 items failed (lines 3 and 4 of " + badCSV + "); 2 answered",
			calls: 3, each: 1},
		{name: "CSV as a table", args: []string{"-f", badCSV, "-o", "table"}, code: 8,
			stdout: "ITEM  LINE  VERSION  RESULT\n" +
				"1     2     v1       [{\"label\":\"setosa\",\"score\":0.9816},...]\n" +
				"2     3     -        error: 400 invalid_input: data: missing the feature \"sepal_width\"... (request ...)\n" +
				"3     4     -        error: " + badCSV + ": record on line 4: wrong number of fields\n" +
				"4     5     v1       [{\"label\":\"virginica\",\"score\":0.9961},...]",
			stderr: "...\n...\ninferctl: 2 of 4 items failed (lines 3 and 4 of " + badCSV + "); 2 answered", calls: 3, each: 1},
		{name: "every item refused", args: []string{"-f", allRefused}, code: 3,
			stdout: `{"error":{"code":"invalid_input","detail":"data: expected 4 numbers, got 1","request_id":"...","status":400},"line":1}` + "\n" +
				`{"error":{"code":"invalid_input","detail":"data: expected 4 numbers, got 2","request_id":"...","status":400},"line":2}`,
			stderr: "...\n...\ninferctl: all 2 items of " + allRefused + " failed", calls: 3, each: 1},
		{name: "no line readable: nothing sent", args: []string{"-f", allUnreadable}, code: 2,
			stdout: `{"error":{"code":"invalid_line","detail":"` + allUnreadable + `:1 is not a JSON value: unexpected end of JSON input"},"line":1}` + "\n" +
				`{"error":{"code":"invalid_line","detail":"` + allUnreadable + `:2 is not a JSON value: unexpected end of JSON input"},"line":2}`,
			stderr: "...\n...\ninferctl: all 2 items of " + allUnreadable + " failed"},
		{name: "a refusal that names no item stops the run", model: "nope", args: []string{"-f", mixed, "--chunk", "2"}, code: 3,
			stderr: "inferctl: 400 model_not_found: ... (request ...); in items 1-3, lines 1-3 of " + mixed, calls: 2, each: 1},
		{name: "without the flag, the first unreadable line stops the run", args: []string{"-f", badCSV}, stop: true, code: 2,
			stderr: "inferctl: " + badCSV + ": record on line 4: wrong number of fields\n..."},
	}
	for _, before17 := range []bool{false, true} {
		s.before17.Store(before17)
		for _, tc := range tests {
			name, calls, stdout, stderr := tc.name, tc.each, tc.stdout, tc.stderr
			if before17 {
				name, calls = "before 1.7.0/"+name, tc.calls
			} else {
				// An item the server answered on its own comes without a request id.
				stdout = strings.ReplaceAll(stdout, `,"request_id":"...","status":400}`, `,"status":400}`)
				stderr = strings.ReplaceAll(stderr, " (request ...); items[", "; items[")
				stdout = strings.ReplaceAll(stdout, `"sepal_width"... (request ...)`, `"sepal_width"...`) // a table's cell
			}
			t.Run(name, func(t *testing.T) {
				model, args := cmp.Or(tc.model, "iris"), tc.args
				if !tc.stop {
					args = append(args, "--continue-on-error")
				}
				before := len(s.seen(http.MethodPost, "/predict/batch"))
				r := inferctl(t, env, "", append([]string{"batch", model, "--version", "v1"}, args...)...)
				if r.code != tc.code {
					t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
				}
				check(t, "stdout", stdout, r.stdout)
				check(t, "stderr", stderr, r.stderr)
				if got := len(s.seen(http.MethodPost, "/predict/batch")) - before; got != calls {
					t.Errorf("%d calls of /predict/batch, want %d", got, calls)
				}
			})
		}
	}
	s.before17.Store(false)
}

// TestBatchKeepsTheVersionThatAnswered sends flowers.csv to iris, whose routing
// sends one request in ten to the v2 canary, without --version and one item per
// request: every line names the version that answered it, and within a run it is
// the version routing picked for the first chunk.
func TestBatchKeepsTheVersionThatAnswered(t *testing.T) {
	s := startServer(t)
	env := []string{"INFERD_URL=" + s.URL, "INFERD_API_KEY=dev-key"}
	seen := map[string]int{}
	for run := range 10 {
		r := inferctl(t, env, "", "batch", "iris", "-f", "docs/examples/flowers.csv", "--chunk", "1")
		if r.code != 0 {
			t.Fatalf("run %d: exit %d: %s", run, r.code, r.stderr)
		}
		var versions []string
		for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			var out struct {
				Line    int             `json:"line"`
				Result  json.RawMessage `json:"result"`
				Version string          `json:"version"`
			}
			if err := json.Unmarshal([]byte(l), &out); err != nil || out.Line == 0 || len(out.Result) == 0 {
				t.Fatalf("run %d: %q: %v", run, l, err)
			}
			versions = append(versions, out.Version)
		}
		if len(versions) != 6 || len(slices.Compact(slices.Clone(versions))) != 1 {
			t.Fatalf("run %d: versions %q, want one for all 6 lines", run, versions)
		}
		if v := versions[0]; v != "v1" && v != "v2" {
			t.Fatalf("run %d: version %q", run, v)
		}
		seen[versions[0]]++
	}
	t.Logf("runs per version: %v", seen)
}
