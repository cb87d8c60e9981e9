package config_test

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/inferd/inferd/internal/auth"
	"github.com/inferd/inferd/internal/config"
)

// load runs config.Load on env and files alone, never the process's environment.
func load(env, files map[string]string) (config.Config, error) {
	getenv := func(k string) string { return env[k] }
	readFile := func(name string) ([]byte, error) {
		if b, ok := files[name]; ok {
			return []byte(b), nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return config.Load(getenv, readFile)
}

func TestDefaults(t *testing.T) {
	c, err := load(nil, nil)
	if err != nil {
		t.Fatalf("Load with an empty environment: %v", err)
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"PORT", c.Port, 8080},
		{"MODELS_DIR", c.ModelsDir, "./models"},
		{"QUEUE_URL", c.QueueURL, ""},
		{"INFERD_ENV", c.Env, "development"},
		{"LOG_LEVEL", c.LogLevel, slog.LevelInfo},
		{"LOG_FORMAT", c.LogFormat, "text"},
		{"GOGC", c.GCPercent, config.DefaultGCPercent},
		{"MAX_REQUEST_BYTES", c.MaxRequestBytes, int64(config.DefaultMaxRequestBytes)},
		{"MAX_BATCH_ITEMS", c.MaxBatchItems, config.DefaultMaxBatchItems},
		{"RATE_LIMIT_RPS", c.RateLimitRPS, float64(config.DefaultRateLimitRPS)},
		{"RATE_LIMIT_BURST", c.RateLimitBurst, config.DefaultRateLimitBurst},
		{"MAX_CONCURRENT_PER_KEY", c.MaxConcurrentPerKey, config.DefaultMaxConcurrentPerKey},
		{"AUTH_FAILURES_PER_MINUTE", c.AuthFailuresPerMinute, config.DefaultAuthFailuresPerMinute},
		{"JOB_TTL", c.JobTTL, config.DefaultJobTTL},
		{"JOB_MAX_AGE", c.JobMaxAge, config.DefaultJobMaxAge},
		{"IDEMPOTENCY_TTL", c.IdempotencyTTL, config.DefaultIdempotencyTTL},
		{"MAX_JOB_BYTES_PER_KEY", c.MaxJobBytesPerKey, int64(config.DefaultMaxJobBytesPerKey)},
		{"QUEUE_MIN_REPLICAS", c.QueueMinReplicas, 0},
		{"QUEUE_REPLICA_TIMEOUT", c.QueueReplicaTimeout, config.DefaultReplicaTimeout},
		{"JOB_QUEUE_SIZE", c.JobQueueSize, config.DefaultJobQueueSize},
		{"LOAD_CONCURRENCY", c.LoadConcurrency, 1},
		{"DYNAMIC_BATCHING", c.DynamicBatching, true},
		{"SHUTDOWN_TIMEOUT", c.ShutdownTimeout, config.DefaultShutdownTimeout},
		{"SHUTDOWN_DRAIN", c.ShutdownDrain, config.DefaultShutdownDrain},
		{"WORKER_PORT", c.WorkerPort, 8081},
		{"PUBLIC_URL", c.PublicURL, ""},
		{"LISTEN_ADDR", c.ListenAddr, ":8080"},
		{"WORKER_LISTEN_ADDR", c.WorkerListenAddr, ":8081"},
		{"CORS_ALLOWED_ORIGINS", len(c.CORSAllowedOrigins), 0},
		{"TRUSTED_PROXIES", len(c.TrustedProxies), 0},
		{"MAX_CONNECTIONS", c.MaxConnections, 0},
		{"MAX_CONNECTIONS_PER_ADDRESS", c.MaxConnectionsPerAddress, 0},
		{"production", c.Production(), false},
		{"development keys", c.Keys != nil && c.Keys.IsDev(), true},
		{"KEYS_RELOAD_INTERVAL", c.KeysReloadInterval, config.DefaultKeysReloadInterval},
		{"no keys file to reload", c.KeysFile, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("%s = %v (%T), want %v (%T)", tt.name, tt.got, tt.got, tt.want, tt.want)
			}
		})
	}
}

