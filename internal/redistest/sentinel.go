package redistest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Sentinels are redis-server processes in sentinel mode watching one primary, with
// timings short enough for a test: a primary silent for 1 s is down, and two sentinels
// agreeing start a failover.
type Sentinels struct {
	tb     testing.TB
	master string
	procs  []*Server
}

// StartSentinels starts n sentinels (n >= 2; quorum 2) monitoring primary under the
// name master, and waits until each knows the primary's replicas (wantReplicas) and
// the other sentinels, so that a failover can happen. Start the replicas first.
func StartSentinels(tb testing.TB, primary *Server, master string, n, wantReplicas int) *Sentinels {
	tb.Helper()
	ss := &Sentinels{tb: tb, master: master}
	bin := lookPath(tb)
	conf := func(port int) string {
		return fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\n"+
			"sentinel monitor %s 127.0.0.1 %d 2\n"+
			"sentinel down-after-milliseconds %[3]s 1000\n"+
			"sentinel failover-timeout %[3]s 5000\n"+
			"sentinel parallel-syncs %[3]s 4\n", port, tb.TempDir(), master, primary.port)
	}
	for range n {
		s := &Server{tb: tb, bin: bin, dir: tb.TempDir(), sentinel: conf}
		s.launch()
		ss.procs = append(ss.procs, s)
	}
	ctx := context.Background()
	deadline := time.Now().Add(20 * time.Second)
	for _, s := range ss.procs {
		c := s.Client()
		for {
			reps, err1 := c.Do(ctx, "SENTINEL", "REPLICAS", master).Slice()
			others, err2 := c.Do(ctx, "SENTINEL", "SENTINELS", master).Slice()
			if err1 == nil && err2 == nil && len(reps) >= wantReplicas && len(others) >= n-1 {
				break
			}
			if time.Now().After(deadline) {
				tb.Fatalf("sentinel %s knows %d replicas (%v) and %d other sentinels (%v) after 20 s, want %d and %d",
					s.Addr(), len(reps), err1, len(others), err2, wantReplicas, n-1)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return ss
}

// Addrs are the sentinels' host:port.
func (ss *Sentinels) Addrs() []string {
	var out []string
	for _, s := range ss.procs {
		out = append(out, s.Addr())
	}
	return out
}

// URL is the QUEUE_URL of the monitored primary through the sentinels.
func (ss *Sentinels) URL(db int) string {
	return "redis-sentinel://" + strings.Join(ss.Addrs(), ",") + "/" + strconv.Itoa(db) + "?master=" + ss.master
}

// Primary asks the first sentinel that answers for the primary's host:port.
func (ss *Sentinels) Primary() (string, error) {
	var err error
	for _, s := range ss.procs {
		c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
		var addr []string
		addr, err = c.Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", ss.master).StringSlice()
		_ = c.Close()
		if err == nil && len(addr) == 2 {
			return addr[0] + ":" + addr[1], nil
		}
	}
	return "", fmt.Errorf("no sentinel named the primary: %v", err)
}

// WaitReplicas waits until s, a primary, has n replicas online.
func (s *Server) WaitReplicas(n int) {
	s.tb.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(startTimeout)
	for {
		info, err := c.Info(context.Background(), "replication").Result()
		if err == nil && strings.Count(info, "state=online") >= n {
			return
		}
		if time.Now().After(deadline) {
			s.tb.Fatalf("%s has not %d replicas online after %s: %v\n%s", s.Addr(), n, startTimeout, err, info)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
