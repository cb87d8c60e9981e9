// Package client is the Go SDK of inferd: one method per operation of the contract
// (openapi.yaml), typed answers, one error type for every refusal, and WaitJob for
// asynchronous jobs. It is a thin layer over the generated package
// github.com/inferd/inferd/gen/client, whose types it re-exports.
//
//	c, err := client.New("http://localhost:8080", client.WithAPIKey("dev-key"))
//	if err != nil {
//		return err
//	}
//	p, err := c.Predict(ctx, client.PredictRequest{Model: "iris", Data: []float64{5.1, 3.5, 1.4, 0.2}})
//	switch {
//	case client.IsCode(err, client.CodeModelNotFound):
//		// the registry has no such model: GET /models lists those it has
//	case err != nil:
//		return err // an *Error for every non-2xx answer, with its request id
//	}
//	fmt.Printf("%s %s: %s\n", p.Model, p.Version, p.Result)
//
// Inputs are any value encoding/json can encode; a json.RawMessage (or json.Number)
// keeps its values as written (only insignificant whitespace goes), so integers beyond float64's range arrive intact. Results are
// json.RawMessage for the same reason: decode them into the type the model returns.
//
// Job ids are plain strings everywhere. Submit and SubmitBatch return one; WaitJob
// long-polls it (the server answers as the job finishes) until the job has succeeded,
// failed or been cancelled, and a job that did not succeed comes back as a *JobError carrying the
// record.
package client
