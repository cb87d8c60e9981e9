package main

import (
	"fmt"
	"io"
	"slices"
)

// The gRPC section of benchmarks.md lies between these markers, so that a run of
// `-section grpc` can rewrite it alone and leave the rest of the page as it was.
const (
	grpcSectionStart = "<!-- bench-grpc -->"
	grpcSectionEnd   = "<!-- /bench-grpc -->"
)

// grpcSectionCases are the rows the gRPC section shows, in its order: the digits
// model by every route at one and many connections, then the 1 MB tensor. They are
// also what `-section grpc` runs when -cases is not given (as -cases words).
var (
	grpcSectionCases = []string{
		CaseDigitsOn, CaseDigitsV2JSON, CaseDigitsV2Binary, CaseDigitsGRPCRaw, CaseDigitsGRPC,
		CaseOIPJSON, CaseOIPBinary, CaseOIPGRPCRaw, CaseOIPGRPC,
	}
	grpcSectionWords = []string{"batching on", "digits /v2", "modelinfer", "1 mb"}
)

// hasGRPC says whether the run measured a gRPC case.
func (r *Report) hasGRPC() bool {
	return slices.ContainsFunc(r.Results, func(x Result) bool { return slices.Contains(grpcCases, x.Case) })
}

// WriteGRPC writes the gRPC section, markers included: the rows of the Open Inference
// Protocol's routes side by side and issue 28's targets, every ratio paired within
// rounds like the rest of the page.
func (r *Report) WriteGRPC(w io.Writer, header bool) {
	fmt.Fprintln(w, grpcSectionStart)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## The Open Inference Protocol: REST and gRPC")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The same inferd serves REST and gRPC (`GRPC_LISTEN_ADDR` on a free loopback port);")
	fmt.Fprintln(w, "the gRPC cases call ModelInfer with the harness's own HTTP/2 gRPC client, as lean")
	fmt.Fprintln(w, "as its HTTP/1.1 writer: one goroutine per connection writes each call's HEADERS")
	fmt.Fprintln(w, "(encoded once) and length-prefixed message (the generated Go type of")
	fmt.Fprintln(w, "api/inference.proto, marshalled once) and reads the answer, honouring HTTP/2 flow")
	fmt.Fprintln(w, "control; one call outstanding at a time per connection, closed-loop, as each REST")
	fmt.Fprintln(w, "connection has one request. The key travels as `x-api-key` metadata and no deadline")
	fmt.Fprintln(w, "is sent. Raw cases send the tensor in `raw_input_contents` (the answer")
	fmt.Fprintln(w, "comes back raw), typed ones in `contents.fp32_contents`; REST binary is the binary")
	fmt.Fprintln(w, "tensor data extension both ways. Digits is the batching model (`/v2` takes its")
	fmt.Fprintln(w, "ONNX input, [1, 64] FP32; `/predict` its JSON `data`); the 1 MB tensor goes")
	fmt.Fprintln(w, "through echo. Every case of a connection count runs right after the others, and")
	fmt.Fprintln(w, "each ratio is the median of its rounds' ratios, so the comparison holds on a")
	fmt.Fprintln(w, "machine that other work shares.")
	fmt.Fprintln(w)
	if header {
		r.writeSectionRun(w)
	}
	fmt.Fprintln(w, "| case | connections | req/s | p50 | p90 | p99 | server CPU/req | load generator CPU/req | errors |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, name := range grpcSectionCases {
		for _, x := range r.Results {
			if x.Case != name {
				continue
			}
			if x.NA != "" {
				fmt.Fprintf(w, "| %s | %d | n/a: %s | | | | | | |\n", x.Case, x.Conns, x.NA)
				continue
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %d |\n", x.Case, x.Conns, rate(x.ReqPerSec()), dur(x.P50), dur(x.P90), dur(x.P99),
				cpuDur(x.ServerCPU, x.ServerCPUPerReq()), cpuDur(x.ClientCPU, x.ClientCPUPerReq()), x.Errors)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### Issue 28's targets in this run")
	fmt.Fprintln(w)
	writeTargetTable(w, r.grpcTargets())
	r.writeGRPCClients(w)
	fmt.Fprintln(w, grpcSectionEnd)
}

// grpcTargets are issue 28's: the raw 1 MB tensor costs the server no more CPU over
// gRPC than as REST's binary data, and digits at many connections goes at least as
// fast over gRPC as over REST (both of REST's /v2 spellings; typed gRPC beside).
func (r *Report) grpcTargets() []target {
	var ts []target
	ratio := func(what, want, a, b string, conns int, f func(Result) float64, ok func(float64) bool) {
		ts = append(ts, r.pairedTarget(what, want, a, b, conns, f, ok))
	}
	atLeast1 := func(x float64) bool { return x >= 1 }
	atMost1 := func(x float64) bool { return x <= 1 }
	ratio("1 MB FP32 echo, 1 connection, server CPU/req: gRPC raw vs REST binary", "<= 1.00x",
		CaseOIPGRPCRaw, CaseOIPBinary, 1, serverCPU, atMost1)
	ratio(fmt.Sprintf("digits, %d connections, req/s: gRPC raw vs REST /v2 JSON", manyConns), ">= 1.00x",
		CaseDigitsGRPCRaw, CaseDigitsV2JSON, manyConns, reqPerSec, atLeast1)
	ratio(fmt.Sprintf("digits, %d connections, req/s: gRPC raw vs REST /v2 binary", manyConns), ">= 1.00x",
		CaseDigitsGRPCRaw, CaseDigitsV2Binary, manyConns, reqPerSec, atLeast1)
	ratio(fmt.Sprintf("digits, %d connections, req/s: gRPC typed vs REST /v2 JSON", manyConns), ">= 1.00x",
		CaseDigitsGRPC, CaseDigitsV2JSON, manyConns, reqPerSec, atLeast1)
	return ts
}

// writeGRPCClients says what the throughput ratio at many connections is made of: the
// servers' CPU per request and the load generator's, which shares the cores.
func (r *Report) writeGRPCClients(w io.Writer) {
	srv := r.pairedRatio(CaseDigitsGRPCRaw, CaseDigitsV2JSON, manyConns, serverCPU)
	cli := r.pairedRatio(CaseDigitsGRPCRaw, CaseDigitsV2JSON, manyConns, clientCPU)
	if srv == "" || cli == "" {
		return
	}
	g, _ := r.find(CaseDigitsGRPCRaw, manyConns)
	j, _ := r.find(CaseDigitsV2JSON, manyConns)
	fmt.Fprintf(w, "At %d connections the two cores are saturated and shared by inferd and the load\n", manyConns)
	fmt.Fprintf(w, "generator, so throughput follows the CPU both spend per request. Digits over gRPC raw\n")
	fmt.Fprintf(w, "costs inferd %s per request against %s over REST /v2 JSON (%s), and the\n",
		cpuDur(g.ServerCPU, g.ServerCPUPerReq()), cpuDur(j.ServerCPU, j.ServerCPUPerReq()), srv)
	fmt.Fprintf(w, "load generator %s against %s (%s)",
		cpuDur(g.ClientCPU, g.ClientCPUPerReq()), cpuDur(j.ClientCPU, j.ClientCPUPerReq()), cli)
	if x, _ := r.paired(CaseDigitsGRPCRaw, CaseDigitsV2JSON, manyConns, clientCPU); x > 1 {
		// The CPU the client takes per call is CPU the server does not get.
		fmt.Fprint(w, ":\nthe harness's HTTP/2 gRPC client (framing, HPACK, protobuf) costs more per call\nthan its HTTP/1.1 writer, out of the same two cores")
	}
	fmt.Fprintln(w, ".")
	fmt.Fprintln(w)
}

// spliceGRPC replaces the gRPC section of page (benchmarks.md) with section; a page
// without one gets it before make bench-cluster's section, or at its end.
func spliceGRPC(page, section []byte) ([]byte, error) {
	return spliceSection(page, section, grpcSectionStart, grpcSectionEnd, "gRPC")
}
