// Command ogen uses the client that stock ogen generates from openapi.yaml (into
// ./client, by make check-generators) as an integrator would: it predicts with `data`,
// reads `result`, submits a job and reads its record, sends a batch with on_error
// continue and reads an answer's item_errors, and reads a problem's `code`.
// Built by make check-generators; run against the server INFERD_URL names.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/inferd/inferd/tools/generators/ogen/client"
	"github.com/inferd/inferd/tools/generators/shared"
)

// apiKey is the contract's security scheme, as ogen asks for it.
type apiKey string

func (k apiKey) ApiKeyAuth(context.Context, client.OperationName) (client.ApiKeyAuth, error) {
	return client.ApiKeyAuth{APIKey: string(k)}, nil
}

func main() {
	url, key := shared.Target()
	c, err := client.NewClient(url, apiKey(key))
	shared.Check(err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// predict with data, read result (jx.Raw: the bytes as sent, numbers exact)
	res, err := c.Predict(ctx, &client.PredictRequest{Model: "echo", Data: client.AnyValue(shared.Data)}, client.PredictParams{})
	shared.Check(err)
	p, ok := res.(*client.PredictionHeaders)
	if !ok {
		shared.Fail("predict answered %T, want a prediction", res)
	}
	shared.SameJSON("predict's result", []byte(p.Response.Result), shared.Data)

	// submit a job, read its record until it has finished
	sub, err := c.SubmitJob(ctx, &client.AsyncPredictRequest{Model: "echo", Data: client.AnyValue(shared.JobData)}, client.SubmitJobParams{})
	shared.Check(err)
	s, ok := sub.(*client.AsyncSubmitResponse)
	if !ok {
		shared.Fail("submitJob answered %T, want a job id", sub)
	}
	id := uuid.UUID(s.JobID).String()
	var job *client.JobRecord
	for job == nil || job.Status != client.JobStatusSucceeded {
		if job != nil && job.Status != client.JobStatusCreated && job.Status != client.JobStatusPending && job.Status != client.JobStatusRunning {
			shared.Fail("job %s is %s: %v", id, job.Status, job.ErrorMessage)
		}
		r, err := c.GetJob(ctx, client.GetJobParams{JobID: id, Wait: client.NewOptFloat64(5)})
		shared.Check(err)
		if job, ok = r.(*client.JobRecord); !ok {
			shared.Fail("getJob answered %T, want a job record", r)
		}
	}
	shared.SameJSON("the job's result", []byte(job.Result), shared.JobData)

	// a batch whose items fail alone: on_error continue; item_errors
	items := make([]client.AnyValue, len(shared.BatchItems))
	for i, it := range shared.BatchItems {
		items[i] = client.AnyValue(it)
	}
	br, err := c.PredictBatch(ctx, &client.BatchPredictRequest{Model: "echo", Items: items, OnError: client.NewOptBatchOnError(client.BatchOnErrorContinue)}, client.PredictBatchParams{})
	shared.Check(err)
	b, ok := br.(*client.BatchPredictionHeaders)
	if !ok || len(b.Response.Results) != len(items) || b.Response.ItemErrors != nil {
		shared.Fail("predictBatch with on_error continue answered %#v, want every item's result", br)
	}
	var continued client.BatchPrediction
	shared.Check(continued.UnmarshalJSON([]byte(shared.Continued)))
	if len(continued.ItemErrors) != 1 || string(continued.Results[1]) != "null" {
		shared.Fail("%s decodes as %+v", shared.Continued, continued)
	}
	e := continued.ItemErrors[0]
	shared.ItemError(e.Index, e.Status, e.Code, e.Detail)

	// a problem: its code
	res, err = c.Predict(ctx, &client.PredictRequest{Model: shared.NoSuchModel, Data: client.AnyValue(`1`)}, client.PredictParams{})
	shared.Check(err)
	bad, ok := res.(*client.PredictBadRequest)
	if !ok {
		shared.Fail("predict of an unknown model answered %T, want a 400 problem", res)
	}
	shared.Code(bad.Code)

	fmt.Fprintf(os.Stdout, "ogen: predict, job %s %s, batch on_error continue, problem %s\n", id, job.Status, bad.Code)
}
