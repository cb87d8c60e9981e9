// Package webhook delivers completion callbacks: it signs a job's final record as the
// Standard Webhooks specification describes, posts it only to hosts an operator allows
// (checked again on the address actually dialed, so DNS cannot steer it elsewhere),
// and retries from the stores' queue of due callbacks until it is delivered or too old.
package webhook
