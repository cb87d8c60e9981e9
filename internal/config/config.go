package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/inferd/inferd/internal/auth"
)

// Config is every setting of the server and the worker. Field comments give the
// environment variable and its default.
type Config struct {
	Port              int           // PORT, 8080
	ModelsDir         string        // MODELS_DIR, ./models
	QueueURL          string        // QUEUE_URL, unset: jobs run in-process
	Env               string        // INFERD_ENV, development; "production" forbids dev keys
	LogLevel          slog.Level    // LOG_LEVEL, info
	LogFormat         string        // LOG_FORMAT, text (json when INFERD_ENV=production)
	ONNXRuntimeLib    string        // ONNXRUNTIME_LIB, "": .onnxruntime/lib in the working directory or a parent
	MaxRequestBytes   int64         // MAX_REQUEST_BYTES, 1 MiB
	MaxBatchItems     int           // MAX_BATCH_ITEMS, 1024
	RateLimitRPS      float64       // RATE_LIMIT_RPS, 100; 0 disables rate limiting
	RateLimitBurst    int           // RATE_LIMIT_BURST, 200
	JobTTL            time.Duration // JOB_TTL, 24h
	JobWorkers        int           // JOB_WORKERS, number of CPUs (in-process mode)
	JobQueueSize      int           // JOB_QUEUE_SIZE, 1024 (in-process mode)
	LoadConcurrency   int           // LOAD_CONCURRENCY, 1
	LoadStrict        bool          // LOAD_STRICT, false: a version that fails to load stops the process
	ShutdownTimeout   time.Duration // SHUTDOWN_TIMEOUT, 30s
	WorkerPort        int           // WORKER_PORT, 8081
	WorkerConcurrency int           // WORKER_CONCURRENCY, number of CPUs
	PublicURL         string        // PUBLIC_URL, unset: the served contract's server is relative ("/")

	// Keys are the API keys from API_KEYS or API_KEYS_FILE, or the development keys.
	Keys *auth.Keyring
}

// Production reports whether INFERD_ENV is production.
func (c Config) Production() bool { return c.Env == "production" }

// FromEnv reads the settings from the process environment.
func FromEnv() (Config, error) { return Load(os.Getenv, os.ReadFile) }

// Load reads the settings through getenv and readFile (tests pass their own). The error
// lists every bad setting at once.
func Load(getenv func(string) string, readFile func(string) ([]byte, error)) (Config, error) {
	p := parser{getenv: getenv}
	c := Config{
		Port:              p.int("PORT", 8080, 1, 65535),
		ModelsDir:         p.str("MODELS_DIR", "./models"),
		QueueURL:          p.str("QUEUE_URL", ""),
		Env:               p.str("INFERD_ENV", "development"),
		ONNXRuntimeLib:    p.str("ONNXRUNTIME_LIB", ""),
		MaxRequestBytes:   int64(p.int("MAX_REQUEST_BYTES", 1<<20, 64, 1<<34)),
		MaxBatchItems:     p.int("MAX_BATCH_ITEMS", 1024, 1, 1<<24),
		RateLimitRPS:      p.float("RATE_LIMIT_RPS", 100),
		RateLimitBurst:    p.int("RATE_LIMIT_BURST", 200, 0, 1<<30),
		JobTTL:            p.duration("JOB_TTL", 24*time.Hour),
		JobWorkers:        p.int("JOB_WORKERS", 0, 0, 1<<16),
		JobQueueSize:      p.int("JOB_QUEUE_SIZE", 1024, 1, 1<<24),
		LoadConcurrency:   p.int("LOAD_CONCURRENCY", 1, 1, 1024),
		LoadStrict:        p.bool("LOAD_STRICT"),
		ShutdownTimeout:   p.duration("SHUTDOWN_TIMEOUT", 30*time.Second),
		WorkerPort:        p.int("WORKER_PORT", 8081, 1, 65535),
		WorkerConcurrency: p.int("WORKER_CONCURRENCY", 0, 0, 1<<16),
	}
	c.LogLevel = p.level("LOG_LEVEL")
	defFormat := "text"
	if c.Production() {
		defFormat = "json"
	}
	c.LogFormat = p.str("LOG_FORMAT", defFormat)
	if c.LogFormat != "text" && c.LogFormat != "json" {
		p.fail("LOG_FORMAT", c.LogFormat, "want text or json")
	}
	if !(c.RateLimitRPS >= 0) { // NaN parses, and would make every bucket misbehave
		p.fail("RATE_LIMIT_RPS", getenv("RATE_LIMIT_RPS"), "must be a number, 0 or more")
	}
	if q := c.QueueURL; q != "" && !strings.HasPrefix(q, "redis://") && !strings.HasPrefix(q, "rediss://") {
		p.errs = append(p.errs, errors.New("QUEUE_URL: want redis://[:password@]host:port/db, or rediss:// for TLS"))
	}
	c.PublicURL = p.publicURL("PUBLIC_URL")
	c.Keys = p.keys(readFile)
	if c.Keys != nil && c.Keys.IsDev() && c.Production() {
		p.errs = append(p.errs, errors.New("INFERD_ENV=production but no API_KEYS or API_KEYS_FILE is set: refusing to start with the built-in development keys"))
	}
	return c, errors.Join(p.errs...)
}

