package httpapi_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestIdempotentSubmit covers the Idempotency-Key of both submit operations in
// process: a repeat answers the first job, another body or operation is 422, another
// API key has keys of its own, and a malformed key is 400.
func TestIdempotentSubmit(t *testing.T) {
	h := newHarness(t)
	send := func(path, apiKey, idemKey, body string) (int, string, string) {
		t.Helper()
		req := h.c.NewRequest(http.MethodPost, path, apiKey, body)
		req.Header.Set("Idempotency-Key", idemKey)
		resp := h.c.Do(req)
		var out struct {
			JobID string `json:"job_id"`
			Code  string `json:"code"`
		}
		resp.JSON(t, &out)
		return resp.Status, out.JobID, out.Code
	}
	status, first, _ := send("/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v1","data":{"a":1,"b":[1, 2]}}`)
	if status != http.StatusOK || first == "" {
		t.Fatalf("first submission: %d %q", status, first)
	}
	tests := []struct {
		name, path, apiKey, idemKey, body string
		wantStatus                        int
		wantCode                          string
		wantFirst                         bool
	}{
		{"repeat", "/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v1","data":{"a":1,"b":[1, 2]}}`, http.StatusOK, "", true},
		{"repeat with other spacing and member order", "/predict/async", keyPredict, "order-1", `{"data":{"a":1,"b":[1,2]},"version":"v1","model":"echo"}`, http.StatusOK, "", true},
		{"repeat with the key as a structured-field string", "/predict/async", keyPredict, `"order-1"`, `{"model":"echo","version":"v1","data":{"a":1,"b":[1,2]}}`, http.StatusOK, "", true},
		{"another body", "/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v1","data":{"a":2,"b":[1,2]}}`, http.StatusUnprocessableEntity, "idempotency_key_reused", false},
		{"repeat naming the default priority", "/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v1","data":{"a":1,"b":[1,2]},"priority":"normal"}`, http.StatusOK, "", true},
		{"another priority", "/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v1","data":{"a":1,"b":[1,2]},"priority":"high"}`, http.StatusUnprocessableEntity, "idempotency_key_reused", false},
		{"a deadline", "/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v1","data":{"a":1,"b":[1,2]},"deadline":"2099-01-01T00:00:00Z"}`, http.StatusUnprocessableEntity, "idempotency_key_reused", false},
		{"another version", "/predict/async", keyPredict, "order-1", `{"model":"echo","version":"v2","data":{"a":1,"b":[1,2]}}`, http.StatusUnprocessableEntity, "idempotency_key_reused", false},
		{"the other operation", "/predict/async/batch", keyPredict, "order-1", `{"model":"echo","version":"v1","items":[{"a":1,"b":[1,2]}]}`, http.StatusUnprocessableEntity, "idempotency_key_reused", false},
		{"another API key", "/predict/async", keyOther, "order-1", `{"model":"echo","version":"v1","data":{"a":1,"b":[1,2]}}`, http.StatusOK, "", false},
		{"a key of its own", "/predict/async", keyPredict, "order-2", `{"model":"echo","version":"v1","data":{"a":1,"b":[1,2]}}`, http.StatusOK, "", false},
		{"not ASCII", "/predict/async", keyPredict, "ordér", `{"model":"echo","data":1}`, http.StatusBadRequest, "invalid_request", false},
		{"too long", "/predict/async", keyPredict, strings.Repeat("k", 258), `{"model":"echo","data":1}`, http.StatusBadRequest, "invalid_request", false},
		{"an unclosed string", "/predict/async", keyPredict, `"order-1`, `{"model":"echo","data":1}`, http.StatusBadRequest, "invalid_request", false},
		{"the longest", "/predict/async", keyPredict, `"` + strings.Repeat("k", 255) + `"`, `{"model":"echo","data":1}`, http.StatusOK, "", false},
		{"an empty string", "/predict/async", keyPredict, `""`, `{"model":"echo","data":1}`, http.StatusBadRequest, "invalid_request", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, id, code := send(tt.path, tt.apiKey, tt.idemKey, tt.body)
			if status != tt.wantStatus || code != tt.wantCode {
				t.Fatalf("status %d code %q, want %d %q", status, code, tt.wantStatus, tt.wantCode)
			}
			if status == http.StatusOK && (id == first) != tt.wantFirst {
				t.Fatalf("job %s; first was %s, want the first: %v", id, first, tt.wantFirst)
			}
		})
	}
	t.Run("batch", func(t *testing.T) {
		body := `{"model":"echo","items":[1,"two",null]}`
		_, a, _ := send("/predict/async/batch", keyPredict, "batch-1", body)
		status, b, _ := send("/predict/async/batch", keyPredict, "batch-1", body)
		if status != http.StatusOK || a != b || a == "" {
			t.Fatalf("repeat: %d, jobs %q and %q", status, a, b)
		}
		if rec := waitFinal(t, h.c, a); rec.Status != "succeeded" {
			t.Fatalf("the job ended %s", rec.Status)
		}
	})
}

