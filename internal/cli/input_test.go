package cli

import (
	"strings"
	"testing"
)

func TestReadJSONLines(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  []string
		lines []int
		err   string
	}{
		{"values", "1\n\"two\"\nnull\n", []string{`1`, `"two"`, `null`}, []int{1, 2, 3}, ""},
		{"spaces compacted, digits kept", "{ \"n\" : 12345678901234567890 , \"f\": 1.50 }\n", []string{`{"n":12345678901234567890,"f":1.50}`}, []int{1}, ""},
		{"blank lines and CRLF", "1\r\n\r\n  \n2", []string{`1`, `2`}, []int{1, 4}, ""},
		{"not JSON", "1\n{oops\n", nil, nil, "f:2 is not a JSON value"},
		{"two values on a line", "1 2\n", nil, nil, "f:1 is not a JSON value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			its, err := readJSONLines(strings.NewReader(tc.in), "f")
			checkItems(t, its, err, tc.want, tc.lines, tc.err)
		})
	}
}

func TestReadCSV(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  []string
		lines []int
		err   string
	}{
		{"numbers as numbers", "a,b,c\n5.1,x,-2e3\n", []string{`{"a":5.1,"b":"x","c":-2e3}`}, []int{2}, ""},
		{"not quite numbers stay strings", "a,b,c,d\n01,1.,NaN,+1\n", []string{`{"a":"01","b":"1.","c":"NaN","d":"+1"}`}, []int{2}, ""},
		{"empty cells left out", "a,b\n,2\n", []string{`{"b":2}`}, []int{2}, ""},
		{"quotes and escapes", "a,b\n\"x, \"\"y\"\"\",\"<&>\"\n", []string{`{"a":"x, \"y\"","b":"<&>"}`}, []int{2}, ""},
		{"byte-order mark and spaces", "\ufeffa, b\n 1, 2\n", []string{`{"a":1,"b":2}`}, []int{2}, ""},
		{"quoted newline keeps line numbers", "a\n\"x\ny\"\n3\n", []string{`{"a":"x\ny"}`, `{"a":3}`}, []int{2, 4}, ""},
		{"ragged row", "a,b\n1\n", nil, nil, "wrong number of fields"},
		{"repeated header", "a,a\n1,2\n", nil, nil, "f:1: column 2 of the header is empty or repeated"},
		{"empty", "", nil, nil, "f is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			its, err := readCSV(strings.NewReader(tc.in), "f")
			checkItems(t, its, err, tc.want, tc.lines, tc.err)
		})
	}
}

func checkItems(t *testing.T, its *items, err error, want []string, lines []int, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want one containing %q", err, wantErr)
		}
		if exitCode(err) != ExitUsage {
			t.Errorf("exit code %d for %v, want %d", exitCode(err), err, ExitUsage)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(its.values) != len(want) {
		t.Fatalf("%d items, want %d", len(its.values), len(want))
	}
	for i := range want {
		if string(its.values[i]) != want[i] || its.lines[i] != lines[i] {
			t.Errorf("item %d: %s (line %d), want %s (line %d)", i, its.values[i], its.lines[i], want[i], lines[i])
		}
	}
}
