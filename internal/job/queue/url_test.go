package queue

import (
	"strings"
	"testing"
	"time"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		name     string
		url      string
		addr     string
		password string
		db       int
		tls      bool
		dial     time.Duration
		wantErr  string
	}{
		{name: "plain", url: "redis://localhost:6379/0", addr: "localhost:6379", dial: defaultDialTimeout},
		{name: "default port and db", url: "redis://cache", addr: "cache:6379", dial: defaultDialTimeout},
		{name: "password and db", url: "redis://:s3cret@cache:6380/2", addr: "cache:6380", password: "s3cret", db: 2, dial: defaultDialTimeout},
		{name: "tls", url: "rediss://:s3cret@cache:6380/1", addr: "cache:6380", password: "s3cret", db: 1, tls: true, dial: defaultDialTimeout},
		{name: "query options win", url: "redis://cache:6379/0?dial_timeout=7s", addr: "cache:6379", dial: 7 * time.Second},
		{name: "other scheme", url: "http://cache:6379", wantErr: `scheme "http"`},
		{name: "bad db keeps the password out", url: "redis://:s3cret@cache:6379/x", wantErr: "QUEUE_URL"},
		{name: "not a url keeps the password out", url: "redis://:s3cret@cache:port/0", wantErr: "QUEUE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseURL(tt.url)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want it to mention %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Fatalf("error %q shows the password", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r, a := c.Redis, c.Asynq
			if r.Addr != tt.addr || r.Password != tt.password || r.DB != tt.db || (r.TLSConfig != nil) != tt.tls || r.DialTimeout != tt.dial {
				t.Fatalf("go-redis options = addr %q password %q db %d tls %v dial %s", r.Addr, r.Password, r.DB, r.TLSConfig != nil, r.DialTimeout)
			}
			if a.Addr != r.Addr || a.Password != r.Password || a.DB != r.DB || a.TLSConfig != r.TLSConfig || a.DialTimeout != r.DialTimeout {
				t.Fatalf("asynq options %+v differ from go-redis's", a)
			}
			if tt.tls && r.TLSConfig.ServerName != "cache" {
				t.Fatalf("TLS server name = %q", r.TLSConfig.ServerName)
			}
		})
	}
}
