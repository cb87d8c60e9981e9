package config

import "time"

// The settings' defaults. config is a leaf (the settings table and its document
// generator link nothing of the server), so a default that a package also applies to
// its own zero options is written here as well as there; internal/app's
// TestConfigDefaultsAgree holds the two equal.
const (
	// DefaultGCPercent is GOGC's default in inferd and inferd-worker (Go's own is 100).
	DefaultGCPercent = 400

	DefaultMaxRequestBytes = 1 << 20 // httpapi.DefaultMaxRequestBytes
	DefaultMaxBatchItems   = 1024    // httpapi.DefaultMaxBatchItems
	// ResponseBytesPerRequestByte is MAX_RESPONSE_BYTES's default, times
	// MAX_REQUEST_BYTES (httpapi.ResponseBytesPerRequestByte says why).
	ResponseBytesPerRequestByte = 8

	DefaultRateLimitRPS       = 100                // ratelimit.DefaultRPS
	DefaultJobTTL             = 24 * time.Hour     // job.DefaultTTL
	DefaultJobMaxAge          = 7 * 24 * time.Hour // job.DefaultMaxAge
	DefaultIdempotencyTTL     = 24 * time.Hour     // job.DefaultIdempotencyTTL
	DefaultMaxJobsPerKey      = 1000               // job.DefaultMaxUnfinishedPerKey
	DefaultMaxJobBytesPerKey  = 256 << 20          // job.DefaultMaxBytesPerKey
	DefaultJobQueueSize       = 1024               // inproc.DefaultQueueSize
	DefaultMaxModelBytes      = 2 << 30            // repository.DefaultMaxModelBytes
	DefaultShutdownTimeout    = 30 * time.Second   // queue.DefaultShutdownTimeout
	DefaultReplicaTimeout     = time.Second        // redisstore.DefaultReplicaTimeout
	DefaultWebhookTimeout     = 10 * time.Second   // webhook.DefaultTimeout
	DefaultWebhookMaxAge      = time.Hour          // webhook.DefaultMaxAge
	DefaultWebhookConcurrency = 16                 // webhook.DefaultConcurrency

	// The defaults that no package applies to zero options of its own: there, zero
	// turns the feature off, so the setting's default lives here alone.
	DefaultRateLimitBurst        = 200
	DefaultMaxConcurrentPerKey   = 128
	DefaultAuthFailuresPerMinute = 30
	DefaultShutdownDrain         = 5 * time.Second
	DefaultModelLoadTimeout      = 10 * time.Minute
	DefaultUnloadTimeout         = 30 * time.Second
	DefaultKeysReloadInterval    = 2 * time.Second
)

// The exporters OTEL_TRACES_EXPORTER may name, as provider.Options.Exporter takes
// them (provider.ExporterOTLP, ExporterConsole, ExporterNone; package internal/telemetry/provider).
const (
	ExporterOTLP    = "otlp"
	ExporterConsole = "console"
	ExporterNone    = "none"
)
