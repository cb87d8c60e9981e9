package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/signature"
)

// Config is every setting of the server and the worker. Settings gives each one's
// environment variable, default and meaning.
type Config struct {
	Port int // PORT
	// ListenAddr is LISTEN_ADDR, or ":PORT" when that is unset: what the server binds.
	ListenAddr string
	GRPCPort   int // GRPC_PORT; 0 with no GRPC_LISTEN_ADDR: no gRPC listener
	// GRPCListenAddr is GRPC_LISTEN_ADDR, or ":GRPC_PORT": what the gRPC listener binds;
	// "" when it is off.
	GRPCListenAddr string
	ModelsDir      string // MODELS_DIR: a directory, or a repository's URL (RepositoryURL)
	// RepositoryPollInterval is REPOSITORY_POLL_INTERVAL; 0: no polling.
	RepositoryPollInterval time.Duration
	// ModelCacheDir is MODEL_CACHE_DIR: set exactly when the repository is synced
	// (Synced).
	ModelCacheDir string
	// ModelCacheMaxBytes is MODEL_CACHE_MAX_BYTES; 0: no bound.
	ModelCacheMaxBytes int64
	RequireDigests     bool // REQUIRE_DIGESTS
	// SigningKeyFile is MODEL_SIGNING_KEY, and SigningKeys the keys it holds; none:
	// signatures are not checked.
	SigningKeyFile string
	SigningKeys    signature.Keys
	QueueURL       string // QUEUE_URL; "": jobs run in-process
	// QueueMinReplicas is QUEUE_MIN_REPLICAS: 0, a submission waits for no replica.
	QueueMinReplicas    int
	QueueReplicaTimeout time.Duration // QUEUE_REPLICA_TIMEOUT
	QueueShards         int           // QUEUE_SHARDS: asynq queues (Redis Cluster slots) jobs are spread over
	Env                 string        // INFERD_ENV; "production" forbids dev keys
	LogLevel            slog.Level    // LOG_LEVEL
	LogFormat           string        // LOG_FORMAT
	// GCPercent is GOGC: the collector's target percentage, -1 for off.
	GCPercent       int
	ONNXRuntimeLib  string // ONNXRUNTIME_LIB; "": .onnxruntime/lib in the working directory or a parent
	MaxRequestBytes int64  // MAX_REQUEST_BYTES
	// MaxResponseBytes is MAX_RESPONSE_BYTES, resolved: its 0 is 8 × MaxRequestBytes.
	MaxResponseBytes int64
	MaxBatchItems    int     // MAX_BATCH_ITEMS
	RateLimitRPS     float64 // RATE_LIMIT_RPS; 0 disables rate limiting
	RateLimitBurst   int     // RATE_LIMIT_BURST
	// MaxConcurrentPerKey is MAX_CONCURRENT_PER_KEY; 0: no cap.
	MaxConcurrentPerKey int
	// AuthFailuresPerMinute is AUTH_FAILURES_PER_MINUTE; 0: no throttle.
	AuthFailuresPerMinute int
	// TrustedProxies is TRUSTED_PROXIES: the networks whose Forwarded and
	// X-Forwarded-For are believed; empty: none.
	TrustedProxies []netip.Prefix
	// MaxConnections is MAX_CONNECTIONS; 0: listen.DefaultMax(), from the file
	// descriptor limit.
	MaxConnections int
	// MaxConnectionsPerAddress is MAX_CONNECTIONS_PER_ADDRESS; 0: half of
	// MaxConnections.
	MaxConnectionsPerAddress int
	JobTTL                   time.Duration // JOB_TTL
	JobMaxAge                time.Duration // JOB_MAX_AGE
	IdempotencyTTL           time.Duration // IDEMPOTENCY_TTL
	// MaxJobsPerKey is MAX_JOBS_PER_KEY; 0: no cap.
	MaxJobsPerKey int
	// MaxJobBytesPerKey is MAX_JOB_BYTES_PER_KEY; 0: no budget.
	MaxJobBytesPerKey int64
	JobWorkers        int           // JOB_WORKERS; 0: number of CPUs (in-process mode)
	JobQueueSize      int           // JOB_QUEUE_SIZE (in-process mode)
	LoadConcurrency   int           // LOAD_CONCURRENCY
	MaxModelBytes     int64         // MAX_MODEL_BYTES
	ModelLoadTimeout  time.Duration // MODEL_LOAD_TIMEOUT
	UnloadTimeout     time.Duration // UNLOAD_TIMEOUT; 0: an unload does not wait for jobs
	LoadStrict        bool          // LOAD_STRICT: a version that fails to load stops the process
	ReadyAllowFailed  bool          // READY_ALLOW_FAILED: /ready does not wait for failed versions
	DynamicBatching   bool          // DYNAMIC_BATCHING: false turns it off for every version
	ShutdownTimeout   time.Duration // SHUTDOWN_TIMEOUT
	ShutdownDrain     time.Duration // SHUTDOWN_DRAIN; 0: stop accepting at once
	WorkerPort        int           // WORKER_PORT
	WorkerListenAddr  string        // WORKER_LISTEN_ADDR, or ":WORKER_PORT" when that is unset
	WorkerConcurrency int           // WORKER_CONCURRENCY; 0: 4 × number of CPUs
	// CORSAllowedOrigins is CORS_ALLOWED_ORIGINS: lower-case origins, or just "*";
	// empty: no CORS.
	CORSAllowedOrigins []string
	// PublicURL is PUBLIC_URL without a trailing slash; "": the served contract's server
	// is relative ("/").
	PublicURL string

	// TracesExporter is OTEL_TRACES_EXPORTER as set ("" when unset); Traces says
	// which exporter runs.
	TracesExporter string
	// OTLPEndpoint and OTLPTracesEndpoint are OTEL_EXPORTER_OTLP_ENDPOINT and
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; the exporter reads them itself.
	OTLPEndpoint, OTLPTracesEndpoint string
	// ServiceName is OTEL_SERVICE_NAME; "": the binary's name.
	ServiceName string
	// ResourceAttributes, TracesSampler and TracesSamplerArg are OTEL_RESOURCE_ATTRIBUTES,
	// OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, checked here and read by the SDK.
	ResourceAttributes string
	TracesSampler      string
	TracesSamplerArg   float64
	OTelSDKDisabled    bool // OTEL_SDK_DISABLED

	// WebhookAllowedHosts and WebhookSecret are WEBHOOK_ALLOWED_HOSTS and
	// WEBHOOK_SECRET as set (webhook.ParseAllowList and ParseSecret read them: config
	// links nothing of the server); "": callbacks are refused.
	WebhookAllowedHosts, WebhookSecret string
	WebhookTimeout                     time.Duration // WEBHOOK_TIMEOUT
	WebhookMaxAge                      time.Duration // WEBHOOK_MAX_AGE
	WebhookConcurrency                 int           // WEBHOOK_CONCURRENCY

	// Keys are the API keys from API_KEYS or API_KEYS_FILE, or the development keys.
	Keys *auth.Keyring
	// KeysFile is API_KEYS_FILE, the file Keys came from; "": they came from API_KEYS or
	// are the development keys, and nothing reloads them.
	KeysFile string
	// KeysReloadInterval is KEYS_RELOAD_INTERVAL: how often the server re-reads
	// KeysFile; 0: only on SIGHUP.
	KeysReloadInterval time.Duration
}

