// Package logline is a log/slog handler for the lines a busy server writes most: flat
// records of strings, integers, booleans and durations, such as the access log's
// line per request. It writes them byte for byte as slog's TextHandler or
// JSONHandler would, without the per-record cost of their general machinery, and
// hands every other record (groups, floats, times, arbitrary values, non-ASCII text,
// a logger made With attributes) to that slog handler itself.
//
// One thing differs from slog's defaults, on both paths: a duration is written in
// milliseconds under its key with "_ms" added (MillisDurations), so that a JSON log
// does not hold bare nanoseconds.
package logline
