package queue

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// Conn is a parsed QUEUE_URL, in the two shapes its users want: NewClient and AsynqOpt
// pick the right one.
type Conn struct {
	// Redis configures the go-redis client that the store, the Runner and the Worker
	// share; nil for Sentinel.
	Redis *redis.Options
	// Asynq is the same connection for components that make their own client, such as
	// asynqmon.
	Asynq asynq.RedisClientOpt
	// Failover and AsynqFailover replace Redis and Asynq for a redis-sentinel:// URL.
	Failover      *redis.FailoverOptions
	AsynqFailover asynq.RedisFailoverClientOpt
	// Cluster and AsynqCluster replace them for a redis-cluster:// URL.
	Cluster      *redis.ClusterOptions
	AsynqCluster asynq.RedisClusterClientOpt
}

// IsCluster reports whether the connection is to a Redis Cluster.
func (c Conn) IsCluster() bool { return c.Cluster != nil }

// Defaults applied by ParseURL unless the URL's query sets them. go-redis would wait
// 5 s per dial, 5 dials per connection, 4 tries per command: half a minute before an
// API call could answer 503 when Redis is gone.
const (
	defaultDialTimeout   = 2 * time.Second
	defaultDialerRetries = 2
)

// ParseURL parses redis://[[user]:password@]host[:port][/db] or rediss://... (TLS),
// with go-redis's query options (dial_timeout, pool_size, ...), or a Redis behind
// Sentinel (see parseSentinelURL), or a Redis Cluster (see parseClusterURL). Its errors
// never repeat the URL, which may hold a password.
func ParseURL(raw string) (Conn, error) {
	if strings.HasPrefix(raw, SentinelScheme+"://") {
		return parseSentinelURL(raw)
	}
	if strings.HasPrefix(raw, ClusterScheme+"://") {
		return parseClusterURL(raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Conn{}, errors.New("QUEUE_URL is not a URL")
	}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return Conn{}, fmt.Errorf("QUEUE_URL has scheme %q; want redis, rediss, %s or %s", u.Scheme, SentinelScheme, ClusterScheme)
	}
	o, err := redis.ParseURL(raw)
	if err != nil {
		return Conn{}, fmt.Errorf("QUEUE_URL %s: %s", u.Redacted(), redactedCause(err, raw, u))
	}
	if !u.Query().Has("dial_timeout") {
		o.DialTimeout = defaultDialTimeout
	}
	o.DialerRetries = defaultDialerRetries
	return Conn{
		Redis: o,
		Asynq: asynq.RedisClientOpt{
			Network:      o.Network,
			Addr:         o.Addr,
			Username:     o.Username,
			Password:     o.Password,
			DB:           o.DB,
			DialTimeout:  o.DialTimeout,
			ReadTimeout:  o.ReadTimeout,
			WriteTimeout: o.WriteTimeout,
			PoolSize:     o.PoolSize,
			TLSConfig:    o.TLSConfig,
		},
	}, nil
}

// redactedCause is err's message, unless go-redis quoted the URL or its password in it.
func redactedCause(err error, raw string, u *url.URL) string {
	msg := err.Error()
	if p, ok := u.User.Password(); (ok && p != "" && strings.Contains(msg, p)) || strings.Contains(msg, raw) {
		return "invalid URL"
	}
	return msg
}

// multiHostOptions checks that the query of a URL naming several hosts (Sentinel's,
// a cluster's) has no option but dial_timeout and those of allowed, and reads
// dial_timeout into dial when it is there. It returns why the query is refused, or "".
func multiHostOptions(q url.Values, dial *time.Duration, allowed ...string) string {
	for k := range q {
		if k != "dial_timeout" && !slices.Contains(allowed, k) {
			return fmt.Sprintf("unknown option %q", k)
		}
	}
	if v := q.Get("dial_timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return "dial_timeout is not a positive duration"
		}
		*dial = d
	}
	return ""
}

// hostPorts splits u's comma-separated host list (url.Parse takes it for one host);
// what names an entry in the error.
func hostPorts(u *url.URL, what string) ([]string, error) {
	var hosts []string
	for _, h := range strings.Split(u.Host, ",") {
		host, port, err := net.SplitHostPort(h)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || host == "" || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%s %q is not host:port", what, h)
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}
