package daemon

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/job/queue"
	"github.com/inferd/inferd/internal/metrics"
)

// TaskOptions are how the servers and workers of a deployment queue jobs: they must
// agree on them.
func TaskOptions(cfg config.Config, conn queue.Conn) queue.TaskOptions {
	return queue.TaskOptions{Shards: cfg.QueueShards, Cluster: conn.IsCluster()}
}

// RedisClient is the client of QUEUE_URL, which logs go-redis's own lines into log.
func RedisClient(cfg config.Config, log *slog.Logger) (redis.UniversalClient, queue.Conn, error) {
	conn, err := queue.ParseURL(cfg.QueueURL)
	if err != nil {
		return nil, queue.Conn{}, err
	}
	// go-redis logs through a process-wide logger; without this its reconnect noise
	// bypasses the structured log.
	redis.SetLogger(redisLogger{log.With("component", "redis")})
	return conn.NewClient(), conn, nil
}

type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, fmt.Sprintf(format, v...))
}

// PlainAsynq is the asynq version this binary was built with, after logging, at ERROR,
// and counting a version whose Redis layout inferd does not know: then submissions
// queue through asynq's own client and workers poll (see queue.LayoutKnown).
func PlainAsynq(log *slog.Logger, m *metrics.Metrics) string {
	v := queue.AsynqVersion()
	if !queue.LayoutKnown(v) {
		log.Error("this binary is built with an asynq whose Redis layout inferd does not know: jobs queue through asynq's own client and idle workers poll Redis every poll interval; build with the asynq inferd was checked against",
			"asynq", v, "layout", queue.LayoutVersion)
		m.PlainAsynq("version")
	}
	return v
}