// Production reports whether INFERD_ENV is production.
func (c Config) Production() bool { return c.Env == "production" }

// Synced reports whether the model repository is read through a local copy kept in
// step with it (MODEL_CACHE_DIR): a repository's URL, or a directory polled.
func (c Config) Synced() bool { return RepositoryURL(c.ModelsDir) || c.RepositoryPollInterval > 0 }

// RepositoryURL reports whether MODELS_DIR's value names a repository by URL
// ("s3://bucket/prefix") rather than a directory.
func RepositoryURL(v string) bool {
	scheme, _, ok := strings.Cut(v, "://")
	if !ok || scheme == "" {
		return false
	}
	for i, r := range scheme {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return true
}

// Traces is the traces exporter that runs (ExporterOTLP or ExporterConsole), or ""
// when tracing is off: OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn it off; an
// OTLP endpoint without an exporter named turns it on, as pointing a service at a
// collector is the usual way to ask for traces.
func (c Config) Traces() string {
	switch {
	case c.OTelSDKDisabled || c.TracesExporter == ExporterNone:
		return ""
	case c.TracesExporter != "":
		return c.TracesExporter
	case c.OTLPEndpoint != "" || c.OTLPTracesEndpoint != "":
		return ExporterOTLP
	}
	return ""
}

// FromEnv reads the settings from the process environment.
func FromEnv() (Config, error) { return Load(os.Getenv, os.ReadFile) }

// Load reads the settings through getenv and readFile (tests pass their own). The error
// lists every bad setting at once.
func Load(getenv func(string) string, readFile func(string) ([]byte, error)) (Config, error) {
	p := parser{getenv: getenv, readFile: readFile}
	var c Config
	for i := range settings {
		p.cur = &settings[i]
		p.cur.parse(&p, &c)
	}
	return c, errors.Join(p.errs...)
}

// ErrDevKeysInProduction: INFERD_ENV=production with neither API_KEYS nor API_KEYS_FILE.
var ErrDevKeysInProduction = errors.New("INFERD_ENV=production but no API_KEYS or API_KEYS_FILE is set: refusing to start with the built-in development keys")

// CheckKeys returns ErrDevKeysInProduction when production would serve the development
// keys. Only the API server calls it: inferd-worker authenticates nobody (its probes and
// /metrics are open, like the server's /health and /metrics), so it needs no keys.
func (c Config) CheckKeys() error {
	if c.Keys != nil && c.Keys.IsDev() && c.Production() {
		return ErrDevKeysInProduction
	}
	return nil
}

// parser parses the setting cur; a bad value is recorded and parsing goes on, so
// that one Load reports every bad setting.
type parser struct {
	getenv   func(string) string
	readFile func(string) ([]byte, error)
	cur      *Setting
	errs     []error
}

func (p *parser) fail(val, why string) {
	p.errs = append(p.errs, fmt.Errorf("%s=%q: %s", p.cur.Name, val, why))
}

// set returns the variable's value, or "" when it is unset or blank.
func (p *parser) set() string { return strings.TrimSpace(p.getenv(p.cur.Name)) }

func (p *parser) str() string {
	v, _ := p.value()
	return v
}

// value returns the text to parse and whether it came from the environment; the
// default is parsed by the same code, so a default that does not parse fails tests.
func (p *parser) value() (string, bool) {
	if v := p.set(); v != "" {
		return v, true
	}
	return p.cur.Default, false
}

func (p *parser) int(lo, hi int) int {
	v, _ := p.value()
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		p.fail(v, fmt.Sprintf("want a whole number from %d to %d", lo, hi))
	}
	return n
}

