package config

import (
	"strconv"
	"strings"
	"time"
)

// Setting is one environment variable. Settings is the only list of them: Load parses
// through it, --help prints it and docs/settings.md's table is generated from it, so a
// setting cannot exist in one place and be missing in another. Its defaults are the
// constants of defaults.go.
type Setting struct {
	// Name is the environment variable.
	Name string
	// Default is the value Load parses when the variable is unset or blank; "" means
	// the setting is unset.
	Default string
	// Shown, when set, describes the default for people instead of Default (Markdown),
	// for defaults that depend on the machine or on another setting.
	Shown string
	// Meaning says what the setting does (Markdown: `code` spans only).
	Meaning string

	parse func(p *parser, c *Config)
}

// DefaultText is the default as docs/settings.md's table shows it (Markdown).
func (s Setting) DefaultText() string {
	switch {
	case s.Shown != "":
		return s.Shown
	case s.Default == "":
		return "unset"
	}
	return "`" + s.Default + "`"
}

// Settings returns every setting, in the order docs/settings.md and --help list them.
func Settings() []Setting { return append([]Setting(nil), settings...) }

// durationText writes a default duration as people do: 24h, not 24h0m0s.
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Plain drops Markdown's code marks, for a terminal.
func Plain(markdown string) string { return strings.ReplaceAll(markdown, "`", "") }

