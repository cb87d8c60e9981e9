package cli

import (
	"strings"
	"testing"
)

func TestWriteTable(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"object", `{"name":"echo","version":"v1","error":null,"ok":true}`,
			"FIELD    VALUE\nname     echo\nversion  v1\nerror    -\nok       true\n"},
		{"array of objects, columns in first-seen order", `{"models":[{"name":"a","version":"v1"},{"name":"b","extra":1}]}`,
			"NAME  VERSION  EXTRA\na     v1       -\nb     -        1\n"},
		{"nested objects flattened, arrays of scalars as JSON", `{"routing":{"strategy":"weighted","weights":{"v1":90}},"versions":["v1","v2"],"failed":[]}`,
			"FIELD               VALUE\nrouting.strategy    weighted\nrouting.weights.v1  90\nversions            [\"v1\",\"v2\"]\nfailed              []\n"},
		{"fields then sections", `{"a":1,"rows":[{"x":{"k":[1,2]}}],"more":[{"y":"z"}]}`,
			"FIELD  VALUE\na      1\n\nROWS:\nX\n{\"k\":[1,2]}\n\nMORE:\nY\nz\n"},
		{"numbers keep their digits", `{"n":12345678901234567890}`, "FIELD  VALUE\nn      12345678901234567890\n"},
		{"a scalar", `"text with\nnewline"`, "text with newline\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := writeTable(&b, []byte(tc.in)); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestMarshalKeepsOrderAndCharacters(t *testing.T) {
	got, err := marshal(struct {
		B string `json:"b"`
		A any    `json:"a"`
	}{"<&>", []byte(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"b":"<&>","a":null}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