func TestOverrides(t *testing.T) {
	c, err := load(map[string]string{
		"PORT":                  " 9090 ",
		"MODELS_DIR":            "/srv/models",
		"QUEUE_URL":             "redis://localhost:6379/0",
		"LOG_LEVEL":             "debug",
		"LOG_FORMAT":            "json",
		"GOGC":                  "OFF",
		"MAX_REQUEST_BYTES":     "2048",
		"MAX_BATCH_ITEMS":       "16",
		"RATE_LIMIT_RPS":        "0", // disables rate limiting
		"RATE_LIMIT_BURST":      "0",
		"JOB_TTL":               "90m",
		"JOB_MAX_AGE":           "36h",
		"MAX_JOB_BYTES_PER_KEY": "4096",
		"QUEUE_MIN_REPLICAS":    "1",
		"QUEUE_REPLICA_TIMEOUT": "250ms",
		"LOAD_CONCURRENCY":      "4",
		"DYNAMIC_BATCHING":      "false",
		"SHUTDOWN_TIMEOUT":      "5s",
		"PUBLIC_URL":            "https://gw.example.com/inferd/",
		"WORKER_PORT":           "9091",
		"KEYS_RELOAD_INTERVAL":  "0s", // SIGHUP only
	}, nil)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"PORT", c.Port, 9090},
		{"MODELS_DIR", c.ModelsDir, "/srv/models"},
		{"QUEUE_URL", c.QueueURL, "redis://localhost:6379/0"},
		{"LOG_LEVEL", c.LogLevel, slog.LevelDebug},
		{"LOG_FORMAT", c.LogFormat, "json"},
		{"GOGC off", c.GCPercent, -1},
		{"MAX_REQUEST_BYTES", c.MaxRequestBytes, int64(2048)},
		{"MAX_BATCH_ITEMS", c.MaxBatchItems, 16},
		{"RATE_LIMIT_RPS", c.RateLimitRPS, 0.0},
		{"RATE_LIMIT_BURST", c.RateLimitBurst, 0},
		{"JOB_TTL", c.JobTTL, 90 * time.Minute},
		{"JOB_MAX_AGE", c.JobMaxAge, 36 * time.Hour},
		{"MAX_JOB_BYTES_PER_KEY", c.MaxJobBytesPerKey, int64(4096)},
		{"QUEUE_MIN_REPLICAS", c.QueueMinReplicas, 1},
		{"QUEUE_REPLICA_TIMEOUT", c.QueueReplicaTimeout, 250 * time.Millisecond},
		{"LOAD_CONCURRENCY", c.LoadConcurrency, 4},
		{"DYNAMIC_BATCHING", c.DynamicBatching, false},
		{"SHUTDOWN_TIMEOUT", c.ShutdownTimeout, 5 * time.Second},
		{"PUBLIC_URL without its trailing slash", c.PublicURL, "https://gw.example.com/inferd"},
		{"LISTEN_ADDR follows PORT", c.ListenAddr, ":9090"},
		{"WORKER_LISTEN_ADDR follows WORKER_PORT", c.WorkerListenAddr, ":9091"},
		{"KEYS_RELOAD_INTERVAL", c.KeysReloadInterval, time.Duration(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
			}
		})
	}
}