// settings are parsed in this order: INFERD_ENV comes before LOG_FORMAT, whose default
// depends on it, and PORT before LISTEN_ADDR, which overrides it.
var settings = []Setting{
	{Name: "PORT", Default: "8080", Meaning: "HTTP port of the server (on every interface)",
		parse: func(p *parser, c *Config) { c.Port = p.int(1, 65535) }},
	{Name: "LISTEN_ADDR", Meaning: "`host:port` the server listens on, overriding `PORT`: `127.0.0.1:9000` for loopback only, `:0` for any free port (the log line `listening` names the port)",
		parse: func(p *parser, c *Config) { c.ListenAddr = p.addr(c.Port) }},
	{Name: "GRPC_PORT", Default: "8001", Meaning: "port of the Open Inference Protocol over gRPC (on every interface; Triton's gRPC port, where `tritonclient.grpc` and `perf_analyzer` look); `0`: no gRPC listener",
		parse: func(p *parser, c *Config) { c.GRPCPort = p.int(0, 65535) }},
	{Name: "GRPC_LISTEN_ADDR", Meaning: "`host:port` of the gRPC listener, overriding `GRPC_PORT` (even `0`), as `LISTEN_ADDR` does for HTTP: `127.0.0.1:8001` for loopback only, `:0` for any free port (the log line `serving gRPC` names it)",
		parse: func(p *parser, c *Config) {
			if c.GRPCPort != 0 || p.set() != "" { // GRPC_PORT=0 and no address: off
				c.GRPCListenAddr = p.addr(c.GRPCPort)
			}
		}},
	{Name: "MODELS_DIR", Default: "./models", Meaning: "the model repository: a directory, or a bucket's `s3://bucket/prefix` (read with the AWS SDK's own configuration: `AWS_REGION`, `AWS_ENDPOINT_URL_S3` for an S3-compatible server, the default credential chain) or `gs://bucket/prefix` (Application Default Credentials, `STORAGE_EMULATOR_HOST` for an emulator), which needs `MODEL_CACHE_DIR` (see docs/storage.md)",
		parse: func(p *parser, c *Config) { c.ModelsDir = p.repository() }},
	{Name: "REPOSITORY_POLL_INTERVAL", Default: "0s", Meaning: "how often the model repository is polled, a bucket's and a directory's alike, for versions added, changed and deleted: each is loaded, reloaded or dropped once it is whole and verified (`SHA256SUMS`), the old one serving until then and on if its load fails; a poll that finds nothing changed costs one listing (a request per 1,000 objects). A model unloaded by hand stays unloaded. A polled directory needs `MODEL_CACHE_DIR` too. `0s`: a directory is read as it is, at start and by the repository API; a bucket is synced at start (and by `inferd-worker` when a job names a version it has not seen)",
		parse: func(p *parser, c *Config) { c.RepositoryPollInterval = p.durationOrZero() }},
	{Name: "MODEL_CACHE_DIR", Meaning: "where a synced repository's files are kept, by their digest, with the copy the models load from: a restart serves from it while the store is down, and a file shared by versions is downloaded once. Required with a bucket or with `REPOSITORY_POLL_INTERVAL`; one process at a time (a server and a worker each need their own), outside `MODELS_DIR`",
		parse: func(p *parser, c *Config) { c.ModelCacheDir = p.cacheDir(c.ModelsDir, c.RepositoryPollInterval) }},
	{Name: "MODEL_CACHE_MAX_BYTES", Default: "0", Meaning: "bound on `MODEL_CACHE_DIR`'s files: after each sync, files no version of the copy uses are removed, least recently used first, until the cache is within it (the files in use stay, whatever their size). `0`: no bound",
		parse: func(p *parser, c *Config) {
			if c.ModelCacheMaxBytes = p.int64(0, 1<<60); c.ModelCacheMaxBytes > 0 && c.ModelCacheDir == "" {
				p.fail(p.set(), "there is no cache to bound: it needs a synced repository and MODEL_CACHE_DIR")
			}
		}},
	{Name: "REQUIRE_DIGESTS", Default: "false", Meaning: "`true`: a synced repository's version without a `SHA256SUMS` is refused (with its reason in the repository index and the log) rather than taken once its listing holds still for a poll. Needs a synced repository (a bucket, or `REPOSITORY_POLL_INTERVAL`)",
		parse: func(p *parser, c *Config) { c.RequireDigests = p.requireDigests(c.ModelCacheDir != "") }},
	{Name: "MODEL_SIGNING_KEY", Meaning: "a file of one or more PEM public keys (cosign's `cosign.pub`; ECDSA, Ed25519 or RSA): a synced repository's version is taken only when `SHA256SUMS.sig` (or `SHA256SUMS.cosign.bundle`), as `cosign sign-blob` writes it, is a valid signature by one of them over its `SHA256SUMS`, which it then must have; otherwise it is refused with its reason, the content served before serving on. Verified offline. Read at start; needs a synced repository (see docs/storage.md, \"Signed models\")",
		parse: func(p *parser, c *Config) { c.SigningKeyFile, c.SigningKeys = p.signingKeys(c.ModelCacheDir != "") }},
	{Name: "QUEUE_URL", Meaning: "unset: jobs run in-process; `redis://[:password@]host:port/db` (or `rediss://`): jobs go to Redis for `inferd-worker`; `redis-sentinel://[:password@]host1:port1,host2:port2/db?master=name`: the same through Redis Sentinel (the hosts are the sentinels; `sentinel_password=` when they have their own); `redis-cluster://[:password@]host1:port1,host2:port2`: a Redis Cluster (the hosts are seed nodes; see `QUEUE_SHARDS`)",
		parse: func(p *parser, c *Config) { c.QueueURL = p.queueURL() }},
	{Name: "QUEUE_MIN_REPLICAS", Default: "0", Meaning: "replicas that must hold a job's record and task (Redis `WAIT`) before its submission is accepted; `0`: the primary's word suffices (no extra round trip)",
		parse: func(p *parser, c *Config) { c.QueueMinReplicas = p.int(0, 64) }},
	{Name: "QUEUE_REPLICA_TIMEOUT", Default: durationText(DefaultReplicaTimeout), Meaning: "how long a submission waits for `QUEUE_MIN_REPLICAS`; then it answers 503 `queue_unavailable` and the job is failed, never run",
		parse: func(p *parser, c *Config) { c.QueueReplicaTimeout = p.duration() }},
	{Name: "QUEUE_SHARDS", Default: "1", Meaning: "asynq queues jobs are spread over by their id, each queue with its jobs' records under one hash tag, so in a Redis Cluster slot of its own: with a cluster, some multiple of its primaries. Every server and worker must agree on it; changing it strands the jobs still queued. With more than one, each shard holds a key to its share of `MAX_JOBS_PER_KEY` and `MAX_JOB_BYTES_PER_KEY` (rounded up); `QUEUE_MIN_REPLICAS` waits on the primary of the job's shard",
		parse: func(p *parser, c *Config) { c.QueueShards = p.int(1, 1024) }},
	{Name: "API_KEYS", Meaning: "`KEY:SCOPE+SCOPE,...`; unset (and no file): the development keys",
		parse: func(*parser, *Config) {}}, // read with API_KEYS_FILE: they exclude each other
	{Name: "API_KEYS_FILE", Meaning: "a file of the same entries, re-read while the server runs (see `KEYS_RELOAD_INTERVAL`)",
		parse: func(p *parser, c *Config) { c.Keys, c.KeysFile = p.keys() }},
	{Name: "KEYS_RELOAD_INTERVAL", Default: durationText(DefaultKeysReloadInterval), Meaning: "how often the server reads `API_KEYS_FILE` for a change: a key removed from the file is refused, and one added accepted, within this time of the file's change (SIGHUP re-reads it at once); a file that cannot be read or parsed leaves the keys in force as they were, and is logged. `0s`: only on SIGHUP",
		parse: func(p *parser, c *Config) { c.KeysReloadInterval = p.durationOrZero() }},
	{Name: "INFERD_ENV", Default: "development", Meaning: "`production`: the server refuses the development keys (`inferd-worker` serves no API and needs no keys), and logs are JSON",
		parse: func(p *parser, c *Config) { c.Env = p.str() }},
	{Name: "LOG_LEVEL", Default: "info", Meaning: "`debug`, `info`, `warn`, `error`",
		parse: func(p *parser, c *Config) { c.LogLevel = p.level() }},
	{Name: "LOG_FORMAT", Default: "text", Shown: "`text` (`json` in production)", Meaning: "`text` or `json`",
		parse: func(p *parser, c *Config) { c.LogFormat = p.logFormat(c.Production()) }},
	{Name: "GOGC", Default: strconv.Itoa(DefaultGCPercent), Meaning: "Go's collector target, as in every Go program (heap growth over the live heap, in percent; `off` stops the collector), with inferd's own default: its live heap is a few MB but dense with pointers (the parsed contract), so at Go's `100` a request's share of collecting costs about as much as serving it; `400` lets the heap grow by four times the live heap (some 10 MB more) and collects a quarter as often",
		parse: func(p *parser, c *Config) { c.GCPercent = p.gcPercent() }},
	{Name: "ONNXRUNTIME_LIB", Shown: "`.onnxruntime/lib/libonnxruntime.so` in the working directory or a parent", Meaning: "the ONNX Runtime shared library (`make onnxruntime` installs it there)",
		parse: func(p *parser, c *Config) { c.ONNXRuntimeLib = p.str() }},
	{Name: "MAX_REQUEST_BYTES", Default: strconv.Itoa(DefaultMaxRequestBytes), Meaning: "largest request body",
		parse: func(p *parser, c *Config) { c.MaxRequestBytes = int64(p.int(64, 1<<34)) }},
	{Name: "MAX_RESPONSE_BYTES", Default: "0", Shown: "8 × `MAX_REQUEST_BYTES`", Meaning: "largest answer encoded from a model's results: a `/predict` or `/predict/batch` answer or a `/v2` infer answer (JSON header and binary data together) over it is `413 response_too_large`, and a job whose result is over it fails (set it alike on servers and workers). `0`, the default: 8 × `MAX_REQUEST_BYTES`, room for any tensor of a request sent back as JSON text (at most 6 bytes per byte of binary data, a BOOL element as `false,`), while a model's answer many times larger than its request is refused",
		parse: func(p *parser, c *Config) {
			if c.MaxResponseBytes = int64(p.int(0, 1<<36)); c.MaxResponseBytes == 0 {
				c.MaxResponseBytes = ResponseBytesPerRequestByte * c.MaxRequestBytes
			}
		}},
	{Name: "MAX_BATCH_ITEMS", Default: strconv.Itoa(DefaultMaxBatchItems), Meaning: "most items in a batch",
		parse: func(p *parser, c *Config) { c.MaxBatchItems = p.int(1, 1<<24) }},
	{Name: "RATE_LIMIT_RPS", Default: strconv.Itoa(DefaultRateLimitRPS), Meaning: "tokens per second of each key's bucket on predict-scope endpoints, shared by every server through Redis in queue mode; `0` disables",
		parse: func(p *parser, c *Config) { c.RateLimitRPS = p.float() }},
	{Name: "RATE_LIMIT_BURST", Default: strconv.Itoa(DefaultRateLimitBurst), Meaning: "bucket size",
		parse: func(p *parser, c *Config) { c.RateLimitBurst = p.int(0, 1<<30) }},
	{Name: "MAX_CONCURRENT_PER_KEY", Default: strconv.Itoa(DefaultMaxConcurrentPerKey), Meaning: "requests one key may have in progress at once (a slow upload counts from its headers on); one more is `429 concurrency_limited`; `0` disables",
		parse: func(p *parser, c *Config) { c.MaxConcurrentPerKey = p.int(0, 1<<30) }},
	{Name: "AUTH_FAILURES_PER_MINUTE", Default: strconv.Itoa(DefaultAuthFailuresPerMinute), Meaning: "failed authentications one presented key (or none) may make a minute from one client address; past them that key from that address gets `429 auth_throttled` instead of `401` until its bucket refills. A valid key is never throttled, whatever other clients at the same address send; `0` disables",
		parse: func(p *parser, c *Config) { c.AuthFailuresPerMinute = p.int(0, 1<<30) }},
	{Name: "TRUSTED_PROXIES", Meaning: "comma-separated networks (`10.0.0.0/8,192.168.1.7`) of the load balancers and ingresses in front of the server: a request from one of them comes from the nearest address of its `Forwarded` (or `X-Forwarded-For`) that is not one of them; unset: every request comes from its peer's address, and those headers are ignored",
		parse: func(p *parser, c *Config) { c.TrustedProxies = p.prefixes() }},
	{Name: "MAX_CONNECTIONS", Default: "0", Shown: "the file descriptor limit less 1024 (half of it, below 2048)", Meaning: "connections open at once on the HTTP port (of `inferd`, and of `inferd-worker`'s probes), idle keep-alive ones included; one more is closed as soon as it is accepted, before anything is read from it (so no answer), and counted in `inferd_connections_refused_total{reason=\"max_connections\"}`. It keeps the process under its file descriptor limit, where accepting would fail with `too many open files` and stall every client, health probes included",
		parse: func(p *parser, c *Config) { c.MaxConnections = p.int(0, 1<<30) }},
	{Name: "MAX_CONNECTIONS_PER_ADDRESS", Default: "0", Shown: "half of `MAX_CONNECTIONS`", Meaning: "connections open at once from one peer IP address; one more is closed as soon as it is accepted and counted under `reason=\"max_connections_per_address\"`. It counts the TCP peer, since no header has been read yet: `TRUSTED_PROXIES` does not apply, and behind a proxy every client shares the proxy's address, so keep it above the proxy's connections to one server (at `MAX_CONNECTIONS` or more it is off)",
		parse: func(p *parser, c *Config) { c.MaxConnectionsPerAddress = p.int(0, 1<<30) }},
	{Name: "JOB_TTL", Default: durationText(DefaultJobTTL), Meaning: "how long a finished job's record is kept",
		parse: func(p *parser, c *Config) { c.JobTTL = p.duration() }},
	{Name: "JOB_MAX_AGE", Default: durationText(DefaultJobMaxAge), Meaning: "how long a job's record is kept, from its submission, when the job never finishes (its queueing failed half-way, its task was lost with Redis); then it reads 404. Keep it above the longest a job may wait and run",
		parse: func(p *parser, c *Config) { c.JobMaxAge = p.duration() }},
	{Name: "IDEMPOTENCY_TTL", Default: durationText(DefaultIdempotencyTTL), Meaning: "how long an `Idempotency-Key` sent with a job submission is remembered, per API key (in Redis in queue mode, so by every server): a repeat with the same body within it answers the job the first created, one with another body is `422 idempotency_key_reused`. See docs/api.md#idempotent-submissions",
		parse: func(p *parser, c *Config) { c.IdempotencyTTL = p.duration() }},
	{Name: "MAX_JOBS_PER_KEY", Default: strconv.Itoa(DefaultMaxJobsPerKey), Meaning: "jobs one key may have waiting or running at once, counted across servers through Redis in queue mode; one more submission is `429 jobs_limited` until one finishes (or reaches `JOB_MAX_AGE`); `MAX_JOB_BYTES_PER_KEY` bounds the bytes a key's records hold, finished ones included. `0` disables",
		parse: func(p *parser, c *Config) { c.MaxJobsPerKey = p.int(0, 1<<30) }},
	{Name: "MAX_JOB_BYTES_PER_KEY", Default: strconv.Itoa(DefaultMaxJobBytesPerKey), Shown: "`268435456` (256 MiB)", Meaning: "bytes of job records one key may hold until they expire, counted across servers through Redis in queue mode: a job's record counts its input while it waits or runs, its result once it has finished (for `JOB_TTL`), each rounded up as Redis's allocator stores it plus 512 bytes of bookkeeping. A submission that would pass it is `429 job_bytes_limited`, with `Retry-After` until the key's first record expires (or `1` when its unfinished jobs may make room as they finish); one whose record alone passes it is `413 payload_too_large`. Size Redis's `maxmemory` from it (see docs/operations.md). At least `MAX_REQUEST_BYTES`; `0` disables",
		parse: func(p *parser, c *Config) { c.MaxJobBytesPerKey = p.jobBytes(c.MaxRequestBytes) }},
	{Name: "JOB_WORKERS", Default: "0", Shown: "number of CPUs", Meaning: "in-process jobs running at once",
		parse: func(p *parser, c *Config) { c.JobWorkers = p.int(0, 1<<16) }},
	{Name: "JOB_QUEUE_SIZE", Default: strconv.Itoa(DefaultJobQueueSize), Meaning: "in-process jobs that may wait; one more is `queue_full`",
		parse: func(p *parser, c *Config) { c.JobQueueSize = p.int(1, 1<<24) }},
	{Name: "WEBHOOK_ALLOWED_HOSTS", Meaning: "comma-separated hosts a job's `callback_url` may name (see docs/webhooks.md): host names (`hooks.example.com`), subdomains (`*.example.com`), addresses and networks (`203.0.113.7`, `10.0.0.0/8`), or `*` for any host whose addresses are public. An address in any IANA special-purpose range (loopback, private, link-local, documentation, benchmarking, shared, reserved, multicast, ...; an IPv6 address carrying an IPv4 one is judged by it) is refused unless the host's name or the address's network is listed, and an address of the machine itself unless that address or the host's exact name is; hosts written as numbers (`127.1`, `2130706433`) are the addresses they are. Checked at submission and on the address each delivery dials (a name that resolves to a refused address fails its callback at once); redirects are never followed. Unset: submissions with a `callback_url` are `400 callback_not_allowed`",
		parse: func(p *parser, c *Config) { c.WebhookAllowedHosts = p.str() }},
	{Name: "WEBHOOK_SECRET", Meaning: "the key callbacks are signed with, as the Standard Webhooks specification writes them: `whsec_` and the base64 of 24 to 64 random bytes (`whsec_$(head -c 32 /dev/urandom | base64)`). Needed when `WEBHOOK_ALLOWED_HOSTS` is set; servers and workers must share it",
		parse: func(p *parser, c *Config) { c.WebhookSecret = p.secret(c.WebhookAllowedHosts != "") }},
	{Name: "WEBHOOK_TIMEOUT", Default: durationText(DefaultWebhookTimeout), Meaning: "how long one attempt at a callback may take, from dialing to the answer (of whose body at most 64 KiB is read); a slower receiver's attempt fails and is retried, and the receiver goes into a lane of its own, one attempt at a time, until it answers in time",
		parse: func(p *parser, c *Config) { c.WebhookTimeout = p.duration() }},
	{Name: "WEBHOOK_MAX_AGE", Default: durationText(DefaultWebhookMaxAge), Meaning: "how long a callback is retried (1 s, doubling, at most 5 min apart) from its job's finish; one not delivered by then is `failed` on the job's record (one whose address is refused fails at once). Keep it below `JOB_TTL`, or the record expires first",
		parse: func(p *parser, c *Config) { c.WebhookMaxAge = p.duration() }},
	{Name: "WEBHOOK_CONCURRENCY", Default: strconv.Itoa(DefaultWebhookConcurrency), Meaning: "callbacks a process (`inferd-worker` in queue mode, `inferd` in-process) posts at once, shared fairly between the keys whose callbacks are due: a key alone may take them all, and another key's callbacks start their share at once even then (beyond this, up to twice it, until the first key's attempts end)",
		parse: func(p *parser, c *Config) { c.WebhookConcurrency = p.int(1, 1<<16) }},
	{Name: "LOAD_STRICT", Default: "false", Meaning: "`true`: a version that fails to load stops the server (and worker) at start",
		parse: func(p *parser, c *Config) { c.LoadStrict = p.bool() }},
	{Name: "READY_ALLOW_FAILED", Default: "false", Meaning: "`true`: `/ready` answers 200 once loading has finished even when versions failed to load (each still answers 503 `model_unavailable`); `false`: 503 naming them",
		parse: func(p *parser, c *Config) { c.ReadyAllowFailed = p.bool() }},
	{Name: "MAX_MODEL_BYTES", Default: strconv.Itoa(DefaultMaxModelBytes), Meaning: "largest model file (artifact) a version may load; a bigger one fails to load with the file named. Only regular files inside `MODELS_DIR` load: a link to a file outside it, a named pipe or a device is refused before it is read",
		parse: func(p *parser, c *Config) { c.MaxModelBytes = int64(p.int(1, 1<<40)) }},
	{Name: "MODEL_LOAD_TIMEOUT", Default: durationText(DefaultModelLoadTimeout), Meaning: "how long one load of one version may take; a load that overruns it fails (the pipeline serving keeps serving, and the next reload is not held up behind it)",
		parse: func(p *parser, c *Config) { c.ModelLoadTimeout = p.duration() }},
	{Name: "UNLOAD_TIMEOUT", Default: durationText(DefaultUnloadTimeout), Meaning: "how long an unload (`POST /v2/repository/models/{name}/unload`) waits for the jobs accepted for the model to run before it drops the model; those that have not started by then fail with `error_code` `model_unloaded`. `0s` drops it at once. In-process jobs only: in queue mode they run on the workers, which keep their models",
		parse: func(p *parser, c *Config) { c.UnloadTimeout = p.durationOrZero() }},
	{Name: "LOAD_CONCURRENCY", Default: "1", Meaning: "pipelines loading at once; above 1, memory figures may overlap (`exclusive: false`)",
		parse: func(p *parser, c *Config) { c.LoadConcurrency = p.int(1, 1024) }},
	{Name: "DYNAMIC_BATCHING", Default: "true", Meaning: "`false` turns dynamic batching off server-wide, whatever a `model.yaml` asks (for A/B measurements and incidents)",
		parse: func(p *parser, c *Config) { c.DynamicBatching = p.bool() }},
	{Name: "SHUTDOWN_TIMEOUT", Default: durationText(DefaultShutdownTimeout), Meaning: "how long SIGTERM waits for in-flight requests and jobs",
		parse: func(p *parser, c *Config) { c.ShutdownTimeout = p.duration() }},
	{Name: "SHUTDOWN_DRAIN", Default: durationText(DefaultShutdownDrain), Meaning: "after SIGTERM, how long the server keeps serving with `/ready` answering 503 `stopping` (and every answer saying `Connection: close`), so load balancers take it out before it stops accepting; `0s` stops at once",
		parse: func(p *parser, c *Config) { c.ShutdownDrain = p.durationOrZero() }},
	{Name: "CORS_ALLOWED_ORIGINS", Meaning: "comma-separated origins (`https://app.example.com,http://localhost:3000`) or `*` that browsers may call the API from; unset: no CORS headers at all",
		parse: func(p *parser, c *Config) { c.CORSAllowedOrigins = p.origins() }},
	{Name: "PUBLIC_URL", Meaning: "unset: the served contract's server is the relative `/`; an absolute `http(s)://host[:port][/prefix]`: the address the served contract and `/docs` advertise, for a server behind a proxy",
		parse: func(p *parser, c *Config) { c.PublicURL = p.publicURL() }},
	{Name: "WORKER_PORT", Default: "8081", Meaning: "`inferd-worker`'s port for `/health`, `/ready`, `/metrics` (on every interface)",
		parse: func(p *parser, c *Config) { c.WorkerPort = p.int(1, 65535) }},
	{Name: "WORKER_LISTEN_ADDR", Meaning: "`host:port` of `inferd-worker`'s probes, overriding `WORKER_PORT`, as `LISTEN_ADDR` does for the server",
		parse: func(p *parser, c *Config) { c.WorkerListenAddr = p.addr(c.WorkerPort) }},
	{Name: "WORKER_CONCURRENCY", Default: "0", Shown: "4 × number of CPUs", Meaning: "jobs an `inferd-worker` runs at once (a job spends most of its time waiting for Redis, and concurrent jobs of a model with dynamic batching share its backend calls)",
		parse: func(p *parser, c *Config) { c.WorkerConcurrency = p.int(0, 1<<16) }},
	{Name: "OTEL_TRACES_EXPORTER", Shown: "`otlp` when an OTLP endpoint is set, else `none`", Meaning: "tracing (OpenTelemetry) is off unless this is `otlp` (OTLP over HTTP/protobuf to the endpoint below) or `console` (spans as JSON on standard output), or an OTLP endpoint is set; `none` turns it off (see docs/operations.md)",
		parse: func(p *parser, c *Config) {
			c.TracesExporter = p.oneOf(ExporterOTLP, ExporterConsole, ExporterNone)
		}},
	{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Meaning: "the OTLP/HTTP collector's base URL, such as `http://otel-collector:4318`; spans go to `/v1/traces` under it. The other standard `OTEL_EXPORTER_OTLP_*` variables (headers, timeout, compression, certificates) apply too",
		parse: func(p *parser, c *Config) { c.OTLPEndpoint = p.httpURL() }},
	{Name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", Meaning: "the full URL spans are posted to, such as `http://jaeger:4318/v1/traces`, overriding `OTEL_EXPORTER_OTLP_ENDPOINT`",
		parse: func(p *parser, c *Config) { c.OTLPTracesEndpoint = p.httpURL() }},
	{Name: "OTEL_SERVICE_NAME", Shown: "`inferd` or `inferd-worker`", Meaning: "the `service.name` of the spans",
		parse: func(p *parser, c *Config) { c.ServiceName = p.str() }},
	{Name: "OTEL_RESOURCE_ATTRIBUTES", Meaning: "`key=value,...` added to every span's resource, such as `deployment.environment=prod`",
		parse: func(p *parser, c *Config) { c.ResourceAttributes = p.str() }},
	{Name: "OTEL_TRACES_SAMPLER", Default: "parentbased_always_on", Meaning: "`parentbased_always_on` (follow the caller's `traceparent`, sample the rest), `parentbased_traceidratio`, `parentbased_always_off`, `always_on`, `always_off`, `traceidratio`",
		parse: func(p *parser, c *Config) {
			c.TracesSampler = p.oneOf("parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio", "always_on", "always_off", "traceidratio")
		}},
	{Name: "OTEL_TRACES_SAMPLER_ARG", Shown: "`1`", Meaning: "the ratio of traces kept, `0` to `1`, for the `traceidratio` samplers",
		parse: func(p *parser, c *Config) { c.TracesSamplerArg = p.ratio() }},
	{Name: "OTEL_SDK_DISABLED", Default: "false", Meaning: "`true` turns tracing off whatever the other `OTEL_*` variables say",
		parse: func(p *parser, c *Config) { c.OTelSDKDisabled = p.bool() }},
}
