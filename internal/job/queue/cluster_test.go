package queue

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseClusterURL(t *testing.T) {
	tests := []struct {
		name     string
		url      string
		addrs    []string
		password string
		dial     time.Duration
		wantErr  string
	}{
		{name: "one seed", url: "redis-cluster://node:7000", addrs: []string{"node:7000"}, dial: defaultDialTimeout},
		{name: "seeds and password", url: "redis-cluster://:s3cret@a:7000,b:7001,c:7002", addrs: []string{"a:7000", "b:7001", "c:7002"}, password: "s3cret", dial: defaultDialTimeout},
		{name: "dial timeout", url: "redis-cluster://a:7000?dial_timeout=5s", addrs: []string{"a:7000"}, dial: 5 * time.Second},
		{name: "no port", url: "redis-cluster://:s3cret@a", wantErr: `"a" is not host:port`},
		{name: "a database", url: "redis-cluster://:s3cret@a:7000/1", wantErr: "no database"},
		{name: "unknown option", url: "redis-cluster://:s3cret@a:7000?master=x", wantErr: `unknown option "master"`},
		{name: "bad dial timeout", url: "redis-cluster://:s3cret@a:7000?dial_timeout=soon", wantErr: "dial_timeout"},
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
			if !c.IsCluster() || c.Redis != nil || c.Failover != nil {
				t.Fatalf("connection %+v is not a cluster's alone", c)
			}
			o, a := c.Cluster, c.AsynqCluster
			if !slices.Equal(o.Addrs, tt.addrs) || o.Password != tt.password || o.DialTimeout != tt.dial {
				t.Fatalf("go-redis options = addrs %v password %q dial %s", o.Addrs, o.Password, o.DialTimeout)
			}
			if !slices.Equal(a.Addrs, o.Addrs) || a.Password != o.Password || a.DialTimeout != o.DialTimeout {
				t.Fatalf("asynq options %+v differ from go-redis's", a)
			}
		})
	}
}