// int64 is int for values past an int's 32 bits on some platforms.
func (p *parser) int64(lo, hi int64) int64 {
	v, _ := p.value()
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		p.fail(v, fmt.Sprintf("want a whole number from %d to %d", lo, hi))
	}
	return n
}

// repository reads MODELS_DIR: a directory, or a repository's URL, whose form the
// store of its scheme checks at start. The value is never quoted in an error about a
// URL: it may hold credentials, which do not belong there.
func (p *parser) repository() string {
	v := p.str()
	if !RepositoryURL(v) {
		return v
	}
	u, err := url.Parse(v)
	switch {
	case err != nil:
		p.errs = append(p.errs, fmt.Errorf("%s: not a URL; want a directory, s3://bucket/prefix or gs://bucket/prefix", p.cur.Name))
	case u.User != nil:
		p.errs = append(p.errs, fmt.Errorf("%s: credentials do not go in the repository's URL: give them the store's own way (for S3, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, or a role; for GCS, Application Default Credentials)", p.cur.Name))
	}
	return v
}

// cacheDir reads MODEL_CACHE_DIR: required when the repository is synced, else of no
// use, and never inside the repository's directory, whose poll would list the copy.
func (p *parser) cacheDir(models string, poll time.Duration) string {
	v := p.str()
	synced := RepositoryURL(models) || poll > 0
	switch {
	case synced && v == "":
		why := "MODELS_DIR is a URL"
		if !RepositoryURL(models) {
			why = "REPOSITORY_POLL_INTERVAL is set"
		}
		p.errs = append(p.errs, fmt.Errorf("%s is unset, but %s: set it to a directory of this process's own (made if missing), where the repository's files are kept and verified before they load", p.cur.Name, why))
	case !synced && v != "":
		p.fail(v, "the cache is of use only to a synced repository: set MODELS_DIR to a URL or REPOSITORY_POLL_INTERVAL above 0s, or unset it")
	case synced && !RepositoryURL(models) && within(v, models, true):
		p.fail(v, fmt.Sprintf("it is inside MODELS_DIR (%s), whose polls would list the cache: put it elsewhere (or in a directory of MODELS_DIR whose name starts with '.')", models))
	case synced && !RepositoryURL(models) && within(models, v, false):
		p.fail(v, fmt.Sprintf("MODELS_DIR (%s) is inside it: the cache's files would be the repository's", models))
	}
	return v
}

// within reports whether path is dir or below it; with skipped, not when the first
// name below dir starts with '.' or '_', which the repository skips.
func within(path, dir string, skipped bool) bool {
	a, err1 := filepath.Abs(path)
	b, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(b, a)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	return rel == "." || !skipped || !strings.HasPrefix(rel, ".") && !strings.HasPrefix(rel, "_")
}

