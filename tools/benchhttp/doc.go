// Command benchhttp is inferd's HTTP benchmark harness (`make bench-http`). One run
// starts the built inferd binaries, a bare net/http JSON echo server as the baseline and,
// for queue mode, its own redis-server, all on free loopback ports; then it drives each
// case closed-loop at several connection counts and writes a Markdown table and an SVG
// chart of throughput against p99 latency. The gRPC cases call inferd's Open Inference
// Protocol listener with a minimal HTTP/2 gRPC client of its own (GRPCConn) and the
// messages generated from api/inference.proto.
//
// It is a stand-alone program in the tools module so that measuring inferd never
// changes inferd's own dependency graph: its HTTP client is the standard library's
// net, and its HTTP/2 is golang.org/x/net's framer and HPACK, which grpc-go uses anyway.
package main
