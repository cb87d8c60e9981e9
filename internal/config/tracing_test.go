package config_test

import (
	"strings"
	"testing"
)

// TestTraces: tracing is off unless the OTEL_* settings ask for it, and what asks.
func TestTraces(t *testing.T) {
	const endpoint = "http://collector:4318"
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"nothing set: off", nil, ""},
		{"an endpoint: otlp", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}, "otlp"},
		{"a traces endpoint: otlp", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": endpoint + "/v1/traces"}, "otlp"},
		{"otlp named, no endpoint: the SDK's default", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, "otlp"},
		{"console", map[string]string{"OTEL_TRACES_EXPORTER": "console", "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}, "console"},
		{"none beats an endpoint", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}, ""},
		{"OTEL_SDK_DISABLED beats all", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(tt.env, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Traces(); got != tt.want {
				t.Errorf("Traces() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBadTracingSettings(t *testing.T) {
	tests := []struct {
		name, value, want string
	}{
		{"OTEL_TRACES_EXPORTER", "jaeger", "want otlp, console, none"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318", "absolute http(s) URL"},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "grpc://collector:4317", "absolute http(s) URL"},
		{"OTEL_TRACES_SAMPLER", "sometimes", "parentbased_always_on"},
		{"OTEL_TRACES_SAMPLER_ARG", "1.5", "from 0 to 1"},
		{"OTEL_SDK_DISABLED", "yes please", "true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(map[string]string{tt.name: tt.value}, nil)
			if err == nil || !strings.Contains(err.Error(), tt.name) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s=%q: error %v, want one naming it and saying %q", tt.name, tt.value, err, tt.want)
			}
		})
	}
}