// requireDigests reads REQUIRE_DIGESTS, which only a synced repository checks.
func (p *parser) requireDigests(synced bool) bool {
	b := p.bool()
	if b && !synced {
		p.errs = append(p.errs, fmt.Errorf("%s=true, but the repository is a directory read as it is, whose versions are not checked: set MODELS_DIR to a URL or REPOSITORY_POLL_INTERVAL above 0s (with MODEL_CACHE_DIR)", p.cur.Name))
	}
	return b
}

// signingKeys reads MODEL_SIGNING_KEY's file, which only a synced repository checks.
func (p *parser) signingKeys(synced bool) (string, signature.Keys) {
	file := p.set()
	if file == "" {
		return "", nil
	}
	if !synced {
		p.errs = append(p.errs, fmt.Errorf("%s is set, but the repository is a directory read as it is, whose versions are not checked: set MODELS_DIR to a URL or REPOSITORY_POLL_INTERVAL above 0s (with MODEL_CACHE_DIR)", p.cur.Name))
		return "", nil
	}
	b, err := p.readFile(file)
	if err != nil {
		p.errs = append(p.errs, fmt.Errorf("%s: %w", p.cur.Name, unreadable(file, err)))
		return "", nil
	}
	keys, err := signature.ParseKeys(b)
	if err != nil {
		p.errs = append(p.errs, fmt.Errorf("%s %s: %w", p.cur.Name, file, err))
		return "", nil
	}
	return file, keys
}

// jobBytes reads MAX_JOB_BYTES_PER_KEY: 0, or a budget that holds at least one job of
// the largest request, which a smaller one would refuse for good.
func (p *parser) jobBytes(maxRequest int64) int64 {
	v, _ := p.value()
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil || n < 0 || n > 1<<50:
		p.fail(v, "want a whole number of bytes from 0 to 2^50")
	case n > 0 && n < maxRequest:
		p.fail(v, fmt.Sprintf("want at least MAX_REQUEST_BYTES (%d), or a key could never submit a job of the largest request; 0 disables the budget", maxRequest))
	}
	return n
}

// gcPercent reads GOGC as the Go runtime does: a percentage, or off (-1).
func (p *parser) gcPercent() int {
	v, _ := p.value()
	if strings.EqualFold(v, "off") {
		return -1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		p.fail(v, "want a whole number of percent (100 is Go's default) or off")
	}
	return n
}

func (p *parser) bool() bool {
	v, _ := p.value()
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.fail(v, "want true or false")
	}
	return b
}

func (p *parser) float() float64 {
	v, _ := p.value()
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 0) { // NaN parses, and would make every bucket misbehave
		p.fail(v, "want a number, 0 or more")
	}
	return f
}

func (p *parser) duration() time.Duration {
	v, _ := p.value()
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		p.fail(v, "want a positive duration such as 30s or 24h")
	}
	return d
}

// durationOrZero is duration that also takes 0 (and 0s).
func (p *parser) durationOrZero() time.Duration {
	v, _ := p.value()
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		p.fail(v, "want a duration such as 5s, or 0s")
	}
	return d
}

func (p *parser) level() slog.Level {
	var l slog.Level
	v, _ := p.value()
	if err := l.UnmarshalText([]byte(v)); err != nil {
		p.fail(v, "want debug, info, warn or error")
	}
	return l
}

func (p *parser) logFormat(production bool) string {
	v, set := p.value()
	if !set && production {
		v = "json"
	}
	if v != "text" && v != "json" {
		p.fail(v, "want text or json")
	}
	return v
}

func (p *parser) queueURL() string {
	v := p.str()
	if v != "" && !strings.HasPrefix(v, "redis://") && !strings.HasPrefix(v, "rediss://") && !strings.HasPrefix(v, "redis-sentinel://") && !strings.HasPrefix(v, "redis-cluster://") {
		// The value may hold a password: name the setting only.
		p.errs = append(p.errs, fmt.Errorf("%s: want redis://[:password@]host:port/db, rediss:// for TLS, redis-sentinel://[:password@]host1:port1,host2:port2/db?master=name, or redis-cluster://[:password@]host1:port1,host2:port2", p.cur.Name))
	}
	return v
}

