package apitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"sync"
)

// Log is a server's log, written by the server's goroutines (slog.NewJSONHandler
// over it) or by a child process (proctest) while a test reads it.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything logged so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// AccessLine decodes into v the access log line (msg "request") of the request whose
// X-Request-Id is requestID, and reports whether the log has one yet.
func (l *Log) AccessLine(requestID string, v any) bool {
	sc := bufio.NewScanner(strings.NewReader(l.String()))
	for sc.Scan() {
		var line struct {
			Msg       string `json:"msg"`
			RequestID string `json:"request_id"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "request" && line.RequestID == requestID {
			return json.Unmarshal(sc.Bytes(), v) == nil
		}
	}
	return false
}
