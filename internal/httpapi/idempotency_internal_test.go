package httpapi

import (
	"encoding/json"
	"testing"
)

// TestTextFingerprint pins the fingerprint servers before 1.7.0 took (of the body's
// text, compacted), which the keys they recorded in Redis hold: a change to it would
// refuse their repeats after an upgrade.
func TestTextFingerprint(t *testing.T) {
	const want = "dd4f1c06817ce01d920e5ba80919ebde0a7368eaf22b1252e97729edfcc64e4a"
	if got := textFingerprint("submitJob", "echo", "v1", json.RawMessage(` { "order" : 7731 } `)); got != want {
		t.Fatalf("textFingerprint = %s, want %s", got, want)
	}
	// The whole key, as submit completes it for the default priority and no deadline
	// or callback.
	const whole = "805d83db086acbc6076d41df48700d7d7d0dcb986eb2d9ac2d4f2443f92b253f"
	if got := digest(nil, want, "normal", ""); got != whole {
		t.Fatalf("the whole fingerprint = %s, want %s", got, whole)
	}
	if fingerprint("submitJob", "echo", "v1", json.RawMessage(`{"order":7731}`)) == want {
		t.Fatal("the fingerprint by value is the one by text: the two rules cannot be told apart")
	}
}

// BenchmarkFingerprint: a submission's fingerprint by value against the one by text
// that servers before 1.7.0 took, for a 1,000-item batch of iris's named features.
func BenchmarkFingerprint(b *testing.B) {
	item := `{"sepal_length":5.1,"sepal_width":3.5,"petal_length":1.4,"petal_width":0.2}`
	items := "[" + item
	for range 999 {
		items += "," + item
	}
	raw := json.RawMessage(items + "]")
	for _, bb := range []struct {
		name string
		f    func(op, model, version string, input json.RawMessage) string
	}{{"value", fingerprint}, {"text", textFingerprint}} {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				bb.f("submitBatchJob", "iris", "v1", raw)
			}
		})
	}
}
