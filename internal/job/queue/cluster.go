package queue

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

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
// fails. go-redis reloads the map of slots to nodes on a MOVED answer, or when the map
// is 10 s old; a primary that died answers nothing, so until then every command for
// its slots went to the dead node even after a replica took over: 10 s of 503s for
// the jobs of its shards. The reload is asynchronous and at most one per 200 ms.
func newClusterClient(o *redis.ClusterOptions) *redis.ClusterClient {
	cc := redis.NewClusterClient(o)
	cc.AddHook(reloader{cc})
	return cc
}

// reloader is the go-redis hook of newClusterClient.
type reloader struct{ cc *redis.ClusterClient }

func (r reloader) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r reloader) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		r.failed(ctx, err)
		return err
	}
}

func (r reloader) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		r.failed(ctx, err)
		return err
	}
}

// failed reloads the slots' map after an error that may mean a node is gone: not an
// empty answer, nor the caller's own deadline or cancellation.
func (r reloader) failed(ctx context.Context, err error) {
	if err == nil || errors.Is(err, redis.Nil) || ctx.Err() != nil {
		return
	}
	r.cc.ReloadState(ctx)
}
