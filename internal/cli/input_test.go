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
		bad   map[int]string // with keepGoing: the unreadable items, by index
	}{
		{"values", "1\n\"two\"\nnull\n", []string{`1`, `"two"`, `null`}, []int{1, 2, 3}, "", nil},
		{"spaces compacted, digits kept", "{ \"n\" : 12345678901234567890 , \"f\": 1.50 }\n", []string{`{"n":12345678901234567890,"f":1.50}`}, []int{1}, "", nil},
		{"blank lines and CRLF", "1\r\n\r\n  \n2", []string{`1`, `2`}, []int{1, 4}, "", nil},
		{"not JSON", "1\n{oops\n", nil, nil, "f:2 is not a JSON value", nil},
		{"two values on a line", "1 2\n", nil, nil, "f:1 is not a JSON value", nil},
		{"keep going past lines that are not JSON", "1\n{oops\n\n3 4\n5\n", []string{`1`, ``, ``, `5`}, []int{1, 2, 4, 5}, "",
			map[int]string{1: "f:2 is not a JSON value", 2: "f:4 is not a JSON value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			its, err := readJSONLines(strings.NewReader(tc.in), "f", tc.bad != nil)
			checkItems(t, its, err, tc.want, tc.lines, tc.err, tc.bad)
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
		bad   map[int]string // with keepGoing: the unreadable items, by index
	}{
		{"numbers as numbers", "a,b,c\n5.1,x,-2e3\n", []string{`{"a":5.1,"b":"x","c":-2e3}`}, []int{2}, "", nil},
		{"not quite numbers stay strings", "a,b,c,d\n01,1.,NaN,+1\n", []string{`{"a":"01","b":"1.","c":"NaN","d":"+1"}`}, []int{2}, "", nil},
		{"empty cells left out", "a,b\n,2\n", []string{`{"b":2}`}, []int{2}, "", nil},
		{"quotes and escapes", "a,b\n\"x, \"\"y\"\"\",\"<&>\"\n", []string{`{"a":"x, \"y\"","b":"<&>"}`}, []int{2}, "", nil},
		{"byte-order mark and spaces", "\ufeffa, b\n 1, 2\n", []string{`{"a":1,"b":2}`}, []int{2}, "", nil},
		{"quoted newline keeps line numbers", "a\n\"x\ny\"\n3\n", []string{`{"a":"x\ny"}`, `{"a":3}`}, []int{2, 4}, "", nil},
		{"ragged row", "a,b\n1\n", nil, nil, "wrong number of fields", nil},
		{"repeated header", "a,a\n1,2\n", nil, nil, "f:1: column 2 of the header is empty or repeated", nil},
		{"empty", "", nil, nil, "f is empty", nil},
		{"keep going past ragged rows and stray quotes", "a,b\n1,2\n3\n4,x\"y\n5,6\n\"7,8\n9,10\n", []string{`{"a":1,"b":2}`, ``, ``, `{"a":5,"b":6}`, ``}, []int{2, 3, 4, 5, 6}, "",
			map[int]string{1: "f: record on line 3: wrong number of fields", 2: "f: parse error on line 4", 4: "f: record on line 6; parse error on line 7"}},
		{"a bad header stops even so", "a,a\n1,2\n", nil, nil, "column 2 of the header", map[int]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			its, err := readCSV(strings.NewReader(tc.in), "f", tc.bad != nil)
			checkItems(t, its, err, tc.want, tc.lines, tc.err, tc.bad)
		})
	}
}

func checkItems(t *testing.T, its *items, err error, want []string, lines []int, wantErr string, bad map[int]string) {
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
	if len(its.unreadable) != len(bad) {
		t.Errorf("unreadable %v, want %v", its.unreadable, bad)
	}
	for i, w := range bad {
		if e := its.unreadable[i]; e == nil || !strings.Contains(e.Error(), w) || exitCode(e) != ExitUsage {
			t.Errorf("item %d: unreadable %v, want a usage error containing %q", i, e, w)
		}
	}
}
