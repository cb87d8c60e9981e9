package queue

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/hibiken/asynq"
)

// asynqLogger sends asynq's log lines to slog, so a worker logs in one format.
type asynqLogger struct{ l *slog.Logger }

var _ asynq.Logger = asynqLogger{}

func (a asynqLogger) Debug(args ...any) { a.l.Debug(fmt.Sprint(args...)) }
func (a asynqLogger) Info(args ...any)  { a.l.Info(fmt.Sprint(args...)) }
func (a asynqLogger) Warn(args ...any)  { a.l.Warn(fmt.Sprint(args...)) }
func (a asynqLogger) Error(args ...any) { a.l.Error(fmt.Sprint(args...)) }

// Fatal exits, as asynq.Logger requires; asynq v0.26.0 never calls it.
func (a asynqLogger) Fatal(args ...any) {
	a.l.Error(fmt.Sprint(args...))
	os.Exit(1)
}
