package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/inferd/inferd/client"
)

// A synchronous prediction, and an error read through IsCode.
func Example() {
	ctx := context.Background()
	c, err := client.New("http://localhost:8080", client.WithAPIKey("dev-key"))
	if err != nil {
		log.Fatal(err)
	}
	p, err := c.Predict(ctx, client.PredictRequest{Model: "iris", Version: "v1", Data: []float64{5.1, 3.5, 1.4, 0.2}})
	switch {
	case client.IsCode(err, client.CodeModelNotFound):
		log.Fatal("no iris model here; GET /models lists the models")
	case err != nil:
		log.Fatal(err)
	}
	var ranked []struct {
		Label string  `json:"label"`
		Score float64 `json:"score"`
	}
	if err := json.Unmarshal(p.Result, &ranked); err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Version, ranked[0].Label)
}

// A background job: submit, then wait for it with backoff.
func ExampleClient_WaitJob() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.New("http://localhost:8080", client.WithAPIKey("dev-key"))
	if err != nil {
		log.Fatal(err)
	}
	id, err := c.SubmitBatch(ctx, client.BatchRequest{Model: "echo", Items: []any{1, "two", nil}})
	if err != nil {
		log.Fatal(err)
	}
	rec, err := c.WaitJob(ctx, id, client.WaitOptions{Max: time.Second})
	var failed *client.JobError
	if errors.As(err, &failed) {
		log.Fatalf("job %s ended %s", id, failed.Record.Status)
	} else if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", rec.Result)
}

// Every refusal is an *Error carrying the problem the server sent.
func ExampleError() {
	c, err := client.New("http://localhost:8080") // no key
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.Models(context.Background())
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Code, e.RequestID != "")
	}
}