// TestIdempotencyByValue: a repeat under one Idempotency-Key is the same submission
// when its body holds the same JSON values, however an encoder spelled them, and
// another one when a value differs. Each pair is sent under a key of its own, the
// second after the first has answered.
func TestIdempotencyByValue(t *testing.T) {
	h := newHarness(t)
	send := func(path, idemKey, body string) (int, string, string) {
		t.Helper()
		req := h.c.NewRequest(http.MethodPost, path, keyPredict, body)
		req.Header.Set("Idempotency-Key", idemKey)
		resp := h.c.Do(req)
		var out struct {
			JobID string `json:"job_id"`
			Code  string `json:"code"`
		}
		resp.JSON(t, &out)
		return resp.Status, out.JobID, out.Code
	}
	const single, batch = "/predict/async", "/predict/async/batch"
	tests := []struct {
		name, path, first, second string
		same                      bool
	}{
		{"an escaped letter", single, `{"model":"echo","data":"A"}`, `{"model":"echo","data":"\u0041"}`, true},
		{"an escaped slash and unicode", single, `{"model":"echo","data":{"url":"a/b","name":"é"}}`, `{"model":"echo","data":{"url":"a\/b","name":"\u00e9"}}`, true},
		{"a surrogate pair", single, `{"model":"echo","data":"😀"}`, `{"model":"echo","data":"\ud83d\ude00"}`, true},
		{"an escaped member name", single, `{"model":"echo","data":{"a":1}}`, `{"model":"echo","data":{"\u0061":1}}`, true},
		{"member order inside data", single, `{"model":"echo","data":{"a":1,"b":{"x":true,"y":null}}}`, `{"model":"echo","data":{"b":{"y":null,"x":true},"a":1}}`, true},
		{"whitespace inside data", single, `{"model":"echo","data":[1,{"a":"b"}]}`, "{\"model\":\"echo\",\"data\":[ 1 ,\n {\"a\" : \"b\"} ]}", true},
		{"1 and 1.0", single, `{"model":"echo","data":[1,100,0.5]}`, `{"model":"echo","data":[1.0,100.0,0.5]}`, true},
		{"1 and 1e0", single, `{"model":"echo","data":1}`, `{"model":"echo","data":1e0}`, true},
		{"100 and 1E+2", single, `{"model":"echo","data":100}`, `{"model":"echo","data":1E+2}`, true},
		{"0 and -0", single, `{"model":"echo","data":0}`, `{"model":"echo","data":-0.0}`, true},
		{"a number beyond a double, respelled", single, `{"model":"echo","data":12345678901234567890}`, `{"model":"echo","data":1.234567890123456789e19}`, true},
		{"on_error fail, said", batch, `{"model":"echo","items":[1]}`, `{"model":"echo","items":[1],"on_error":"fail"}`, true},
		{"on_error continue", batch, `{"model":"echo","items":[1]}`, `{"model":"echo","items":[1],"on_error":"continue"}`, false},
		{"on_error continue, then fail", batch, `{"model":"echo","items":[1],"on_error":"continue"}`, `{"model":"echo","items":[1]}`, false},
		{"items respelled", batch, `{"model":"echo","items":["A",{"a":1,"b":2},1]}`, `{"model":"echo","items":["\u0041",{"b":2,"a":1.0},1e0]}`, true},
		{"another letter", single, `{"model":"echo","data":"A"}`, `{"model":"echo","data":"B"}`, false},
		{"a number beyond a double, one apart", single, `{"model":"echo","data":12345678901234567890}`, `{"model":"echo","data":12345678901234567891}`, false},
		{"numbers one double apart", single, `{"model":"echo","data":9007199254740993}`, `{"model":"echo","data":9007199254740992}`, false},
		{"1 and 1.0000000000000000001", single, `{"model":"echo","data":1}`, `{"model":"echo","data":1.0000000000000000001}`, false},
		{"a string and a number", single, `{"model":"echo","data":"1"}`, `{"model":"echo","data":1}`, false},
		{"array order", single, `{"model":"echo","data":[1,2]}`, `{"model":"echo","data":[2,1]}`, false},
		{"items order", batch, `{"model":"echo","items":[1,2]}`, `{"model":"echo","items":[2,1]}`, false},
		{"a member more", single, `{"model":"echo","data":{"a":1}}`, `{"model":"echo","data":{"a":1,"b":null}}`, false},
		{"values swapped between members", single, `{"model":"echo","data":{"a":1,"b":2}}`, `{"model":"echo","data":{"a":2,"b":1}}`, false},
		{"a lone surrogate and the replacement character", single, `{"model":"echo","data":"\ud800"}`, `{"model":"echo","data":"\ufffd"}`, false},
		{"composed and decomposed é", single, `{"model":"echo","data":"\u00e9"}`, `{"model":"echo","data":"e\u0301"}`, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := "by-value-" + strconv.Itoa(i)
			status, first, code := send(tt.path, key, tt.first)
			if status != http.StatusOK {
				t.Fatalf("first submission: %d %s", status, code)
			}
			status, again, code := send(tt.path, key, tt.second)
			switch {
			case tt.same && (status != http.StatusOK || again != first):
				t.Fatalf("repeat: %d %s, job %q; want 200 with the first job %s", status, code, again, first)
			case !tt.same && (status != http.StatusUnprocessableEntity || code != "idempotency_key_reused"):
				t.Fatalf("another body: %d %s, job %q; want 422 idempotency_key_reused", status, code, again)
			}
		})
	}
}
