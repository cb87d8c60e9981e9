// Command oapi-codegen uses the client that stock oapi-codegen generates from
// openapi.yaml (`-generate types,client`, no config; into ./client, by make
// check-generators) as an integrator would: it predicts with `data`, reads `result`,
// submits a job and reads its record, sends a batch with on_error continue and reads an
// answer's item_errors, and reads a problem's `code`. Built by make
// check-generators; run against the server INFERD_URL names.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/inferd/inferd/tools/generators/oapi-codegen/client"
	"github.com/inferd/inferd/tools/generators/shared"
)

func main() {
	url, key := shared.Target()
	c, err := client.NewClientWithResponses(url, client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-API-Key", key)
		return nil
	}))
	shared.Check(err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// predict with data, read result (json.RawMessage: the bytes as sent, numbers exact)
	p, err := c.PredictWithResponse(ctx, nil, client.PredictRequest{Model: "echo", Data: client.AnyValue(shared.Data)})
	shared.Check(err)
	if p.JSON200 == nil {
		shared.Fail("predict answered %d %s, want a prediction", p.StatusCode(), p.Body)
	}
	shared.SameJSON("predict's result", p.JSON200.Result, shared.Data)

	// submit a job, read its record until it has finished
	sub, err := c.SubmitJobWithResponse(ctx, nil, client.AsyncPredictRequest{Model: "echo", Data: client.AnyValue(shared.JobData)})
	shared.Check(err)
	if sub.JSON200 == nil {
		shared.Fail("submitJob answered %d %s, want a job id", sub.StatusCode(), sub.Body)
	}
	id := sub.JSON200.JobId.String()
	wait := float32(5)
	var job *client.JobRecord
	for job == nil || job.Status != client.JobStatusSucceeded {
		if job != nil && job.Status != client.JobStatusCreated && job.Status != client.JobStatusPending && job.Status != client.JobStatusRunning {
			shared.Fail("job %s is %s: %v", id, job.Status, job.ErrorMessage)
		}
		r, err := c.GetJobWithResponse(ctx, id, &client.GetJobParams{Wait: &wait})
		shared.Check(err)
		if job = r.JSON200; job == nil {
			shared.Fail("getJob answered %d %s, want a job record", r.StatusCode(), r.Body)
		}
	}
	shared.SameJSON("the job's result", job.Result, shared.JobData)

	// a batch whose items fail alone: on_error continue; item_errors
	onError := client.Continue
	items := make([]client.AnyValue, len(shared.BatchItems))
	for i, it := range shared.BatchItems {
		items[i] = client.AnyValue(it)
	}
	b, err := c.PredictBatchWithResponse(ctx, nil, client.BatchPredictRequest{Model: "echo", Items: items, OnError: &onError})
	shared.Check(err)
	if b.JSON200 == nil || len(b.JSON200.Results) != len(items) || b.JSON200.ItemErrors != nil {
		shared.Fail("predictBatch with on_error continue answered %d %s, want every item's result", b.StatusCode(), b.Body)
	}
	var continued client.BatchPrediction
	shared.Check(json.Unmarshal([]byte(shared.Continued), &continued))
	if len(continued.ItemErrors) != 1 || string(continued.Results[1]) != "null" {
		shared.Fail("%s decodes as %+v", shared.Continued, continued)
	}
	e := continued.ItemErrors[0]
	shared.ItemError(e.Index, e.Status, e.Code, e.Detail)

	// a problem: its code
	bad, err := c.PredictWithResponse(ctx, nil, client.PredictRequest{Model: shared.NoSuchModel, Data: client.AnyValue(`1`)})
	shared.Check(err)
	if bad.ApplicationproblemJSON400 == nil {
		shared.Fail("predict of an unknown model answered %d %s, want a 400 problem", bad.StatusCode(), bad.Body)
	}
	shared.Code(bad.ApplicationproblemJSON400.Code)

	fmt.Fprintf(os.Stdout, "oapi-codegen: predict, job %s %s, batch on_error continue, problem %s\n", id, job.Status, bad.ApplicationproblemJSON400.Code)
}
