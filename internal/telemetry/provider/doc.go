// Package provider builds the tracer provider the OTEL_* settings ask for: an OTLP
// or console exporter, or tracing off. It is apart from package telemetry, whose span
// helpers and attribute names the model pipeline uses, so that what links the
// pipeline (inferctl's check of model.yaml) does not link the exporters and gRPC.
package provider
