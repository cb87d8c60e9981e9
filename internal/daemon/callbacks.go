package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/inferd/inferd/internal/config"
	"github.com/inferd/inferd/internal/job"
	"github.com/inferd/inferd/internal/jobrecord"
	"github.com/inferd/inferd/internal/metrics"
	"github.com/inferd/inferd/internal/webhook"
)

// Callbacks is how a process posts jobs' completion callbacks (WEBHOOK_*): the hosts
// they may go to (the server refuses a job whose callback goes elsewhere), and the
// sender, nil when WEBHOOK_ALLOWED_HOSTS is unset.
type Callbacks struct {
	Allow  webhook.AllowList
	sender *webhook.Sender
}

// newCallbacks reads the WEBHOOK_* settings; config only checked that a secret is set
// where one is needed, since it links nothing of the server.
func newCallbacks(cfg config.Config) (Callbacks, error) {
	allow, err := webhook.ParseAllowList(cfg.WebhookAllowedHosts)
	if err != nil {
		return Callbacks{}, fmt.Errorf("WEBHOOK_ALLOWED_HOSTS: %w", err)
	}
	if allow.Empty() {
		return Callbacks{}, nil
	}
	secret, err := webhook.ParseSecret(cfg.WebhookSecret)
	if err != nil {
		return Callbacks{}, fmt.Errorf("WEBHOOK_SECRET: %w", err) // never the secret itself
	}
	return Callbacks{Allow: allow, sender: webhook.NewSender(webhook.SenderOptions{
		Secret: secret, Allow: allow, Timeout: cfg.WebhookTimeout,
	})}, nil
}

// Dispatch posts the callbacks queued in store until the returned stop is called,
// which waits for the posts under way. Without a sender it does nothing: a callback
// queued by a server that allows them waits for a process that does.
func (c Callbacks) Dispatch(cfg config.Config, store job.Store, queue job.CallbackQueue, m *metrics.Metrics, log *slog.Logger) (stop func()) {
	if c.sender == nil {
		return func() {}
	}
	d := webhook.NewDispatcher(webhook.DispatcherOptions{
		Store: store, Queue: queue, Sender: c.sender, Encode: jobrecord.JSON,
		Concurrency: cfg.WebhookConcurrency, MaxAge: cfg.WebhookMaxAge, Observer: m,
		Logger: log.With("component", "webhook"),
	})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { d.Run(ctx) })
	log.Info("posting completion callbacks", "concurrency", cfg.WebhookConcurrency, "timeout", cfg.WebhookTimeout, "max_age", cfg.WebhookMaxAge)
	return func() { cancel(); wg.Wait() }
}
