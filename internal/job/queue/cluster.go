package queue

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// ClusterScheme is QUEUE_URL's scheme for a Redis Cluster.
const ClusterScheme = "redis-cluster"

// parseClusterURL parses
//
//	redis-cluster://[[user]:password@]host1:port1[,host2:port2...]
//
// the seed nodes of a Redis Cluster (the client learns the others from them), with the
// nodes' password. Query option: dial_timeout. A cluster has one database, so there is
// no /db.
func parseClusterURL(raw string) (Conn, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Conn{}, errors.New("QUEUE_URL is not a URL")
	}
	bad := func(why string) (Conn, error) {
		return Conn{}, fmt.Errorf("QUEUE_URL %s: %s; want %s://[:password@]host1:port1,host2:port2", u.Redacted(), why, ClusterScheme)
	}
	o := &redis.ClusterOptions{DialTimeout: defaultDialTimeout, DialerRetries: defaultDialerRetries}
	if why := multiHostOptions(u.Query(), &o.DialTimeout); why != "" {
		return bad(why)
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		return bad("a cluster has no database number")
	}
	if u.User != nil {
		o.Username = u.User.Username()
		o.Password, _ = u.User.Password()
	}
	if o.Addrs, err = hostPorts(u, "node"); err != nil {
		return bad(err.Error())
	}
	return Conn{
		Cluster: o,
		AsynqCluster: asynq.RedisClusterClientOpt{
			Addrs:       o.Addrs,
			Username:    o.Username,
			Password:    o.Password,
			DialTimeout: o.DialTimeout,
		},
	}, nil
}

// newClusterClient is a cluster client that learns of a failover as soon as a command
// fails, and sends a command that could not reach the dead primary again once it has.
//
// go-redis reloads the map of slots to nodes on a MOVED answer, or when the map is
// 10 s old; a primary that died answers nothing, so until then every command for its
// slots went to the dead node even after a replica took over: 10 s of 503s for the
// jobs of its shards. Reloading after any failed command (failed) shortened that to
// the one command that found the map stale, and those at the same time: after a
// failover, with the cluster ok again, one of 300 submissions was still refused. For
// go-redis retries a command whose connection to a primary fails (MaxRedirects times)
// on the same map, never reloaded in between (it reloads only on MOVED, ASK and
// READONLY answers; a node marked failing is passed over only among replicas), so each
// attempt dialled the dead node again, and the command failed ~400 ms later.
//
// So a command whose last attempt failed to connect is sent again once the map is
// reloaded (resendAfter), a few times over about a second: that attempt never reached
// a node and did nothing, so the command is safe to send again, whatever it is (a
// submission's script, a worker's dequeue, a pipeline's commands for that node). A
// command whose connection broke after it was sent may have run: it is not sent again
// here unless go-redis itself sent it again (its retry, of the commands it deems safe)
// and that attempt could not connect.
func newClusterClient(o *redis.ClusterOptions) *redis.ClusterClient {
	cc := redis.NewClusterClient(o)
	cc.AddHook(reloader{cc: cc, after: resendAfter})
	return cc
}

// resendAfter are the waits for a reload before each resend of a command that could
// not connect: a reload is one CLUSTER SLOTS, and go-redis makes at most one per
// 200 ms. A command still unsent after the last (the cluster has not failed over yet)
// fails as it would have, ~1.5 s later than without them.
var resendAfter = []time.Duration{20 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond}

// reloader is the go-redis hook of newClusterClient.
type reloader struct {
	cc    *redis.ClusterClient
	after []time.Duration
}

func (r reloader) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r reloader) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		for _, wait := range r.after {
			if !unsent(err) || !r.reload(ctx, wait) {
				break
			}
			err = next(ctx, cmd)
		}
		r.failed(ctx, err)
		return err
	}
}

func (r reloader) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, wait := range r.after {
			// The commands for live nodes ran: only those that reached no node go again.
			var again []redis.Cmder
			for _, cmd := range cmds {
				if unsent(cmd.Err()) {
					again = append(again, cmd)
				}
			}
			if len(again) == 0 || !r.reload(ctx, wait) {
				break
			}
			_ = next(ctx, again)
			err = firstErr(cmds)
		}
		r.failed(ctx, err)
		return err
	}
}

// reload asks for the map of slots again and waits for it, unless ctx ends first.
func (r reloader) reload(ctx context.Context, wait time.Duration) bool {
	r.cc.ReloadState(ctx)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// unsent reports whether err says the command reached no node: every connection to
// the node it was for failed to open.
func unsent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// firstErr is a pipeline's error, as go-redis words it: its first command's that
// failed.
func firstErr(cmds []redis.Cmder) error {
	for _, cmd := range cmds {
		if err := cmd.Err(); err != nil {
			return err
		}
	}
	return nil
}

// failed reloads the slots' map after an error that may mean a node is gone: not an
// empty answer, nor the caller's own deadline or cancellation.
func (r reloader) failed(ctx context.Context, err error) {
	if err == nil || errors.Is(err, redis.Nil) || ctx.Err() != nil {
		return
	}
	r.cc.ReloadState(ctx)
}