func TestBadValuesNameTheVariable(t *testing.T) {
	tests := []struct{ name, value string }{
		{"PORT", "http"},
		{"PORT", "0"},
		{"PORT", "65536"},
		{"PORT", "80.5"},
		{"MAX_REQUEST_BYTES", "-1"},
		{"MAX_REQUEST_BYTES", "1MiB"},
		{"MAX_BATCH_ITEMS", "0"},
		{"RATE_LIMIT_RPS", "fast"},
		{"RATE_LIMIT_RPS", "-1"},
		{"RATE_LIMIT_RPS", "NaN"},
		{"RATE_LIMIT_BURST", "-5"},
		{"JOB_TTL", "24"},
		{"JOB_TTL", "-1h"},
		{"JOB_TTL", "0s"},
		{"JOB_MAX_AGE", "7d"},
		{"JOB_MAX_AGE", "0"},
		{"MAX_JOB_BYTES_PER_KEY", "-1"},
		{"MAX_JOB_BYTES_PER_KEY", "256MiB"},
		{"MAX_JOB_BYTES_PER_KEY", "1000"}, // below MAX_REQUEST_BYTES: no key could submit the largest job
		{"QUEUE_MIN_REPLICAS", "-1"},
		{"QUEUE_REPLICA_TIMEOUT", "1"},
		{"JOB_QUEUE_SIZE", "0"},
		{"JOB_WORKERS", "many"},
		{"LOAD_CONCURRENCY", "0"},
		{"DYNAMIC_BATCHING", "sometimes"},
		{"SHUTDOWN_TIMEOUT", "soon"},
		{"WORKER_PORT", "99999"},
		{"LOG_LEVEL", "loud"},
		{"LOG_FORMAT", "xml"},
		{"GOGC", "-5"},
		{"GOGC", "lots"},
		{"QUEUE_URL", "http://localhost:6379"},
		{"QUEUE_URL", "localhost:6379"},
		{"PUBLIC_URL", "/inferd"},
		{"PUBLIC_URL", "api.example.com"},
		{"PUBLIC_URL", "ftp://api.example.com"},
		{"PUBLIC_URL", "https://"},
		{"PUBLIC_URL", "https://api.example.com/?x=1"},
		{"PUBLIC_URL", "https://api.example.com/#top"},
		{"PUBLIC_URL", "https://user:pw@api.example.com"},
		{"PUBLIC_URL", "http://[::1"},
		{"LISTEN_ADDR", "9000"},
		{"LISTEN_ADDR", "localhost"},
		{"LISTEN_ADDR", ":http"},
		{"LISTEN_ADDR", ":65536"},
		{"LISTEN_ADDR", "::1:9000"},
		{"WORKER_LISTEN_ADDR", "0.0.0.0"},
		{"CORS_ALLOWED_ORIGINS", "app.example.com"},
		{"CORS_ALLOWED_ORIGINS", "https://app.example.com/"},
		{"CORS_ALLOWED_ORIGINS", "https://app.example.com/ui"},
		{"CORS_ALLOWED_ORIGINS", "ftp://files.example.com"},
		{"CORS_ALLOWED_ORIGINS", "*,https://app.example.com"},
		{"CORS_ALLOWED_ORIGINS", "https://"},
		{"TRUSTED_PROXIES", "10.0.0.0/8/8"},
		{"TRUSTED_PROXIES", "10.0.0.0/33"},
		{"TRUSTED_PROXIES", "ingress.local"},
		{"KEYS_RELOAD_INTERVAL", "2"},
		{"KEYS_RELOAD_INTERVAL", "-1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			_, err := load(map[string]string{tt.name: tt.value}, nil)
			if err == nil {
				t.Fatalf("Load accepted %s=%q", tt.name, tt.value)
			}
			if !strings.Contains(err.Error(), tt.name) {
				t.Errorf("error %q does not name %s", err, tt.name)
			}
		})
	}
}

func TestEveryBadValueIsReported(t *testing.T) {
	_, err := load(map[string]string{"PORT": "x", "JOB_TTL": "y", "LOG_FORMAT": "z"}, nil)
	for _, name := range []string{"PORT", "JOB_TTL", "LOG_FORMAT"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error %v does not name %s", err, name)
		}
	}
}