type parser struct {
	getenv func(string) string
	errs   []error
}

func (p *parser) fail(name, val, why string) {
	p.errs = append(p.errs, fmt.Errorf("%s=%q: %s", name, val, why))
}

func (p *parser) str(name, def string) string {
	if v := strings.TrimSpace(p.getenv(name)); v != "" {
		return v
	}
	return def
}

func (p *parser) int(name string, def, lo, hi int) int {
	v := strings.TrimSpace(p.getenv(name))
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		p.fail(name, v, fmt.Sprintf("want a whole number from %d to %d", lo, hi))
		return def
	}
	return n
}

func (p *parser) bool(name string) bool {
	v := strings.TrimSpace(p.getenv(name))
	if v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.fail(name, v, "want true or false")
	}
	return b
}

func (p *parser) float(name string, def float64) float64 {
	v := strings.TrimSpace(p.getenv(name))
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		p.fail(name, v, "want a number")
		return def
	}
	return f
}

func (p *parser) duration(name string, def time.Duration) time.Duration {
	v := strings.TrimSpace(p.getenv(name))
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		p.fail(name, v, "want a positive duration such as 30s or 24h")
		return def
	}
	return d
}

// publicURL reads the absolute URL a server behind a proxy is reached at. A trailing
// slash is dropped so paths can be appended to it.
func (p *parser) publicURL(name string) string {
	v := strings.TrimSpace(p.getenv(name))
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		p.fail(name, v, "want an absolute http(s) URL without query or credentials, such as https://api.example.com/inferd")
		return ""
	}
	return strings.TrimRight(v, "/")
}

func (p *parser) level(name string) slog.Level {
	var l slog.Level
	v := strings.TrimSpace(p.getenv(name))
	if v == "" {
		return slog.LevelInfo
	}
	if err := l.UnmarshalText([]byte(v)); err != nil {
		p.fail(name, v, "want debug, info, warn or error")
	}
	return l
}

// keys never puts a key into an error: auth.Parse names entries by position.
func (p *parser) keys(readFile func(string) ([]byte, error)) *auth.Keyring {
	inline, file := p.getenv("API_KEYS"), strings.TrimSpace(p.getenv("API_KEYS_FILE"))
	switch {
	case strings.TrimSpace(inline) != "" && file != "":
		p.errs = append(p.errs, errors.New("set API_KEYS or API_KEYS_FILE, not both"))
		return nil
	case strings.TrimSpace(inline) != "":
		k, err := auth.Parse("API_KEYS", inline)
		p.add(err)
		return k
	case file != "":
		b, err := readFile(file)
		if err != nil {
			p.errs = append(p.errs, fmt.Errorf("API_KEYS_FILE: %w", err))
			return nil
		}
		k, err := auth.Parse("API_KEYS_FILE "+file, string(b))
		p.add(err)
		return k
	}
	return auth.DevKeyring()
}

func (p *parser) add(err error) {
	if err != nil {
		p.errs = append(p.errs, err)
	}
}
