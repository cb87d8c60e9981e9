package contractfuzz

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/inferd/inferd"
)

// TestBinaryRequests: the /v2 infer operations get bodies in the binary tensor data
// extension too, valid ones well formed (the header length ends the JSON, whose
// binary_data_size account for every byte after it) and every binary mistake among the
// rest; operations without it get none.
func TestBinaryRequests(t *testing.T) {
	spec, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	tgt := Target{
		Models: map[string][]string{"echo": {"v1"}, "iris": {"v1"}}, Keys: map[string]string{"predict": "p", "read_models": "r", "admin": "a"},
		AdminKey: "all", MaxRequestBytes: 1 << 16, MaxBatchItems: 64, Unserved: map[string]bool{},
	}
	g := New(spec, tgt, 7)
	binaryOps := 0
	for _, op := range Operations(spec) {
		reqs := g.Requests(op, 400)
		seen := map[string]int{}
		valid := 0
		for _, r := range reqs {
			hl := r.Header.Get(headerLength)
			// JSON sent as application/octet-stream without the header is no binary
			// request: tritonclient's asyncio client sends every /v2 POST so.
			if hl == "" && (r.Header.Get("Content-Type") != octetStream || !op.Binary) {
				continue
			}
			seen[r.What]++
			if !op.Binary {
				t.Fatalf("%s: a binary request for an operation that takes none: %s", op.ID, r)
			}
			if r.Kind != Valid || r.What != "" {
				continue
			}
			valid++
			n, err := strconv.Atoi(hl)
			if err != nil || n > len(r.Body) || r.Header.Get("Content-Type") != octetStream {
				t.Fatalf("%s: header length %q for %d bytes: %s", op.ID, hl, len(r.Body), r)
			}
			var h struct {
				Inputs []struct {
					Parameters map[string]json.RawMessage `json:"parameters"`
				} `json:"inputs"`
			}
			if err := json.Unmarshal(r.Body[:n], &h); err != nil {
				t.Fatalf("%s: the header is not JSON: %v: %s", op.ID, err, r)
			}
			sum := 0
			for _, in := range h.Inputs {
				if raw, ok := in.Parameters["binary_data_size"]; ok {
					k, _ := strconv.Atoi(string(raw))
					sum += k
				}
			}
			if sum != len(r.Body)-n {
				t.Fatalf("%s: binary_data_size add up to %d, %d bytes follow: %s", op.ID, sum, len(r.Body)-n, r)
			}
		}
		if !op.Binary {
			continue
		}
		binaryOps++
		if valid == 0 || !bytes.Contains([]byte(op.Path), []byte("/infer")) {
			t.Errorf("%s: %d valid binary requests", op.ID, valid)
		}
		for _, m := range binaryMutations() {
			if seen[m.name] == 0 {
				t.Errorf("%s: no request %q among %d", op.ID, m.name, len(reqs))
			}
		}
	}
	if binaryOps != 2 {
		t.Errorf("%d operations take binary tensor data, want the two /v2 infer ones", binaryOps)
	}
}
