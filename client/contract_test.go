package client_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/inferd/inferd"
	"github.com/inferd/inferd/client"
)

// methods names the SDK method of each operation of the contract.
var methods = map[string]string{
	"predict":           "Predict",
	"predictBatch":      "PredictBatch",
	"submitJob":         "Submit",
	"submitBatchJob":    "SubmitBatch",
	"pollJob":           "PollJob",
	"getJob":            "Job",
	"cancelJob":         "CancelJob",
	"listModels":        "Models",
	"getModel":          "Model",
	"health":            "Health",
	"ready":             "Ready",
	"metrics":           "Metrics",
	"listLoadedModels":  "LoadedModels",
	"reloadModel":       "Reload",
	"explainPrediction": "Explain",
	"modelMemory":       "Memory",
	"queueUI":           "QueueUI",
	"openapiYAML":       "OpenAPIYAML",
	"openapiJSON":       "OpenAPIJSON",
	"docs":              "Docs",
	"pprofIndex":        "ProfileIndex",
	"pprofCPU":          "CPUProfile",
	"pprofTrace":        "Trace",
	"pprofHeap":         "Profile",
	"pprofAllocs":       "Profile",
	"pprofGoroutine":    "Profile",
	"pprofBlock":        "Profile",
	"pprofMutex":        "Profile",
	"pprofThreadCreate": "Profile",
	"pprofCmdline":      "Cmdline",
	"pprofSymbol":       "Symbols",

	"oipServerMetadata":       "OIPServerMetadata",
	"oipServerLive":           "OIPLive",
	"oipServerReady":          "OIPReady",
	"oipModelMetadata":        "OIPModelMetadata",
	"oipModelVersionMetadata": "OIPModelMetadata",
	"oipModelReady":           "OIPModelReady",
	"oipModelVersionReady":    "OIPModelReady",
	"oipInfer":                "OIPInfer",
	"oipInferVersion":         "OIPInfer",

	"oipModelConfig":            "OIPModelConfig",
	"oipModelVersionConfig":     "OIPModelConfig",
	"oipStatistics":             "OIPStatistics",
	"oipModelStatistics":        "OIPStatistics",
	"oipModelVersionStatistics": "OIPStatistics",
	"oipRepositoryIndex":        "OIPRepositoryIndex",
	"oipRepositoryLoad":         "OIPLoad",
	"oipRepositoryUnload":       "OIPUnload",
}

// TestEveryOperationHasAMethod keeps the SDK complete as the contract grows.
func TestEveryOperationHasAMethod(t *testing.T) {
	spec, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	sdk := reflect.TypeFor[*client.Client]()
	seen := map[string]bool{}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			t.Run(op.OperationID, func(t *testing.T) {
				seen[op.OperationID] = true
				name, ok := methods[op.OperationID]
				if !ok {
					t.Fatalf("%s %s (%s) has no SDK method: add one to package client and name it in methods", method, path, op.OperationID)
				}
				if _, ok := sdk.MethodByName(name); !ok {
					t.Errorf("client.Client has no method %s for %s", name, op.OperationID)
				}
			})
		}
	}
	for id := range methods {
		if !seen[id] {
			t.Errorf("methods names %s, which the contract no longer has", id)
		}
	}
}

// codes are the SDK's Code* constants.
var codes = map[string]string{
	"CodeInvalidRequest":           client.CodeInvalidRequest,
	"CodeInvalidInput":             client.CodeInvalidInput,
	"CodeModelNotFound":            client.CodeModelNotFound,
	"CodeVersionNotFound":          client.CodeVersionNotFound,
	"CodeUnauthorized":             client.CodeUnauthorized,
	"CodeForbidden":                client.CodeForbidden,
	"CodeJobNotFound":              client.CodeJobNotFound,
	"CodeJobFinished":              client.CodeJobFinished,
	"CodeNotFound":                 client.CodeNotFound,
	"CodeMethodNotAllowed":         client.CodeMethodNotAllowed,
	"CodePayloadTooLarge":          client.CodePayloadTooLarge,
	"CodeResponseTooLarge":         client.CodeResponseTooLarge,
	"CodeUnsupportedMediaType":     client.CodeUnsupportedMediaType,
	"CodeRateLimited":              client.CodeRateLimited,
	"CodeConcurrencyLimited":       client.CodeConcurrencyLimited,
	"CodeAuthThrottled":            client.CodeAuthThrottled,
	"CodeJobsLimited":              client.CodeJobsLimited,
	"CodeJobBytesLimited":          client.CodeJobBytesLimited,
	"CodeExecutionError":           client.CodeExecutionError,
	"CodeInternalError":            client.CodeInternalError,
	"CodeReloadFailed":             client.CodeReloadFailed,
	"CodeModelLoading":             client.CodeModelLoading,
	"CodeModelUnavailable":         client.CodeModelUnavailable,
	"CodeQueueFull":                client.CodeQueueFull,
	"CodeQueueUnavailable":         client.CodeQueueUnavailable,
	"CodeShuttingDown":             client.CodeShuttingDown,
	"CodeRequestCancelled":         client.CodeRequestCancelled,
	"CodeProfileInProgress":        client.CodeProfileInProgress,
	"CodeRequestTimeout":           client.CodeRequestTimeout,
	"CodeHeaderTooLarge":           client.CodeHeaderTooLarge,
	"CodeNotImplemented":           client.CodeNotImplemented,
	"CodeIdempotencyKeyReused":     client.CodeIdempotencyKeyReused,
	"CodeIdempotencyKeyInProgress": client.CodeIdempotencyKeyInProgress,
	"CodeCallbackNotAllowed":       client.CodeCallbackNotAllowed,
	"CodeModelUnloaded":            client.CodeModelUnloaded,
}

// TestEveryCodeHasAConstant compares the Code* constants with the codes the contract
// lists in the description of Problem.code.
func TestEveryCodeHasAConstant(t *testing.T) {
	spec, err := inferd.Contract()
	if err != nil {
		t.Fatal(err)
	}
	desc := spec.Components.Schemas["Problem"].Value.Properties["code"].Value.Description
	_, list, ok := strings.Cut(desc, ":")
	if !ok {
		t.Fatalf("Problem.code's description lists no codes: %q", desc)
	}
	var contract []string
	for c := range strings.SplitSeq(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(list), ".")), ",") {
		contract = append(contract, strings.TrimSpace(c))
	}
	var sdk []string
	for name, c := range codes {
		sdk = append(sdk, c)
		want := "Code"
		for w := range strings.SplitSeq(c, "_") {
			want += strings.ToUpper(w[:1]) + w[1:]
		}
		if name != want {
			t.Errorf("%s holds %q; name it %s", name, c, want)
		}
	}
	slices.Sort(contract)
	slices.Sort(sdk)
	if !slices.Equal(contract, sdk) {
		t.Errorf("the contract's codes %v\nthe SDK's constants  %v", contract, sdk)
	}
}
