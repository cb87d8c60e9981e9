package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"
)

// devKey is the development key inferd serves with when no keys are configured.
const devKey = "dev-key"

var (
	echoBody = []byte(`{"model":"echo","version":"v1","data":{"text":"hello","n":42}}`)
	irisBody = []byte(`{"model":"iris","version":"v1","data":[5.1,3.5,1.4,0.2]}`)
	// irisV2Body is the same flower as an Open Inference Protocol infer request, the
	// ONNX model's input "input" of shape [1, 4].
	irisV2Body = []byte(`{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[5.1,3.5,1.4,0.2]}]}`)
	// digitsBody is one 8x8 image (a zero) of scikit-learn's digits, 64 values in 0..16.
	digitsBody = []byte(`{"model":"digits","version":"v1","data":[0,0,5,13,9,1,0,0,0,0,13,15,10,15,5,0,0,3,15,2,0,11,8,0,0,4,12,0,0,8,8,0,0,5,8,0,0,9,8,0,0,4,11,0,1,12,7,0,0,2,14,5,10,12,0,0,0,0,6,13,10,0,0,0]}`)
	// digitsPixels is the same image as the /v2 and gRPC cases send it, the ONNX
	// model's input "input" of shape [1, 64].
	digitsPixels = []float32{0, 0, 5, 13, 9, 1, 0, 0, 0, 0, 13, 15, 10, 15, 5, 0, 0, 3, 15, 2, 0, 11, 8, 0, 0, 4, 12, 0, 0, 8, 8, 0, 0, 5, 8, 0, 0, 9, 8, 0, 0, 4, 11, 0, 1, 12, 7, 0, 0, 2, 14, 5, 10, 12, 0, 0, 0, 0, 6, 13, 10, 0, 0, 0}
	asyncBody    = []byte(`{"model":"echo","data":{"text":"hello"}}`)
)

// batchOf is a /predict/batch body of n iris items.
func batchOf(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"iris","version":"v1","items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%.1f,%.1f,%.1f,%.1f]", 4.5+float64(i%30)/10, 3.0, 1.4+float64(i%40)/10, 0.2+float64(i%20)/10)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// jsonHeaders are a JSON request's headers.
var jsonHeaders = []Header{{"Content-Type", "application/json"}, {"X-API-Key", devKey}}

// keyHeaders are a bodiless request's.
var keyHeaders = []Header{{"X-API-Key", devKey}}

// do sends one request and reads the answer, into into when it is set.
func do(c *Conn, method, url string, body []byte, into any) error {
	if body != nil {
		return c.Do(method, url, jsonHeaders, body, into)
	}
	return c.Do(method, url, keyHeaders, nil, into)
}

// postOp posts body to url; each answer counts items model items.
func postOp(url string, body []byte, items int) Op {
	return func(_ context.Context, c *Conn) (int, error) {
		return items, do(c, http.MethodPost, url, body, nil)
	}
}

// getOp gets url, a request without a body.
func getOp(url string) Op {
	return func(_ context.Context, c *Conn) (int, error) {
		return 1, do(c, http.MethodGet, url, nil, nil)
	}
}

// job is the part of a job record the harness reads.
type job struct {
	JobID     string    `json:"job_id"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	StartedAt time.Time `json:"started_at"`
}

// jobWait is how long each long poll of a job asks the server to wait; below the
// client's timeout, and far above any job's run here, so a job takes one poll.
const jobWait = "10"

// runJob submits an echo job and long-polls it (GET /jobs/{id}?wait=) until it has
// succeeded: the server answers as the job finishes, so the poll's latency is the
// job's and a job costs the server two requests.
func runJob(ctx context.Context, c *Conn, base string) (job, error) {
	var j job
	if err := do(c, http.MethodPost, base+"/predict/async", asyncBody, &j); err != nil {
		return j, err
	}
	id := j.JobID
	for {
		if err := do(c, http.MethodGet, base+"/jobs/"+id+"?wait="+jobWait, nil, &j); err != nil {
			return j, err
		}
		switch j.Status {
		case "succeeded":
			return j, nil
		case "failed", "cancelled":
			return j, fmt.Errorf("job %s %s", id, j.Status)
		}
		if err := ctx.Err(); err != nil {
			return j, err
		}
	}
}

func jobOp(base string) Op {
	return func(ctx context.Context, c *Conn) (int, error) {
		_, err := runJob(ctx, c, base)
		return 1, err
	}
}

// served says whether the server at base serves model/version.
func served(base, model, version string) bool {
	c := NewConn(context.Background())
	defer c.Close()
	return do(c, http.MethodGet, base+"/models/"+model+"/"+version, nil, nil) == nil
}
