package client

import "context"

// Models lists every model version the registry knows, loaded or not (GET /models,
// operation listModels; scope read_models).
func (c *Client) Models(ctx context.Context) (*ModelList, error) {
	resp, err := c.gen.ListModels(ctx)
	var out ModelList
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Model returns one version's metadata: status, tensors, steps, routing (GET
// /models/{name}/{version}, operation getModel; scope read_models). An unknown name
// or version is an *Error with status 404.
func (c *Client) Model(ctx context.Context, name, version string) (*ModelMetadata, error) {
	resp, err := c.gen.GetModel(ctx, name, version)
	var out ModelMetadata
	if err := read(resp, err, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
