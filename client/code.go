package client

// The codes of the contract's problems (Problem.code in openapi.yaml), for IsCode and
// Error.Code.
const (
	CodeInvalidRequest       = "invalid_request"        // 400: malformed JSON, a missing, mistyped or unknown field, empty items
	CodeInvalidInput         = "invalid_input"          // 400: the model's preprocessing rejected the data
	CodeModelNotFound        = "model_not_found"        // 400 (404 in a path): no model of that name
	CodeVersionNotFound      = "version_not_found"      // 400 (404 in a path): the model has no such version
	CodeUnauthorized         = "unauthorized"           // 401: no X-API-Key, or an unknown key
	CodeForbidden            = "forbidden"              // 403: the key lacks the operation's scope
	CodeJobNotFound          = "job_not_found"          // 404: no such job, or its record expired
	CodeJobFinished          = "job_finished"           // 409: cancel of a job that already finished
	CodeNotFound             = "not_found"              // 404: no such endpoint
	CodeMethodNotAllowed     = "method_not_allowed"     // 405
	CodePayloadTooLarge      = "payload_too_large"      // 413: body or batch too large, or a body where none is taken
	CodeResponseTooLarge     = "response_too_large"     // 413: the answer would pass MAX_RESPONSE_BYTES; ask for less
	CodeUnsupportedMediaType = "unsupported_media_type" // 415: a body not sent as application/json
	CodeRateLimited          = "rate_limited"           // 429: see Error.RetryAfter
	CodeConcurrencyLimited   = "concurrency_limited"    // 429: the key has MAX_CONCURRENT_PER_KEY requests in progress
	CodeAuthThrottled        = "auth_throttled"         // 429: too many failed authentications from this address
	CodeJobsLimited          = "jobs_limited"           // 429: the key has MAX_JOBS_PER_KEY jobs waiting or running
	CodeJobBytesLimited      = "job_bytes_limited"      // 429: the key's job records hold MAX_JOB_BYTES_PER_KEY; see Error.RetryAfter
	CodeExecutionError       = "execution_error"        // 500: the pipeline failed running the request
	CodeInternalError        = "internal_error"         // 500: an unexpected fault
	CodeReloadFailed         = "reload_failed"          // 500: a reload failed; the old pipeline still serves
	CodeModelLoading         = "model_loading"          // 503: the version is still loading; see Error.RetryAfter
	CodeModelUnavailable     = "model_unavailable"      // 503: the version failed to load
	CodeQueueFull            = "queue_full"             // 503: too many jobs wait
	CodeQueueUnavailable     = "queue_unavailable"      // 503: the queue backend cannot be reached
	CodeShuttingDown         = "shutting_down"          // 503: the server is stopping
	CodeRequestCancelled     = "request_cancelled"      // 503: the request ended before its pipeline finished
	CodeProfileInProgress    = "profile_in_progress"    // 409: another CPU profile or trace is being recorded
	CodeRequestTimeout       = "request_timeout"        // 408: the body did not arrive within the server's read timeout
	CodeHeaderTooLarge       = "header_too_large"       // 431: the request's headers are too large
	CodeNotImplemented       = "not_implemented"        // 501: a Transfer-Encoding the server does not support
	// 422: the submission's Idempotency-Key came with another body; use a new key
	CodeIdempotencyKeyReused = "idempotency_key_reused"
	// 409: the Idempotency-Key's first submission is still being accepted; see Error.RetryAfter
	CodeIdempotencyKeyInProgress = "idempotency_key_in_progress"
	CodeCallbackNotAllowed       = "callback_not_allowed" // 400: a callback_url WEBHOOK_ALLOWED_HOSTS does not allow
	// A job's error_code only: an operator unloaded its model before it could run
	CodeModelUnloaded = "model_unloaded"
)
