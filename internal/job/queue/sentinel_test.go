package queue

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
)

func TestParseSentinelURL(t *testing.T) {
	tests := []struct {
		name      string
		url       string
		sentinels []string
		master    string
		password  string
		sentPass  string
		db        int
		dial      time.Duration
		wantErr   string
	}{
		{name: "three sentinels", url: "redis-sentinel://h1:26379,h2:26380,10.0.0.3:26381/2?master=mymaster",
			sentinels: []string{"h1:26379", "h2:26380", "10.0.0.3:26381"}, master: "mymaster", db: 2, dial: defaultDialTimeout},
		{name: "one sentinel, no db", url: "redis-sentinel://h1:26379?master=m",
			sentinels: []string{"h1:26379"}, master: "m", dial: defaultDialTimeout},
		{name: "passwords and dial timeout", url: "redis-sentinel://:s3cret@h1:1,h2:2/0?master=m&sentinel_password=s3ntinel&dial_timeout=3s",
			sentinels: []string{"h1:1", "h2:2"}, master: "m", password: "s3cret", sentPass: "s3ntinel", dial: 3 * time.Second},
		{name: "no master", url: "redis-sentinel://:s3cret@h1:1,h2:2/0", wantErr: "master"},
		{name: "no port", url: "redis-sentinel://:s3cret@h1,h2:2/0?master=m", wantErr: `"h1"`},
		{name: "bad db", url: "redis-sentinel://:s3cret@h1:1/x?master=m", wantErr: "database"},
		{name: "unknown option", url: "redis-sentinel://:s3cret@h1:1/0?master=m&pool=3", wantErr: `"pool"`},
		{name: "bad dial timeout", url: "redis-sentinel://:s3cret@h1:1/0?master=m&dial_timeout=soon", wantErr: "dial_timeout"},
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
			f, a := c.Failover, c.AsynqFailover
			if f == nil || c.Redis != nil {
				t.Fatalf("want failover options only, got %+v", c)
			}
			if !slices.Equal(f.SentinelAddrs, tt.sentinels) || f.MasterName != tt.master || f.Password != tt.password ||
				f.SentinelPassword != tt.sentPass || f.DB != tt.db || f.DialTimeout != tt.dial {
				t.Fatalf("go-redis options = %+v", f)
			}
			if !slices.Equal(a.SentinelAddrs, f.SentinelAddrs) || a.MasterName != f.MasterName || a.Password != f.Password ||
				a.SentinelPassword != f.SentinelPassword || a.DB != f.DB || a.DialTimeout != f.DialTimeout {
				t.Fatalf("asynq options %+v differ from go-redis's", a)
			}
			if _, ok := c.AsynqOpt().(asynq.RedisFailoverClientOpt); !ok {
				t.Fatalf("AsynqOpt = %T, want the failover options", c.AsynqOpt())
			}
		})
	}
}
