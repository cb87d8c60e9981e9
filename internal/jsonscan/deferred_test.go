package jsonscan

import (
	"encoding/json"
	"testing"
)

func TestCheckDeferring(t *testing.T) {
	tests := []struct {
		name, raw string
		min       int
		spans     []Span
		err       bool
	}{
		{"data deferred", `{"shape":[3],"data":[1,2,3]}`, 7, []Span{{20, 27}}, false},
		{"short arrays checked", `{"shape":[3],"data":[1,2,3]}`, 8, nil, false},
		{"deferred unchecked", `{"data":[1,,x}]}`, 2, []Span{{8, 15}}, false},
		{"empty then other", `{"data":[],"x":[[1]]}`, 2, []Span{{8, 10}}, false},
		{"rows deferred", `{"data":[[1,2],[3,4],[]]}`, 2, []Span{{9, 14}, {15, 20}, {21, 23}}, false},
		{"only data", `{"shape":[3,4],"data":[]}`, 2, []Span{{22, 24}}, false},
		{"only in data", `{"data":[[1,2]],"x":[[1,2]]}`, 2, []Span{{9, 14}}, false},
		{"escaped name", `{"d\u0061ta":[1,2]}`, 2, nil, false},
		{"strings not flat", `{"data":["a]",1]}`, 2, nil, false},
		{"error after", `{"data":[1,2],"a":1,"a":2}`, 2, nil, true},
		{"error outside", `{"data":[1,2],}`, 2, nil, true},
		{"unclosed", `{"data":[1,2`, 2, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans, err := CheckDeferring([]byte(tt.raw), tt.min)
			if (err != nil) != tt.err || len(spans) != len(tt.spans) {
				t.Fatalf("CheckDeferring = %v, %v; want %v, error %v", spans, err, tt.spans, tt.err)
			}
			for i, s := range spans {
				if s != tt.spans[i] {
					t.Errorf("span %d = %v (%s), want %v", i, s, tt.raw[s.Start:s.End], tt.spans[i])
				}
			}
		})
	}
}

// FuzzCheckDeferring: CheckDeferring refuses only what Check refuses, and what it
// accepts is valid exactly when each span is, each a value that ValueEnd delimits
// the same.
func FuzzCheckDeferring(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s), 2)
	}
	f.Add([]byte(`{"data":[1,,x}]}`), 2)
	f.Add([]byte(`{"data":[[1,2],[3,4],[],[5 6]],"a":{"data":[}]}}`), 3)
	f.Fuzz(func(t *testing.T, raw []byte, min int) {
		spans, err := CheckDeferring(raw, min)
		check := Check(raw)
		if err != nil {
			if check == nil {
				t.Fatalf("CheckDeferring(%q, %d) = %v, Check accepts it", raw, min, err)
			}
			return
		}
		valid := true
		for _, s := range spans {
			if s.End-s.Start < max(min, 2) || raw[s.Start] != '[' || ValueEnd(raw, s.Start) != s.End {
				t.Fatalf("CheckDeferring(%q, %d): span %v is no flat array of %d bytes or more", raw, min, s, min)
			}
			if !json.Valid(raw[s.Start:s.End]) {
				valid = false
			}
		}
		if valid != (check == nil) {
			t.Fatalf("CheckDeferring(%q, %d) = %v, its spans valid: %v; Check says %v", raw, min, spans, valid, check)
		}
	})
}
