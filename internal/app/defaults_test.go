package app_test

import (
	"testing"

	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/httpapi"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/job/inproc"
	"github.com/inferd/inferd/internal/job/queue"
	"github.com/inferd/inferd/internal/job/redisstore"
	"github.com/inferd/inferd/internal/ratelimit"
	"github.com/inferd/inferd/internal/repository"
	"github.com/inferd/inferd/internal/telemetry/provider"
	"github.com/inferd/inferd/internal/webhook"
)

// TestConfigDefaultsAgree: config states the defaults of settings whose package also
// applies one to its own zero options, so that config links none of those packages;
// the two must agree, or a setting left unset and an option left zero would differ.
func TestConfigDefaultsAgree(t *testing.T) {
	tests := []struct {
		name         string
		config, pkgs any
	}{
		{"MAX_REQUEST_BYTES", config.DefaultMaxRequestBytes, httpapi.DefaultMaxRequestBytes},
		{"MAX_BATCH_ITEMS", config.DefaultMaxBatchItems, httpapi.DefaultMaxBatchItems},
		{"MAX_RESPONSE_BYTES", config.ResponseBytesPerRequestByte, httpapi.ResponseBytesPerRequestByte},
		{"RATE_LIMIT_RPS", config.DefaultRateLimitRPS, ratelimit.DefaultRPS},
		{"JOB_TTL", config.DefaultJobTTL, job.DefaultTTL},
		{"JOB_MAX_AGE", config.DefaultJobMaxAge, job.DefaultMaxAge},
		{"IDEMPOTENCY_TTL", config.DefaultIdempotencyTTL, job.DefaultIdempotencyTTL},
		{"MAX_JOBS_PER_KEY", config.DefaultMaxJobsPerKey, job.DefaultMaxUnfinishedPerKey},
		{"MAX_JOB_BYTES_PER_KEY", config.DefaultMaxJobBytesPerKey, job.DefaultMaxBytesPerKey},
		{"JOB_QUEUE_SIZE", config.DefaultJobQueueSize, inproc.DefaultQueueSize},
		{"MAX_MODEL_BYTES", config.DefaultMaxModelBytes, repository.DefaultMaxModelBytes},
		{"SHUTDOWN_TIMEOUT", config.DefaultShutdownTimeout, queue.DefaultShutdownTimeout},
		{"QUEUE_REPLICA_TIMEOUT", config.DefaultReplicaTimeout, redisstore.DefaultReplicaTimeout},
		{"WEBHOOK_TIMEOUT", config.DefaultWebhookTimeout, webhook.DefaultTimeout},
		{"WEBHOOK_MAX_AGE", config.DefaultWebhookMaxAge, webhook.DefaultMaxAge},
		{"WEBHOOK_CONCURRENCY", config.DefaultWebhookConcurrency, webhook.DefaultConcurrency},
		{"OTEL_TRACES_EXPORTER=otlp", config.ExporterOTLP, provider.ExporterOTLP},
		{"OTEL_TRACES_EXPORTER=console", config.ExporterConsole, provider.ExporterConsole},
		{"OTEL_TRACES_EXPORTER=none", config.ExporterNone, provider.ExporterNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.config != tt.pkgs {
				t.Errorf("config's default is %v, its package's %v", tt.config, tt.pkgs)
			}
		})
	}
}