func TestKeys(t *testing.T) {
	const fileKeys = "# mounted secret\nf1le-key:predict+read_models\nf1le-admin:admin\n"
	files := map[string]string{"/run/secrets/keys": fileKeys, "/run/secrets/bad": "f1le-secret-entry\n"}
	tests := []struct {
		name     string
		env      map[string]string
		wantErr  []string // substrings of the error; nil for success
		secret   string   // must never be in the error
		wantLen  int
		wantDev  bool
		wantJSON bool // LOG_FORMAT defaults to json in production
		// devInProduction: CheckKeys refuses the keys (the server will not start).
		devInProduction bool
	}{
		{name: "development keys by default", env: nil, wantLen: 2, wantDev: true},
		{
			// Load reads them; CheckKeys, which only the server calls, refuses them.
			name:    "production refuses development keys",
			env:     map[string]string{"INFERD_ENV": "production"},
			wantLen: 2, wantDev: true, wantJSON: true, devInProduction: true,
		},
		{
			name:    "production with API_KEYS",
			env:     map[string]string{"INFERD_ENV": "production", "API_KEYS": "pr0d-key:predict,pr0d-admin:admin"},
			wantLen: 2, wantJSON: true,
		},
		{
			name:    "production with API_KEYS_FILE",
			env:     map[string]string{"INFERD_ENV": "production", "API_KEYS_FILE": "/run/secrets/keys"},
			wantLen: 2, wantJSON: true,
		},
		{
			name:    "API_KEYS_FILE in development",
			env:     map[string]string{"API_KEYS_FILE": " /run/secrets/keys "},
			wantLen: 2,
		},
		{
			name:    "blank API_KEYS counts as unset",
			env:     map[string]string{"API_KEYS": "  ", "API_KEYS_FILE": "/run/secrets/keys"},
			wantLen: 2,
		},
		{
			name:    "both set",
			env:     map[string]string{"API_KEYS": "s3cr3t-inline:predict", "API_KEYS_FILE": "/run/secrets/keys"},
			wantErr: []string{"API_KEYS", "API_KEYS_FILE", "not both"},
			secret:  "s3cr3t-inline",
		},
		{
			name:    "missing file",
			env:     map[string]string{"API_KEYS_FILE": "/run/secrets/missing"},
			wantErr: []string{"API_KEYS_FILE", "/run/secrets/missing"},
		},
		{
			name:    "malformed API_KEYS",
			env:     map[string]string{"API_KEYS": "ok-key:predict,s3cr3t-inline"},
			wantErr: []string{"API_KEYS entry 2"},
			secret:  "s3cr3t-inline",
		},
		{
			name:    "unknown scope in API_KEYS",
			env:     map[string]string{"API_KEYS": "s3cr3t-inline:root"},
			wantErr: []string{"API_KEYS entry 1", "unknown scope"},
			secret:  "s3cr3t-inline",
		},
		{
			name:    "malformed API_KEYS_FILE",
			env:     map[string]string{"API_KEYS_FILE": "/run/secrets/bad"},
			wantErr: []string{"API_KEYS_FILE /run/secrets/bad entry 1"},
			secret:  "f1le-secret-entry",
		},
		{
			name:    "malformed API_KEYS in production",
			env:     map[string]string{"INFERD_ENV": "production", "API_KEYS": "s3cr3t-inline:"},
			wantErr: []string{"API_KEYS entry 1"},
			secret:  "s3cr3t-inline",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(tt.env, files)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatal("Load succeeded, want an error")
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not mention %q", err, want)
					}
				}
				if tt.secret != "" && strings.Contains(err.Error(), tt.secret) {
					t.Errorf("error %q reveals the key", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.Keys == nil || c.Keys.Len() != tt.wantLen || c.Keys.IsDev() != tt.wantDev {
				t.Fatalf("keys %+v, want %d keys, dev %v", c.Keys, tt.wantLen, tt.wantDev)
			}
			if err := c.CheckKeys(); (err != nil) != tt.devInProduction || err != nil && !errors.Is(err, config.ErrDevKeysInProduction) {
				t.Errorf("CheckKeys: %v, want an error %v", err, tt.devInProduction)
			}
			if got := c.LogFormat == "json"; got != tt.wantJSON {
				t.Errorf("LOG_FORMAT %q", c.LogFormat)
			}
		})
	}
}

