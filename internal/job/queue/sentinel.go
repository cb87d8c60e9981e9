package queue

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// SentinelScheme is QUEUE_URL's scheme for a Redis behind Sentinel, as asynq spells it.
const SentinelScheme = "redis-sentinel"

// parseSentinelURL parses
//
//	redis-sentinel://[[user]:password@]host1:port1[,host2:port2...][/db]?master=name
//
// asynq's form: the hosts are the sentinels, master names the monitored primary, the
// password is the primary's (and its replicas'). Query options: sentinel_password (when
// the sentinels have their own requirepass) and dial_timeout.
func parseSentinelURL(raw string) (Conn, error) {
	// url.Parse accepts a comma-separated host list as one host; it is split here.
	u, err := url.Parse(raw)
	if err != nil {
		return Conn{}, errors.New("QUEUE_URL is not a URL")
	}
	bad := func(why string) (Conn, error) {
		return Conn{}, fmt.Errorf("QUEUE_URL %s: %s; want %s://[:password@]host1:port1,host2:port2/db?master=name", u.Redacted(), why, SentinelScheme)
	}
	q := u.Query()
	o := &redis.FailoverOptions{
		MasterName:       q.Get("master"),
		SentinelPassword: q.Get("sentinel_password"),
		DialTimeout:      defaultDialTimeout,
		DialerRetries:    defaultDialerRetries,
	}
	if o.MasterName == "" {
		return bad("no master name (?master=)")
	}
	if why := multiHostOptions(q, &o.DialTimeout, "master", "sentinel_password"); why != "" {
		return bad(why)
	}
	if u.User != nil {
		o.Username = u.User.Username()
		o.Password, _ = u.User.Password()
	}
	if o.SentinelAddrs, err = hostPorts(u, "sentinel"); err != nil {
		return bad(err.Error())
	}
	if db := strings.Trim(u.Path, "/"); db != "" {
		if o.DB, err = strconv.Atoi(db); err != nil || o.DB < 0 {
			return bad(fmt.Sprintf("database %q is not a number", db))
		}
	}
	return Conn{
		Failover: o,
		AsynqFailover: asynq.RedisFailoverClientOpt{
			MasterName:       o.MasterName,
			SentinelAddrs:    o.SentinelAddrs,
			SentinelPassword: o.SentinelPassword,
			Username:         o.Username,
			Password:         o.Password,
			DB:               o.DB,
			DialTimeout:      o.DialTimeout,
		},
	}, nil
}

// NewClient returns a client of the connection: a plain one, for Sentinel one that
// asks the sentinels for the primary and follows it through failovers, or a cluster
// client that sends each command to the primary of its keys' slot.
func (c Conn) NewClient() redis.UniversalClient {
	switch {
	case c.Failover != nil:
		return redis.NewFailoverClient(c.Failover)
	case c.Cluster != nil:
		return newClusterClient(c.Cluster)
	}
	return redis.NewClient(c.Redis)
}

// AsynqOpt is the connection for components that make their own client (asynqmon).
func (c Conn) AsynqOpt() asynq.RedisConnOpt {
	switch {
	case c.Failover != nil:
		return c.AsynqFailover
	case c.Cluster != nil:
		return c.AsynqCluster
	}
	return c.Asynq
}
