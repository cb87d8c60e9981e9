package queue

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/redistest"
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

// TestClusterClientFollowsAFailover: with the primary of a slot killed and its replica
// promoted (cluster_state:ok everywhere), a client that still maps the slot to the dead
// node, as every client does until it reloads, gets its next command through at the
// first call: the connection it cannot open to the dead node makes it reload the map
// and send the command again, to the new primary. So do a script (a submission, a
// worker's dequeue) and a pipeline, whose commands for live nodes ran once and are not
// sent again. go-redis alone retried on the stale map and failed.
func TestClusterClientFollowsAFailover(t *testing.T) {
	c := redistest.StartCluster(t, 3, 1)
	conn, err := ParseURL(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const onVictim = "{failover}"
	victim := c.PrimaryOf(onVictim)
	var elsewhere string // a key of another primary's
	for i := 0; elsewhere == ""; i++ {
		if k := "{other" + strings.Repeat("x", i) + "}"; c.PrimaryOf(k) != victim {
			elsewhere = k
		}
	}
	tests := []struct {
		name string
		run  func(rc *redis.ClusterClient) error
	}{
		{"a command", func(rc *redis.ClusterClient) error { return rc.Set(ctx, onVictim+"a", "1", 0).Err() }},
		{"a script", func(rc *redis.ClusterClient) error {
			return redis.NewScript(`return redis.call('INCR', KEYS[1])`).Run(ctx, rc, []string{onVictim + "b"}).Err()
		}},
		{"a pipeline over two primaries", func(rc *redis.ClusterClient) error {
			_, err := rc.Pipelined(ctx, func(p redis.Pipeliner) error {
				p.Incr(ctx, elsewhere+"once")
				p.Set(ctx, onVictim+"c", "1", 0)
				return nil
			})
			return err
		}},
	}
	// Each its own client, its map of slots read before the failover.
	clients := make([]*redis.ClusterClient, len(tests))
	for i := range tests {
		clients[i] = conn.NewClient().(*redis.ClusterClient)
		t.Cleanup(func() { _ = clients[i].Close() })
		if err := clients[i].Set(ctx, onVictim+"warm", "1", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	c.Failover(victim, 3)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(clients[i]); err != nil {
				t.Fatalf("after the failover: %v", err)
			}
		})
	}
	if n, err := c.Client().Get(ctx, elsewhere+"once").Int(); err != nil || n != 1 {
		t.Errorf("the pipeline's command for a live primary ran %d times (%v), want once", n, err)
	}
}