// The keys read from API_KEYS_FILE carry the scopes the file gives them.
func TestKeysFromFileAuthorize(t *testing.T) {
	c, err := load(map[string]string{"API_KEYS_FILE": " /keys "}, map[string]string{"/keys": "f1le-key:predict\nf1le-admin:admin+read_models\n"})
	if err != nil {
		t.Fatal(err)
	}
	if c.KeysFile != "/keys" {
		t.Errorf("KeysFile = %q, want /keys: the file a reload reads", c.KeysFile)
	}
	tests := []struct {
		key   string
		scope auth.Scope
		want  error
	}{
		{"f1le-key", auth.ScopePredict, nil},
		{"f1le-key", auth.ScopeAdmin, auth.ErrForbidden},
		{"f1le-admin", auth.ScopeAdmin, nil},
		{"f1le-admin", auth.ScopePredict, auth.ErrForbidden},
		{auth.DevKey, auth.ScopePredict, auth.ErrUnauthenticated},
		{auth.AdminKey, auth.ScopeAdmin, auth.ErrUnauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.key+"/"+string(tt.scope), func(t *testing.T) {
			if _, err := c.Keys.Authorize(tt.key, tt.scope); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Errorf("Authorize = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestListenAddr(t *testing.T) {
	tests := []struct {
		name           string
		env            map[string]string
		server, worker string
	}{
		{"defaults", nil, ":8080", ":8081"},
		{"loopback only", map[string]string{"LISTEN_ADDR": "127.0.0.1:9000"}, "127.0.0.1:9000", ":8081"},
		{"overrides PORT", map[string]string{"PORT": "9090", "LISTEN_ADDR": " [::1]:9000 "}, "[::1]:9000", ":8081"},
		{"any free port", map[string]string{"LISTEN_ADDR": ":0", "WORKER_LISTEN_ADDR": "127.0.0.1:0"}, ":0", "127.0.0.1:0"},
		{"a host name", map[string]string{"WORKER_PORT": "9091", "WORKER_LISTEN_ADDR": "localhost:9092"}, ":8080", "localhost:9092"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(tt.env, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.ListenAddr != tt.server || c.WorkerListenAddr != tt.worker {
				t.Errorf("ListenAddr %q, WorkerListenAddr %q; want %q, %q", c.ListenAddr, c.WorkerListenAddr, tt.server, tt.worker)
			}
		})
	}
}

func TestCORSAllowedOrigins(t *testing.T) {
	tests := []struct {
		value string
		want  []string
	}{
		{"", nil},
		{"*", []string{"*"}},
		{" * ", []string{"*"}},
		{"https://app.example.com", []string{"https://app.example.com"}},
		{"HTTPS://App.Example.com:8443, http://localhost:3000,", []string{"https://app.example.com:8443", "http://localhost:3000"}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			c, err := load(map[string]string{"CORS_ALLOWED_ORIGINS": tt.value}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.CORSAllowedOrigins, tt.want) {
				t.Errorf("origins %q, want %q", c.CORSAllowedOrigins, tt.want)
			}
		})
	}
}

func TestTrustedProxies(t *testing.T) {
	tests := []struct {
		value string
		want  string
	}{
		{"", "[]"},
		{"10.0.0.0/8", "[10.0.0.0/8]"},
		{" 10.1.2.3/8 , 192.168.1.7,,fd00::/8, ::1", "[10.0.0.0/8 192.168.1.7/32 fd00::/8 ::1/128]"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			c, err := load(map[string]string{"TRUSTED_PROXIES": tt.value}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(c.TrustedProxies); got != tt.want {
				t.Errorf("networks %s, want %s", got, tt.want)
			}
		})
	}
}

// TestSettingsAreWhatLoadReads keeps the table honest: Load reads every variable the
// table lists and no other, so --help and docs/settings.md (both made from the table) list
// every setting there is.
func TestSettingsAreWhatLoadReads(t *testing.T) {
	read := map[string]bool{}
	if _, err := config.Load(func(k string) string { read[k] = true; return "" }, nil); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, s := range config.Settings() {
		t.Run(s.Name, func(t *testing.T) {
			if listed[s.Name] {
				t.Errorf("%s is listed twice", s.Name)
			}
			listed[s.Name] = true
			if !read[s.Name] {
				t.Errorf("%s is listed but Load never reads it", s.Name)
			}
			if s.Meaning == "" {
				t.Errorf("%s has no meaning", s.Name)
			}
		})
	}
	for name := range read {
		if !listed[name] {
			t.Errorf("Load reads %s, which Settings does not list", name)
		}
	}
}

// TestShownDefaultsAreTheDefaults sets each variable to the default the table shows
// and expects the same Config as leaving it unset.
func TestShownDefaultsAreTheDefaults(t *testing.T) {
	want, err := load(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range config.Settings() {
		if s.Default == "" {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			got, err := load(map[string]string{s.Name: s.Default}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s=%s gives\n%+v\nunset gives\n%+v", s.Name, s.Default, got, want)
			}
		})
	}
}

// TestRepositorySettings: a repository's URL and a polled directory need a cache
// directory of their own, outside the repository; the cache's settings and
// REQUIRE_DIGESTS are refused where nothing would apply them; a URL's credentials are
// refused without being repeated.
func TestRepositorySettings(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		synced  bool
		wantErr string // "" for none
	}{
		{"a directory, as before", map[string]string{"MODELS_DIR": "/srv/models"}, false, ""},
		{"a bucket", map[string]string{"MODELS_DIR": "s3://models/prod", "MODEL_CACHE_DIR": "/var/cache/inferd"}, true, ""},
		{"a bucket without a cache", map[string]string{"MODELS_DIR": "s3://models/prod"}, false, "MODEL_CACHE_DIR is unset, but MODELS_DIR is a URL"},
		{"a polled directory", map[string]string{"MODELS_DIR": "/srv/models", "REPOSITORY_POLL_INTERVAL": "30s", "MODEL_CACHE_DIR": "/var/cache/inferd"}, true, ""},
		{"a polled directory without a cache", map[string]string{"MODELS_DIR": "/srv/models", "REPOSITORY_POLL_INTERVAL": "30s"}, false, "MODEL_CACHE_DIR is unset, but REPOSITORY_POLL_INTERVAL is set"},
		{"the cache inside the polled directory", map[string]string{"MODELS_DIR": "/srv/models", "REPOSITORY_POLL_INTERVAL": "30s", "MODEL_CACHE_DIR": "/srv/models/cache"}, false, "inside MODELS_DIR"},
		{"the cache in a skipped directory of it", map[string]string{"MODELS_DIR": "/srv/models", "REPOSITORY_POLL_INTERVAL": "30s", "MODEL_CACHE_DIR": "/srv/models/.cache"}, true, ""},
		{"the polled directory inside the cache", map[string]string{"MODELS_DIR": "/srv/models", "REPOSITORY_POLL_INTERVAL": "30s", "MODEL_CACHE_DIR": "/srv"}, false, "is inside it"},
		{"a cache of no use", map[string]string{"MODEL_CACHE_DIR": "/var/cache/inferd"}, false, "of use only to a synced repository"},
		{"a bound on no cache", map[string]string{"MODEL_CACHE_MAX_BYTES": "1000"}, false, "no cache to bound"},
		{"digests required of a directory read as it is", map[string]string{"REQUIRE_DIGESTS": "true"}, false, "REQUIRE_DIGESTS=true, but the repository is a directory"},
		{"a negative interval", map[string]string{"REPOSITORY_POLL_INTERVAL": "-1s"}, false, "want a duration"},
		{"credentials in the URL", map[string]string{"MODELS_DIR": "s3://AKIDSECRET:hunter2@models/prod", "MODEL_CACHE_DIR": "/var/cache/inferd"}, false, "credentials do not go in the repository's URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(tt.env, nil)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Load: %v", err)
				}
				if c.Synced() != tt.synced {
					t.Errorf("Synced() = %v, want %v", c.Synced(), tt.synced)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Load = %v, want an error saying %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "AKIDSECRET") {
				t.Errorf("the error repeats the credentials: %v", err)
			}
		})
	}
	c, err := load(nil, nil)
	if err != nil || c.RepositoryPollInterval != 0 || c.ModelCacheDir != "" || c.ModelCacheMaxBytes != 0 || c.RequireDigests || c.Synced() {
		t.Errorf("defaults: %+v, %v: want no polling, no cache, no digests required", c, err)
	}
}

