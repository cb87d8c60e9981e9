package client

import (
	"context"

	gen "github.com/inferd/inferd/gen/client"
)

// LoadedModels lists the pipelines in memory and the versions that failed to load
// (GET /debug/models/loaded, operation listLoadedModels; scope admin).
func (c *Client) LoadedModels(ctx context.Context) (*LoadedModelList, error) {
	resp, err := c.gen.ListLoadedModels(ctx)
	var out LoadedModelList
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Reload hot-reloads one version's pipeline (POST
// /admin/models/{name}/{version}/reload, operation reloadModel; scope admin). When the
// new pipeline fails to build, the old one keeps serving and the error has
// CodeReloadFailed.
func (c *Client) Reload(ctx context.Context, name, version string) (*ReloadResult, error) {
	resp, err := c.gen.ReloadModel(ctx, name, version)
	var out ReloadResult
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Explain runs one prediction of version (named: the path takes one) and answers its
// result with each step of the version's model graph: its outcome, its member call's
// duration and the tensors it was given and passed on (POST
// /admin/models/{name}/{version}/explain, operation explainPrediction; scope admin). A
// version that is not a graph has no steps.
func (c *Client) Explain(ctx context.Context, name, version string, data any) (*Explanation, error) {
	raw, err := encode("data", data)
	if err != nil {
		return nil, err
	}
	body, err := request(gen.ExplainRequest{Data: raw})
	if err != nil {
		return nil, err
	}
	resp, err := c.gen.ExplainPredictionWithBody(ctx, name, version, nil, contentJSON, body)
	var out Explanation
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Memory reports the memory measured per pipeline and the process totals (GET
// /admin/models/memory, operation modelMemory; scope admin).
func (c *Client) Memory(ctx context.Context) (*MemoryReport, error) {
	resp, err := c.gen.ModelMemory(ctx)
	var out MemoryReport
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// QueueUI returns the HTML page of the queue dashboard (GET /admin/queues, operation
// queueUI; scope admin). Outside queue mode it is an *Error with status 404.
func (c *Client) QueueUI(ctx context.Context) ([]byte, error) {
	resp, err := c.gen.QueueUI(ctx)
	return readBytes(resp, err)
}