// addr reads a host:port to listen on. Unset, it is every interface on port; port 0
// (":0") asks the system for a free port, which the server logs.
func (p *parser) addr(port int) string {
	v := p.set()
	if v == "" {
		return ":" + strconv.Itoa(port)
	}
	_, ps, err := net.SplitHostPort(v)
	n, perr := strconv.Atoi(ps)
	if err != nil || perr != nil || n < 0 || n > 65535 {
		p.fail(v, "want host:port with a numeric port, such as 127.0.0.1:9000, :9000 or :0 (any free port)")
	}
	return v
}

// publicURL reads the absolute URL a server behind a proxy is reached at. A trailing
// slash is dropped so paths can be appended to it.
func (p *parser) publicURL() string {
	v := p.set()
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		p.fail(v, "want an absolute http(s) URL without query or credentials, such as https://api.example.com/inferd")
		return ""
	}
	return strings.TrimRight(v, "/")
}

// origins reads CORS_ALLOWED_ORIGINS. An origin is what a browser sends in its Origin
// header: scheme://host[:port], nothing after it; browsers send it in lower case.
func (p *parser) origins() []string {
	v := p.set()
	if v == "" {
		return nil
	}
	if v == "*" {
		return []string{"*"}
	}
	var out []string
	for _, o := range strings.Split(v, ",") {
		o = strings.ToLower(strings.TrimSpace(o))
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		switch {
		case o == "*":
			p.fail(v, "* allows every origin: give it alone, not in a list")
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil:
			p.fail(v, fmt.Sprintf("%q is not an origin: want scheme://host[:port], such as https://app.example.com", o))
		case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(o, "?") || strings.HasSuffix(o, "#"):
			p.fail(v, fmt.Sprintf("%q: an origin has no path: write %s://%s", o, u.Scheme, u.Host))
		default:
			out = append(out, o)
		}
	}
	return out
}

// prefixes reads a comma-separated list of networks (CIDR) and single addresses.
func (p *parser) prefixes() []netip.Prefix {
	v := p.set()
	var out []netip.Prefix
	for _, e := range strings.Split(v, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if a, err := netip.ParseAddr(e); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		n, err := netip.ParsePrefix(e)
		if err != nil {
			p.fail(v, fmt.Sprintf("%q is neither an IP address nor a network such as 10.0.0.0/8", e))
			continue
		}
		out = append(out, n.Masked())
	}
	return out
}

// keys reads API_KEYS and API_KEYS_FILE together, and returns the file's path when
// the keys came from one. It never puts a key into an error: auth.Parse names entries
// by position.
func (p *parser) keys() (*auth.Keyring, string) {
	inline, file := p.getenv("API_KEYS"), strings.TrimSpace(p.getenv("API_KEYS_FILE"))
	switch {
	case strings.TrimSpace(inline) != "" && file != "":
		p.errs = append(p.errs, errors.New("set API_KEYS or API_KEYS_FILE, not both"))
		return nil, ""
	case strings.TrimSpace(inline) != "":
		k, err := auth.Parse("API_KEYS", inline)
		p.add(err)
		return k, ""
	case file != "":
		b, err := p.readFile(file)
		if err != nil {
			p.errs = append(p.errs, fmt.Errorf("API_KEYS_FILE: %w", unreadable(file, err)))
			return nil, ""
		}
		k, err := ParseKeysFile(file, b)
		p.add(err)
		return k, file
	}
	return auth.DevKeyring(), ""
}

// secret reads a setting whose value must never appear in an error: it is the
// webhook secret, whose form webhook.ParseSecret checks at start.
func (p *parser) secret(need bool) string {
	v := p.set()
	if need && v == "" {
		p.errs = append(p.errs, fmt.Errorf("%s is unset, but WEBHOOK_ALLOWED_HOSTS lets jobs have callbacks, which must be signed: set it to whsec_ followed by base64 of 32 random bytes", p.cur.Name))
	}
	return v
}

// oneOf reads a value that must be one of want; unset, it is the default (or "").
func (p *parser) oneOf(want ...string) string {
	v, _ := p.value()
	if v != "" && !slices.Contains(want, v) {
		p.fail(v, "want "+strings.Join(want, ", "))
	}
	return v
}

// httpURL reads an absolute http(s) URL.
func (p *parser) httpURL() string {
	v := p.set()
	if v == "" {
		return ""
	}
	if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.fail(v, "want an absolute http(s) URL, such as http://otel-collector:4318")
	}
	return v
}

// ratio reads a number from 0 to 1; unset, it is 1.
func (p *parser) ratio() float64 {
	v := p.set()
	if v == "" {
		return 1
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 0 && f <= 1) {
		p.fail(v, "want a number from 0 to 1")
	}
	return f
}

func (p *parser) add(err error) {
	if err != nil {
		p.errs = append(p.errs, err)
	}
}
