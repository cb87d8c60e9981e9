package redistest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a Redis Cluster of redis-server nodes owned by a test: primaries that
// share the 16384 slots, each with its replicas, and a node timeout of one second, so
// that a killed primary is failed over within a few seconds.
type Cluster struct {
	tb    testing.TB
	Nodes []*Server
}

// StartCluster starts primaries * (1 + replicas) cluster nodes on free ports, joins
// them with redis-cli --cluster create, and waits until every node sees the cluster
// ok and every primary has its replicas online. The nodes are killed when tb ends.
func StartCluster(tb testing.TB, primaries, replicas int) *Cluster {
	tb.Helper()
	if primaries < 3 {
		tb.Fatalf("a Redis Cluster needs at least 3 primaries, not %d", primaries)
	}
	cli := lookCLI(tb)
	c := &Cluster{tb: tb}
	args := []string{"--cluster", "create"}
	for range primaries * (1 + replicas) {
		s := StartWith(tb, Options{Cluster: true})
		c.Nodes = append(c.Nodes, s)
		args = append(args, s.Addr())
	}
	args = append(args, "--cluster-replicas", fmt.Sprint(replicas), "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		tb.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	c.WaitOK(primaries, replicas)
	return c
}

// lookCLI finds redis-cli, or skips the test, or fails it under CI=true.
func lookCLI(tb testing.TB) string {
	tb.Helper()
	bin, err := exec.LookPath("redis-cli")
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("redis-cli is not installed, and CI=true makes that a failure: %v", err)
		}
		tb.Skipf("redis-cli is not installed: %v", err)
	}
	return bin
}

// clusterTimeout bounds how long a cluster may take to agree on its state: after its
// creation, or after a failover.
const clusterTimeout = 30 * time.Second

// WaitOK waits until every live node reports cluster_state:ok and the cluster has
// primaries primaries, each with replicas replicas linked to it.
func (c *Cluster) WaitOK(primaries, replicas int) {
	c.tb.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(clusterTimeout)
	for {
		why := c.notOK(ctx, primaries, replicas)
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			c.tb.Fatalf("the cluster is not ready after %s: %s", clusterTimeout, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *Cluster) notOK(ctx context.Context, primaries, replicas int) string {
	for _, s := range c.Live() {
		rc := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
		info, err := rc.ClusterInfo(ctx).Result()
		var shards []redis.ClusterShard
		if err == nil {
			shards, err = rc.ClusterShards(ctx).Result()
		}
		_ = rc.Close()
		if err != nil {
			return fmt.Sprintf("%s: %v", s.Addr(), err)
		}
		if !strings.Contains(info, "cluster_state:ok") {
			return s.Addr() + " is not ok"
		}
		n := 0
		for _, sh := range shards {
			var online, primary int
			for _, node := range sh.Nodes {
				if node.Health != "online" {
					continue
				}
				if node.Role == "master" {
					primary++
				} else {
					online++
				}
			}
			if len(sh.Slots) > 0 && primary == 1 && online >= replicas {
				n++
			}
		}
		if n != primaries {
			return fmt.Sprintf("%s sees %d of %d primaries with slots and %d replicas online", s.Addr(), n, primaries, replicas)
		}
	}
	return ""
}

// Live are the nodes that run.
func (c *Cluster) Live() []*Server {
	var out []*Server
	for _, s := range c.Nodes {
		s.mu.Lock()
		if s.proc != nil {
			out = append(out, s)
		}
		s.mu.Unlock()
	}
	return out
}

// Addrs are the nodes' host:port.
func (c *Cluster) Addrs() []string {
	var out []string
	for _, s := range c.Nodes {
		out = append(out, s.Addr())
	}
	return out
}

// URL is the cluster's QUEUE_URL, every node a seed.
func (c *Cluster) URL() string { return "redis-cluster://" + strings.Join(c.Addrs(), ",") }

// Client returns a cluster client, closed when the test ends.
func (c *Cluster) Client() *redis.ClusterClient {
	rc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
	c.tb.Cleanup(func() { _ = rc.Close() })
	return rc
}

// PrimaryOf returns the node that serves key's slot now.
func (c *Cluster) PrimaryOf(key string) *Server {
	c.tb.Helper()
	rc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
	defer rc.Close()
	ctx := context.Background()
	node, err := rc.MasterForKey(ctx, key)
	if err != nil {
		c.tb.Fatalf("finding the primary of %q: %v", key, err)
	}
	addr := node.Options().Addr
	for _, s := range c.Nodes {
		if s.Addr() == addr {
			return s
		}
	}
	c.tb.Fatalf("the primary of %q is %s, not a node of the cluster", key, addr)
	return nil
}

// KeysPerPrimary counts, on each primary that holds any, the keys whose name starts
// with prefix (SCAN), by the primary's address.
func (c *Cluster) KeysPerPrimary(prefix string) map[string]int {
	c.tb.Helper()
	ctx := context.Background()
	out := map[string]int{}
	for _, s := range c.Live() {
		rc := redis.NewClient(&redis.Options{Addr: s.Addr()})
		role, err := rc.Do(ctx, "ROLE").Slice()
		if err != nil || len(role) == 0 || role[0] != "master" {
			_ = rc.Close()
			continue
		}
		iter := rc.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			out[s.Addr()]++
		}
		err = iter.Err()
		_ = rc.Close()
		if err != nil {
			c.tb.Fatalf("scanning %s: %v", s.Addr(), err)
		}
	}
	return out
}

// Failover kills the primary p (SIGKILL) and waits until every live node has seen a
// replica of it promoted and the cluster is ok again, with primaries primaries.
func (c *Cluster) Failover(p *Server, primaries int) {
	c.tb.Helper()
	p.Stop()
	ctx := context.Background()
	deadline := time.Now().Add(clusterTimeout)
	for !c.promoted(ctx, p.Addr()) {
		if time.Now().After(deadline) {
			c.tb.Fatalf("no replica of %s was promoted within %s", p.Addr(), clusterTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.WaitOK(primaries, 0)
}

// promoted reports whether every live node sees the primary dead no longer primary
// of any slots.
func (c *Cluster) promoted(ctx context.Context, dead string) bool {
	for _, s := range c.Live() {
		rc := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
		shards, err := rc.ClusterShards(ctx).Result()
		_ = rc.Close()
		if err != nil {
			return false
		}
		for _, sh := range shards {
			for _, n := range sh.Nodes {
				if n.Role == "master" && len(sh.Slots) > 0 && fmt.Sprintf("%s:%d", n.IP, n.Port) == dead {
					return false
				}
			}
		}
	}
	return true
}
