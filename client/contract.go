package client

import "context"

// OpenAPIYAML returns the contract the server was built from, as YAML (GET
// /openapi.yaml, operation openapiYAML; no key needed).
func (c *Client) OpenAPIYAML(ctx context.Context) ([]byte, error) {
	resp, err := c.gen.OpenapiYAML(ctx)
	return readBytes(resp, err)
}

// OpenAPIJSON returns the same contract as JSON, every number as the YAML writes it
// (GET /openapi.json, operation openapiJSON; no key needed).
func (c *Client) OpenAPIJSON(ctx context.Context) ([]byte, error) {
	resp, err := c.gen.OpenapiJSON(ctx)
	return readBytes(resp, err)
}

// Docs returns the HTML page of Swagger UI over the contract (GET /docs, operation
// docs; no key needed). It is meant for browsers; the SDK has it so that every
// operation of the contract has a method.
func (c *Client) Docs(ctx context.Context) ([]byte, error) {
	resp, err := c.gen.Docs(ctx)
	return readBytes(resp, err)
}