// TestSigningKey: MODEL_SIGNING_KEY is read at start, its keys parsed, and refused
// where nothing would check them or when the file holds no public key.
func TestSigningKey(t *testing.T) {
	const pub = "-----BEGIN PUBLIC KEY-----\n" +
		"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEVs/o5+uQbTjL3chynL4wXgUg2R9\n" +
		"q9UU8I5mEovUf86QZ7kOBIjJwqnzD1omageEHWwHdBO6B+dFabmdT9POxg==\n" +
		"-----END PUBLIC KEY-----\n"
	bucket := map[string]string{"MODELS_DIR": "s3://models/prod", "MODEL_CACHE_DIR": "/var/cache/inferd", "MODEL_SIGNING_KEY": "/etc/inferd/cosign.pub"}
	tests := []struct {
		name    string
		env     map[string]string
		files   map[string]string
		keys    int
		wantErr string
	}{
		{"a key for a bucket", bucket, map[string]string{"/etc/inferd/cosign.pub": pub}, 1, ""},
		{"two keys, the same twice", bucket, map[string]string{"/etc/inferd/cosign.pub": pub + pub}, 1, ""},
		{"a key for a directory read as it is", map[string]string{"MODEL_SIGNING_KEY": "/etc/inferd/cosign.pub"}, map[string]string{"/etc/inferd/cosign.pub": pub}, 0, "MODEL_SIGNING_KEY is set, but the repository is a directory"},
		{"a missing file", bucket, nil, 0, "MODEL_SIGNING_KEY: open /etc/inferd/cosign.pub"},
		{"the private key", bucket, map[string]string{"/etc/inferd/cosign.pub": "-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED SIGSTORE PRIVATE KEY-----\n"}, 0, "configure its public half"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(tt.env, tt.files)
			if tt.wantErr == "" {
				if err != nil || len(c.SigningKeys) != tt.keys || c.SigningKeyFile != tt.env["MODEL_SIGNING_KEY"] {
					t.Fatalf("Load = %d keys of %q, %v; want %d", len(c.SigningKeys), c.SigningKeyFile, err, tt.keys)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Load = %v, want an error saying %q", err, tt.wantErr)
			}
		})
	}
}
