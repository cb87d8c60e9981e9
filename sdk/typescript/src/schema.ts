// Generated from openapi.yaml by `make generate-ts` (openapi-typescript, scripts/generate.mjs).
// Never edit it by hand.

/** Any JSON value, null included: the contract's AnyValue. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface paths {
    "/predict": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run one synchronous prediction
         * @description Runs `data` through the model's pipeline and blocks until the result is ready.
         */
        post: operations["predict"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/predict/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run a synchronous batch prediction
         * @description Runs every element of `items` through the same model version in one pipeline
         *     call. `results` has the same length and order as `items`.
         */
        post: operations["predictBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/predict/async": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit a single asynchronous prediction
         * @description Validates the request, routes it to a version, records a job and queues it.
         *     Answers at once with the job's id; poll `GET /predict/async/{job_id}`. A key
         *     that already has `MAX_JOBS_PER_KEY` jobs waiting or running gets 429
         *     `jobs_limited` until one of them finishes.
         */
        post: operations["submitJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/predict/async/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit a batch asynchronous prediction
         * @description Like `POST /predict/async` for a batch. When the job succeeds its `result` is an
         *     array in the order of `items`.
         */
        post: operations["submitBatchJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/predict/async/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The `job_id` a submission returned. Typed as a plain string, as in contract 1.0.0, so
                 *     that no client that sent one before is refused now; an id that names no job (a
                 *     malformed one included) is `404 job_not_found`.
                 */
                job_id: components["parameters"]["JobID"];
            };
            cookie?: never;
        };
        /**
         * Poll an asynchronous job
         * @description Returns the job record. Accepts a valid key of any scope.
         */
        get: operations["pollJob"];
        put?: never;
        post?: never;
        /**
         * Cancel an asynchronous job
         * @description Cancels a job that has not finished. A created or pending job is removed from the
         *     queue; a running one is abandoned as best the runner can (its result, if it
         *     comes, is discarded). The job's status becomes `cancelled` and never changes
         *     again. A finished job cannot be cancelled: 409 `job_finished`.
         */
        delete: operations["cancelJob"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The `job_id` a submission returned. Typed as a plain string, as in contract 1.0.0, so
                 *     that no client that sent one before is refused now; an id that names no job (a
                 *     malformed one included) is `404 job_not_found`.
                 */
                job_id: components["parameters"]["JobID"];
            };
            cookie?: never;
        };
        /**
         * Get a job record
         * @description The same record as `GET /predict/async/{job_id}`. Accepts a valid key of any scope.
         *
         *     With `wait`, a long poll: the server holds the answer until the job reaches a final
         *     status (`succeeded`, `failed` or `cancelled`) or `wait` seconds pass, whichever comes
         *     first, then answers the record as it is then (so a record that is not final means
         *     the wait ran out). A client learns that its job finished in one request instead of
         *     many polls. A wait also ends early, with the record as it is, when the server shuts
         *     down or holds too many waits already; a client simply asks again. A waiting request
         *     counts against `MAX_CONCURRENT_PER_KEY` like any other.
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List registered models
         * @description Every model and version known to the registry, including those not loaded yet.
         */
        get: operations["listModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/models/{name}/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                name: components["parameters"]["ModelName"];
                /** @description One of the model's versions. */
                version: components["parameters"]["ModelVersion"];
            };
            cookie?: never;
        };
        /**
         * Metadata of one model version
         * @description What the version is and how to call it, as KServe's and Triton's metadata
         *     endpoints give: its description and load status (with the error of a failed
         *     load), the tensors the model file declares, the pipeline's steps with their
         *     parameters, and the model's routing rule and versions. Inputs, outputs and steps
         *     are known once the version has loaded.
         */
        get: operations["getModel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness
         * @description Answers 200 as soon as the process listens. For liveness probes.
         */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness
         * @description 200 `ready` once every pipeline has loaded; 503 `loading` until then. A version
         *     that failed to load holds readiness back too (strict readiness, as Triton's): the
         *     answer stays 503 `loading`, and `failed` names each such version and why, until a
         *     reload loads it. With `READY_ALLOW_FAILED=true` a failed version does not hold
         *     readiness back: 200 `ready` once the others have loaded, still listing it in
         *     `failed`. For readiness probes.
         */
        get: operations["ready"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description Metrics in the Prometheus text exposition format (version 0.0.4), all prefixed
         *     `inferd_`, plus the Go and process collectors.
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/debug/models/loaded": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Models currently in memory
         * @description Every pipeline loaded in memory, with its load time. After start-up warm-up it
         *     lists the same models and versions as `GET /models`.
         */
        get: operations["listLoadedModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/models/{name}/{version}/reload": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                name: components["parameters"]["ModelName"];
                /** @description One of the model's versions. */
                version: components["parameters"]["ModelVersion"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Hot-reload one pipeline
         * @description Builds a new pipeline for the version beside the old one, swaps it in atomically,
         *     lets in-flight requests finish on the old one and then closes it. When the new
         *     pipeline fails to load, the old one keeps serving and the answer is a problem with
         *     the reason. No request body.
         */
        post: operations["reloadModel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/models/memory": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Memory used per pipeline
         * @description Per loaded pipeline, the memory its load was measured to take, plus the process
         *     totals. Method: pipelines are loaded one at a time; around each load the server
         *     reads the process's resident set size (`/proc/self/statm`) and the Go heap
         *     (`runtime.ReadMemStats`, after a GC) and reports the growth, beside the bytes of
         *     the artifacts the pipeline read from disk. `bytes` is the larger of the RSS
         *     growth and artifact bytes plus heap growth. Figures of a pipeline loaded while
         *     another load ran at the same time (`LOAD_CONCURRENCY` > 1) are marked
         *     `exclusive: false`, as they may include the other load's growth.
         */
        get: operations["modelMemory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/queues": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Queue dashboard (queue mode only)
         * @description asynqmon, a browser UI over the Redis job queue: queues, tasks, retries. Served
         *     only when `QUEUE_URL` is set, under `/admin/queues` and its subpaths. Needs the
         *     admin scope; since a browser cannot add `X-API-Key` to the UI's own calls, the
         *     key is also accepted as the password of HTTP Basic authentication (any user
         *     name), and a 401 here carries `WWW-Authenticate: Basic`.
         */
        get: operations["queueUI"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/debug/pprof": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Profiling index
         * @description The Go runtime's profiles (net/http/pprof), for admin keys: a page linking every
         *     profile below, for `go tool pprof` or a browser. For example
         *     `go tool pprof -http=: 'http://localhost:8080/debug/pprof/profile?seconds=10'`
         *     with the key in `X-API-Key` (pprof takes it from a `-http_header` flag
         *     in recent Go versions, or fetch the profile with curl first).
         */
        get: operations["pprofIndex"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/debug/pprof/profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * CPU profile
         * @description Samples the CPU for `seconds` (default 30) and answers the profile. One CPU profile at a time.
         */
        get: operations["pprofCPU"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/debug/pprof/trace": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Execution trace
         * @description Records an execution trace for `seconds` (default 30), for `go tool trace`. One trace at a time.
         */
        get: operations["pprofTrace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/debug/pprof/heap": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Heap profile
         * @description Live objects, sampled (`gc=1` collects garbage first).
         */
        get: operations["pprofHeap"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/debug/pprof/allocs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Allocations profile
         * @description Every sampled allocation since the start.
         */
        get: operations["pprofAllocs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/debug/pprof/goroutine": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Goroutine stacks
         * @description The stacks of every goroutine (`debug=2` in the format of a crash).
         */
        get: operations["pprofGoroutine"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/debug/pprof/block": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Blocking profile
         * @description Where goroutines blocked on synchronisation (empty unless the block profile rate is set).
         */
        get: operations["pprofBlock"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/debug/pprof/mutex": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Mutex contention profile
         * @description Holders of contended mutexes (empty unless the mutex profile fraction is set).
         */
        get: operations["pprofMutex"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/debug/pprof/threadcreate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Thread creation profile
         * @description Stacks that created operating-system threads.
         */
        get: operations["pprofThreadCreate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/debug/pprof/cmdline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Command line
         * @description The server's command line, arguments separated by NUL bytes.
         */
        get: operations["pprofCmdline"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/debug/pprof/symbol": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Symbol lookup
         * @description Tells `go tool pprof` that symbols can be looked up (`num_symbols`).
         */
        get: operations["pprofSymbol"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.yaml": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This contract, as YAML
         * @description The contract this server was built from, as written (its `servers` is `PUBLIC_URL` when that is set). Generate clients from it.
         */
        get: operations["openapiYAML"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This contract, as JSON
         * @description The same contract as JSON, every number kept exactly as the YAML writes it. `servers` is `PUBLIC_URL` when that is set.
         */
        get: operations["openapiJSON"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Swagger UI for this contract
         * @description Swagger UI over `/openapi.json`. "Authorize" takes an API key; "Try it out" calls this server.
         */
        get: operations["docs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Server metadata
         * @description The server's name, version and the protocol extensions it supports.
         */
        get: operations["oipServerMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Server liveness
         * @description 200 as soon as the process listens, like `/health`.
         */
        get: operations["oipServerLive"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Server readiness
         * @description 200 once every pipeline has finished loading, like `/ready`; 503 while any is loading.
         */
        get: operations["oipServerReady"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/models/{model_name}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                model_name: components["parameters"]["OIPModelName"];
            };
            cookie?: never;
        };
        /**
         * Model metadata (the version routing chooses)
         * @description The model's name, its versions, its platform, and the tensors the model file
         *     declares, with -1 for a dimension of any size (the batch dimension first). Model
         *     metadata of the Open Inference Protocol.
         */
        get: operations["oipModelMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/models/{model_name}/versions/{model_version}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                model_name: components["parameters"]["OIPModelName"];
                /** @description One of the model's versions. */
                model_version: components["parameters"]["OIPModelVersion"];
            };
            cookie?: never;
        };
        /**
         * Model metadata of one version
         * @description The model's name, its versions, its platform, and the tensors the model file
         *     declares, with -1 for a dimension of any size (the batch dimension first). Model
         *     metadata of the Open Inference Protocol.
         */
        get: operations["oipModelVersionMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/models/{model_name}/ready": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                model_name: components["parameters"]["OIPModelName"];
            };
            cookie?: never;
        };
        /**
         * Model readiness (the version routing chooses)
         * @description 200 when the version (the one the routing rule chooses, without a version in the
         *     path) has a loaded pipeline; 503 with `ready: false` while it loads or when it
         *     failed to load.
         */
        get: operations["oipModelReady"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/models/{model_name}/versions/{model_version}/ready": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                model_name: components["parameters"]["OIPModelName"];
                /** @description One of the model's versions. */
                model_version: components["parameters"]["OIPModelVersion"];
            };
            cookie?: never;
        };
        /**
         * Readiness of one model version
         * @description 200 when the version (the one the routing rule chooses, without a version in the
         *     path) has a loaded pipeline; 503 with `ready: false` while it loads or when it
         *     failed to load.
         */
        get: operations["oipModelVersionReady"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/models/{model_name}/infer": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                model_name: components["parameters"]["OIPModelName"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Inference on tensors (the version routing chooses)
         * @description Runs the request's tensors through the model: `inputs` must name the model's
         *     inputs with their datatype and a shape that fits the declared one (the batch
         *     dimension first); `data` is flat in row-major order or nested. Concurrent
         *     requests to a batching model share one model call. The echo model answers with
         *     its inputs as outputs. With the binary data extension the body is
         *     `application/octet-stream`: a JSON header of `Inference-Header-Content-Length`
         *     bytes, then each input with `parameters.binary_data_size` as raw little-endian
         *     bytes (BYTES elements as a 4-byte little-endian length and the bytes), in the
         *     order of `inputs`. Outputs asked for with `binary_data: true` (or all of them,
         *     with the request parameter `binary_data_output: true`) come back the same way.
         */
        post: operations["oipInfer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/models/{model_name}/versions/{model_version}/infer": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                model_name: components["parameters"]["OIPModelName"];
                /** @description One of the model's versions. */
                model_version: components["parameters"]["OIPModelVersion"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Inference on tensors with one version
         * @description Runs the request's tensors through the model: `inputs` must name the model's
         *     inputs with their datatype and a shape that fits the declared one (the batch
         *     dimension first); `data` is flat in row-major order or nested. Concurrent
         *     requests to a batching model share one model call. The echo model answers with
         *     its inputs as outputs. With the binary data extension the body is
         *     `application/octet-stream`: a JSON header of `Inference-Header-Content-Length`
         *     bytes, then each input with `parameters.binary_data_size` as raw little-endian
         *     bytes (BYTES elements as a 4-byte little-endian length and the bytes), in the
         *     order of `inputs`. Outputs asked for with `binary_data: true` (or all of them,
         *     with the request parameter `binary_data_output: true`) come back the same way.
         */
        post: operations["oipInferVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @description Any JSON value, null included. Carried byte for byte, never re-encoded through
         *     floating point.
         * @example {
         *       "text": "hello"
         *     }
         */
        AnyValue: JsonValue;
        /**
         * @description The name of a registered model.
         * @example echo
         */
        ModelNameField: string;
        /**
         * @description A model version.
         * @example v1
         */
        VersionField: string;
        /**
         * @description A single prediction request.
         * @example {
         *       "model": "echo",
         *       "version": "v1",
         *       "data": {
         *         "text": "hello",
         *         "n": 12345678901234567000
         *       }
         *     }
         */
        PredictRequest: {
            model: components["schemas"]["ModelNameField"];
            /**
             * @description The version to run. When omitted, the model's routing rule chooses one.
             * @example v1
             */
            version?: string;
            data: components["schemas"]["AnyValue"];
        };
        /**
         * @description A batch prediction request; every item runs through the same model version.
         * @example {
         *       "model": "echo",
         *       "items": [
         *         1,
         *         "two",
         *         null
         *       ]
         *     }
         */
        BatchPredictRequest: {
            model: components["schemas"]["ModelNameField"];
            /**
             * @description The version to run. When omitted, the model's routing rule chooses one.
             * @example v1
             */
            version?: string;
            /**
             * @description The inputs, at least one and at most `MAX_BATCH_ITEMS`.
             * @example [
             *       1,
             *       "two",
             *       null
             *     ]
             */
            items: components["schemas"]["AnyValue"][];
        };
        /**
         * @description A single prediction.
         * @example {
         *       "model": "echo",
         *       "version": "v1",
         *       "result": {
         *         "text": "hello",
         *         "n": 12345678901234567000
         *       }
         *     }
         */
        Prediction: {
            model: components["schemas"]["ModelNameField"];
            version: components["schemas"]["VersionField"];
            result: components["schemas"]["AnyValue"];
        };
        /**
         * @description A batch of predictions in the order of the request's items.
         * @example {
         *       "model": "echo",
         *       "version": "v2",
         *       "results": [
         *         1,
         *         "two",
         *         null
         *       ]
         *     }
         */
        BatchPrediction: {
            model: components["schemas"]["ModelNameField"];
            version: components["schemas"]["VersionField"];
            /** @description One result per item, in the order of the request's items. */
            results: components["schemas"]["AnyValue"][];
        };
        /** @description The id of the job a submission created. */
        AsyncSubmitResponse: {
            job_id: components["schemas"]["JobId"];
        };
        /**
         * Format: uuid
         * @description A job's identifier, as a submission returned it; poll it with `GET /predict/async/{job_id}`.
         * @example 0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b
         */
        JobId: string;
        /**
         * @description created (recorded, not yet queued) -> pending (queued) -> running -> succeeded |
         *     failed; cancelled ends a job that had not finished. In queue mode a job is shown
         *     running once it has run for 100 ms: a quicker one goes from pending straight to
         *     its final status, with its started_at.
         * @example succeeded
         * @enum {string}
         */
        JobStatus: "created" | "pending" | "running" | "succeeded" | "failed" | "cancelled";
        /**
         * @description An asynchronous job.
         * @example {
         *       "job_id": "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b",
         *       "status": "succeeded",
         *       "model": "echo",
         *       "version": "v1",
         *       "batch": false,
         *       "created_at": "2026-11-22T10:00:00.123Z",
         *       "started_at": "2026-11-22T10:00:00.125Z",
         *       "finished_at": "2026-11-22T10:00:00.131Z",
         *       "result": {
         *         "text": "hello"
         *       },
         *       "error_message": null
         *     }
         */
        JobRecord: {
            job_id: components["schemas"]["JobId"];
            status: components["schemas"]["JobStatus"];
            model: components["schemas"]["ModelNameField"];
            version: components["schemas"]["VersionField"];
            /**
             * @description True for a batch job, whose result is an array in the order of its items.
             * @example false
             */
            batch?: boolean;
            /**
             * Format: date-time
             * @description When the job was recorded (RFC 3339 with offset).
             * @example 2026-11-22T10:00:00.123Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When a worker started it; absent until the job is shown running or has finished.
             * @example 2026-11-22T10:00:00.125Z
             */
            started_at?: string;
            /**
             * Format: date-time
             * @description When it finished; absent until then. The record expires `JOB_TTL` later.
             * @example 2026-11-22T10:00:00.131Z
             */
            finished_at?: string;
            result: components["schemas"]["AnyValue"];
            /**
             * @description Why the job failed; null unless status is failed.
             * @example null
             */
            error_message: string | null;
        };
        /**
         * @description One version of a registered model.
         * @example {
         *       "name": "echo",
         *       "version": "v1"
         *     }
         */
        ModelEntry: {
            name: components["schemas"]["ModelNameField"];
            version: components["schemas"]["VersionField"];
        };
        /**
         * @description Every model version the registry knows, loaded or not.
         * @example {
         *       "models": [
         *         {
         *           "name": "echo",
         *           "version": "v1"
         *         },
         *         {
         *           "name": "echo",
         *           "version": "v2"
         *         }
         *       ]
         *     }
         */
        ModelList: {
            models: components["schemas"]["ModelEntry"][];
        };
        /** @description Liveness. */
        Health: {
            /**
             * @example ok
             * @enum {string}
             */
            status: "ok";
        };
        /** @description Readiness of the whole service. */
        Readiness: {
            /**
             * @description ready once every pipeline has loaded; loading before, and while a version that
             *     failed to load has none (unless READY_ALLOW_FAILED=true); stopping from SIGTERM
             *     on (the server still serves for `SHUTDOWN_DRAIN`, then stops).
             * @example ready
             * @enum {string}
             */
            status: "ready" | "loading" | "stopping";
            /** @description The versions that failed to load, with the reason (paths relative to the model repository); empty when none did. With strict readiness, a non-empty list on a 503 means loading has finished and only a reload (or a fixed rollout) makes the server ready. */
            failed: components["schemas"]["FailedModel"][];
        };
        /**
         * @description A pipeline held in memory.
         * @example {
         *       "name": "echo",
         *       "version": "v1",
         *       "loaded_at": "2026-11-22T10:00:00Z",
         *       "load_duration_ms": 0.02
         *     }
         */
        LoadedModel: {
            name: components["schemas"]["ModelNameField"];
            version: components["schemas"]["VersionField"];
            /**
             * Format: date-time
             * @description When this pipeline finished loading (a reload resets it).
             * @example 2026-11-22T10:00:00Z
             */
            loaded_at: string;
            /**
             * Format: double
             * @description How long the load took, in milliseconds.
             * @example 1.5
             */
            load_duration_ms?: number;
        };
        /** @description The pipelines held in memory, and the versions that failed to load. */
        LoadedModelList: {
            /** @description Every pipeline in memory; after warm-up, the same models and versions as `GET /models` unless some failed. */
            models: components["schemas"]["LoadedModel"][];
            /** @description Versions that have no pipeline in memory because their load failed, with the reason. */
            failed: components["schemas"]["FailedModel"][];
        };
        /** @description A version whose load failed. */
        FailedModel: {
            name: components["schemas"]["ModelNameField"];
            version: components["schemas"]["VersionField"];
            /**
             * @description Why the load failed, naming the file and field at fault where there is one.
             * @example models/iris/v3/model.yaml: preprocess[0].to_tensor.shape: makes shape [3] per item, but model input "x" takes [4] per item
             */
            error: string;
        };
        /**
         * @description One model version, as the registry knows it.
         * @example {
         *       "name": "iris",
         *       "version": "v1",
         *       "status": "ready",
         *       "error": null,
         *       "description": "Iris species from sepal and petal measurements in cm.",
         *       "loaded_at": "2026-11-22T10:00:00Z",
         *       "inputs": [
         *         {
         *           "name": "x",
         *           "dtype": "float32",
         *           "shape": [
         *             -1,
         *             4
         *           ]
         *         }
         *       ],
         *       "outputs": [
         *         {
         *           "name": "logits",
         *           "dtype": "float32",
         *           "shape": [
         *             -1,
         *             3
         *           ]
         *         }
         *       ],
         *       "preprocess": [
         *         {
         *           "name": "to_tensor",
         *           "params": {
         *             "features": [
         *               "sepal_length",
         *               "sepal_width",
         *               "petal_length",
         *               "petal_width"
         *             ],
         *             "dtype": "float32",
         *             "shape": [
         *               4
         *             ]
         *           }
         *         }
         *       ],
         *       "postprocess": [
         *         {
         *           "name": "softmax",
         *           "params": {}
         *         },
         *         {
         *           "name": "top_k",
         *           "params": {
         *             "k": 3,
         *             "labels": [
         *               "setosa",
         *               "versicolor",
         *               "virginica"
         *             ]
         *           }
         *         }
         *       ],
         *       "routing": {
         *         "strategy": "weighted",
         *         "weights": {
         *           "v1": 90,
         *           "v2": 10
         *         }
         *       },
         *       "versions": [
         *         "v1",
         *         "v2"
         *       ]
         *     }
         */
        ModelMetadata: {
            name: components["schemas"]["ModelNameField"];
            version: components["schemas"]["VersionField"];
            /**
             * @description loading until the first load finishes; ready when a pipeline serves; failed when the load failed (and no earlier pipeline serves).
             * @example ready
             * @enum {string}
             */
            status: "loading" | "ready" | "failed";
            /**
             * @description Why the load failed; null unless status is failed.
             * @example null
             */
            error: string | null;
            /**
             * @description The model's own description, from its config.
             * @example Iris species from sepal and petal measurements in cm.
             */
            description: string;
            /**
             * Format: date-time
             * @description When the serving pipeline finished loading; absent until then.
             * @example 2026-11-22T10:00:00Z
             */
            loaded_at?: string;
            /** @description The tensors the model file takes. */
            inputs: components["schemas"]["TensorSpec"][];
            /** @description The tensors the model file gives. */
            outputs: components["schemas"]["TensorSpec"][];
            /** @description The steps between the request's data and the model, in order. */
            preprocess: components["schemas"]["StepSpec"][];
            /** @description The steps between the model and the response's result, in order. */
            postprocess: components["schemas"]["StepSpec"][];
            routing: components["schemas"]["RoutingRule"];
            /**
             * @description Every version of the model, in natural order.
             * @example [
             *       "v1",
             *       "v2"
             *     ]
             */
            versions: string[];
        };
        /** @description A model input or output as the model file declares it. */
        TensorSpec: {
            /** @example x */
            name: string;
            /**
             * @description Element type (float32, float64, int64, int32, bool, ...).
             * @example float32
             */
            dtype: string;
            /**
             * @description Dimensions; -1 is a dimension of any size (usually the batch).
             * @example [
             *       -1,
             *       4
             *     ]
             */
            shape: number[];
        };
        /** @description A configured pipeline step. */
        StepSpec: {
            /** @example standardize */
            name: string;
            /**
             * @description The step's parameters as configured, defaults filled in.
             * @example {
             *       "mean": [
             *         5.84,
             *         3.06,
             *         3.76,
             *         1.2
             *       ],
             *       "std": [
             *         0.83,
             *         0.44,
             *         1.77,
             *         0.76
             *       ]
             *     }
             */
            params: {
                [key: string]: unknown;
            };
        };
        /** @description How a request that names no version is routed. */
        RoutingRule: {
            /**
             * @description latest picks the highest version in natural order (v10 > v9); static always picks `version`; weighted splits by `weights`.
             * @example weighted
             * @enum {string}
             */
            strategy: "latest" | "static" | "weighted";
            /**
             * @description The version a static rule picks.
             * @example v1
             */
            version?: string;
            /**
             * @description Percentages per version, adding up to 100, for a weighted rule.
             * @example {
             *       "v1": 90,
             *       "v2": 10
             *     }
             */
            weights?: {
                [key: string]: number;
            };
        };
        /**
         * @description The pipeline that now serves the version.
         * @example {
         *       "name": "echo",
         *       "version": "v1",
         *       "loaded_at": "2026-11-22T10:05:00Z",
         *       "load_duration_ms": 0.03
         *     }
         */
        ReloadResult: {
            name: components["schemas"]["ModelNameField"];
            version: components["schemas"]["VersionField"];
            /**
             * Format: date-time
             * @example 2026-11-22T10:05:00Z
             */
            loaded_at: string;
            /**
             * Format: double
             * @example 12.5
             */
            load_duration_ms: number;
        };
        /** @description Memory measured around one pipeline's load. */
        PipelineMemory: {
            name: components["schemas"]["ModelNameField"];
            version: components["schemas"]["VersionField"];
            /**
             * Format: int64
             * @description The estimate of the pipeline's footprint, max(rss_delta_bytes, artifact_bytes + heap_delta_bytes).
             * @example 1048576
             */
            bytes: number;
            /**
             * Format: int64
             * @description Bytes of the model files the pipeline read (0 for built-in models).
             * @example 524288
             */
            artifact_bytes: number;
            /**
             * Format: int64
             * @description Growth of the process's resident set size across the load (may be negative).
             * @example 1048576
             */
            rss_delta_bytes: number;
            /**
             * Format: int64
             * @description Growth of the Go heap in use across the load, after a GC (may be negative).
             * @example 4096
             */
            heap_delta_bytes: number;
            /**
             * @description False when another load ran at the same time, so the deltas may include it.
             * @example true
             */
            exclusive: boolean;
            /**
             * Format: date-time
             * @example 2026-11-22T10:00:00Z
             */
            measured_at: string;
        };
        /** @description Process totals at the time of the request. */
        ProcessMemory: {
            /**
             * Format: int64
             * @description Resident set size of the process.
             * @example 52428800
             */
            rss_bytes: number;
            /**
             * Format: int64
             * @description Bytes of allocated Go heap objects.
             * @example 8388608
             */
            go_heap_alloc_bytes: number;
            /**
             * Format: int64
             * @description Bytes of heap memory obtained from the OS by the Go runtime.
             * @example 16777216
             */
            go_heap_sys_bytes: number;
            /**
             * Format: int64
             * @description Total bytes of memory obtained from the OS by the Go runtime.
             * @example 25165824
             */
            go_sys_bytes: number;
            /** @example 42 */
            goroutines: number;
        };
        /** @description Measured memory per loaded pipeline, and the process totals. */
        MemoryReport: {
            pipelines: components["schemas"]["PipelineMemory"][];
            process: components["schemas"]["ProcessMemory"];
        };
        /**
         * @description An RFC 9457 problem. Answers the HTTP server gives before a request reaches an
         *     operation are problems too, on any path: 400 `invalid_request` (a request line,
         *     path escape or header it cannot parse), 431 `header_too_large` (headers over 64
         *     KiB) and 501 `not_implemented` (a Transfer-Encoding other than chunked).
         */
        Problem: {
            /**
             * @description A URI naming the kind of problem.
             * @example https://inferd.dev/problems/invalid_input
             */
            type: string;
            /**
             * @description A short summary of the kind of problem.
             * @example Invalid input
             */
            title: string;
            /**
             * @description The HTTP status code.
             * @example 400
             */
            status: number;
            /**
             * @description What went wrong with this request and what to do about it.
             * @example data.features: expected 4 numbers, got 3
             */
            detail: string;
            /**
             * @description A stable machine-readable code: invalid_request, invalid_input,
             *     model_not_found, version_not_found, unauthorized, forbidden, job_not_found,
             *     job_finished, not_found, method_not_allowed, payload_too_large, unsupported_media_type,
             *     rate_limited, concurrency_limited, auth_throttled, jobs_limited,
             *     execution_error, internal_error, reload_failed, model_loading,
             *     model_unavailable, queue_full, queue_unavailable, shutting_down,
             *     request_cancelled, profile_in_progress, request_timeout, header_too_large,
             *     not_implemented.
             * @example invalid_input
             */
            code: string;
            /**
             * @description The request's id, also in the X-Request-ID header; quote it when reporting a problem.
             * @example 5f0c6a2e9d1b4c7a
             */
            request_id: string;
            /**
             * @description The path of the request.
             * @example /predict
             */
            instance?: string;
        };
        /**
         * @description An error of the Open Inference Protocol operations: `error` is the protocol's
         *     message; `code` (the codes of `Problem`) and `request_id` are inferd's.
         */
        OIPError: {
            /**
             * @description What went wrong with this request and what to do about it.
             * @example input "input": expected 4 values for shape [1,4], got 3
             */
            error: string;
            /**
             * @description A stable machine-readable code, as in `Problem`.
             * @example invalid_input
             */
            code: string;
            /**
             * @description The request's id, also in the X-Request-ID header.
             * @example 5f0c6a2e9d1b4c7a
             */
            request_id: string;
        };
        /**
         * @description A tensor element type of the Open Inference Protocol.
         * @example FP32
         * @enum {string}
         */
        OIPDatatype: "BOOL" | "UINT8" | "UINT16" | "UINT32" | "UINT64" | "INT8" | "INT16" | "INT32" | "INT64" | "FP16" | "FP32" | "FP64" | "BYTES";
        /**
         * @description The tensor's dimensions; -1 (in metadata only) is a dimension of any size.
         * @example [
         *       1,
         *       4
         *     ]
         */
        OIPShape: number[];
        /**
         * @description Protocol parameters; the binary data extension reads `binary_data_size`, `binary_data` and `binary_data_output`.
         * @example {
         *       "binary_data_output": false
         *     }
         */
        OIPParameters: {
            [key: string]: components["schemas"]["AnyValue"];
        };
        OIPServerMetadata: {
            /** @example inferd */
            name: string;
            /** @example 1.3.0 */
            version: string;
            /**
             * @example [
             *       "binary_tensor_data"
             *     ]
             */
            extensions: string[];
        };
        OIPLive: {
            /** @example true */
            live: boolean;
        };
        OIPReady: {
            /** @example true */
            ready: boolean;
        };
        OIPModelReady: {
            /** @example iris */
            name: string;
            /**
             * @description The version the answer is about.
             * @example v1
             */
            version?: string;
            /** @example true */
            ready: boolean;
        };
        OIPTensorMetadata: {
            /** @example input */
            name: string;
            datatype: components["schemas"]["OIPDatatype"];
            shape: components["schemas"]["OIPShape"];
        };
        OIPModelMetadata: {
            /** @example iris */
            name: string;
            /**
             * @example [
             *       "v1",
             *       "v2"
             *     ]
             */
            versions: string[];
            /**
             * @description The runtime (`onnxruntime_onnx`), or `echo` for a model without tensors.
             * @example onnxruntime_onnx
             */
            platform: string;
            /** @description Empty for a model that takes any tensors (echo). */
            inputs: components["schemas"]["OIPTensorMetadata"][];
            outputs: components["schemas"]["OIPTensorMetadata"][];
        };
        OIPRequestInput: {
            /** @example input */
            name: string;
            /**
             * @example [
             *       1,
             *       4
             *     ]
             */
            shape: number[];
            datatype: components["schemas"]["OIPDatatype"];
            parameters?: components["schemas"]["OIPParameters"];
            data?: components["schemas"]["AnyValue"];
        };
        OIPRequestOutput: {
            /** @example logits */
            name: string;
            parameters?: components["schemas"]["OIPParameters"];
        };
        /**
         * @description An inference request of the Open Inference Protocol.
         * @example {
         *       "id": "req-1",
         *       "inputs": [
         *         {
         *           "name": "input",
         *           "shape": [
         *             1,
         *             4
         *           ],
         *           "datatype": "FP32",
         *           "data": [
         *             5.1,
         *             3.5,
         *             1.4,
         *             0.2
         *           ]
         *         }
         *       ]
         *     }
         */
        OIPInferRequest: {
            /**
             * @description Echoed in the response.
             * @example req-1
             */
            id?: string;
            parameters?: components["schemas"]["OIPParameters"];
            inputs: components["schemas"]["OIPRequestInput"][];
            /** @description The outputs to return, by name; all of them when omitted. */
            outputs?: components["schemas"]["OIPRequestOutput"][];
        };
        OIPResponseOutput: {
            /** @example logits */
            name: string;
            shape: components["schemas"]["OIPShape"];
            datatype: components["schemas"]["OIPDatatype"];
            parameters?: components["schemas"]["OIPParameters"];
            /** @description Flat, row-major; absent for an output sent as binary data. */
            data?: components["schemas"]["AnyValue"][];
        };
        /**
         * @example {
         *       "model_name": "iris",
         *       "model_version": "v1",
         *       "id": "req-1",
         *       "outputs": [
         *         {
         *           "name": "logits",
         *           "shape": [
         *             1,
         *             3
         *           ],
         *           "datatype": "FP32",
         *           "data": [
         *             2.1,
         *             -0.4,
         *             -1.7
         *           ]
         *         }
         *       ]
         *     }
         */
        OIPInferResponse: {
            /** @example iris */
            model_name: string;
            /**
             * @description The version that ran (the one routing chose when the path named none).
             * @example v1
             */
            model_version?: string;
            /** @example req-1 */
            id?: string;
            parameters?: components["schemas"]["OIPParameters"];
            outputs: components["schemas"]["OIPResponseOutput"][];
        };
    };
    responses: {
        /**
         * @description The profile: gzipped protocol buffers for `go tool pprof` (or `go tool trace`),
         *     or text when `debug` is 1 or 2.
         */
        PprofProfile: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/octet-stream": string;
                "text/plain": string;
            };
        };
        /** @description Another CPU profile or trace is being recorded; retry when it ends. Code `profile_in_progress`. */
        ProfileBusy: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/profile_in_progress",
                 *       "title": "Profile in progress",
                 *       "status": 409,
                 *       "detail": "a CPU profile is being recorded; retry in 30 s",
                 *       "code": "profile_in_progress",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description The request is malformed or names an unknown model or version, or the model's
         *     preprocessing rejected the input. Codes: `invalid_request`, `model_not_found`,
         *     `version_not_found`, `invalid_input`.
         */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/model_not_found",
                 *       "title": "Model not found",
                 *       "status": 400,
                 *       "detail": "no model named \"resnet\"; GET /models lists the registered models",
                 *       "code": "model_not_found",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The operation takes no request body, and one was sent. Code `payload_too_large`. */
        BodyNotAccepted: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/payload_too_large",
                 *       "title": "Payload too large",
                 *       "status": 413,
                 *       "detail": "GET /health takes no request body",
                 *       "code": "payload_too_large",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The `X-API-Key` header is missing or holds an unknown key. Code `unauthorized`. */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/unauthorized",
                 *       "title": "Unauthorized",
                 *       "status": 401,
                 *       "detail": "send a valid API key in the X-API-Key header",
                 *       "code": "unauthorized",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The key is valid but lacks the scope the operation needs. Code `forbidden`. */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/forbidden",
                 *       "title": "Forbidden",
                 *       "status": 403,
                 *       "detail": "this operation needs the admin scope",
                 *       "code": "forbidden",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description No such job (`job_not_found`) or model version (`model_not_found`, `version_not_found`). */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/job_not_found",
                 *       "title": "Job not found",
                 *       "status": 404,
                 *       "detail": "no job with id 0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b (records expire JOB_TTL after they finish)",
                 *       "code": "job_not_found",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The job already finished, so it cannot be cancelled. Code `job_finished`. */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/job_finished",
                 *       "title": "Job already finished",
                 *       "status": 409,
                 *       "detail": "job already finished: job 0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b is succeeded",
                 *       "code": "job_finished",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description The body is larger than `MAX_REQUEST_BYTES`, or `items` has more than
         *     `MAX_BATCH_ITEMS` elements. Code `payload_too_large`.
         */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/payload_too_large",
                 *       "title": "Payload too large",
                 *       "status": 413,
                 *       "detail": "the request body exceeds 1048576 bytes (MAX_REQUEST_BYTES)",
                 *       "code": "payload_too_large",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description The body did not arrive within the server's read timeout (one minute for the whole
         *     request). Code `request_timeout`.
         */
        RequestTimeout: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/request_timeout",
                 *       "title": "Request timeout",
                 *       "status": 408,
                 *       "detail": "body: the request body did not arrive in time: send it at once, or faster",
                 *       "code": "request_timeout",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description The body is not sent as `application/json`, or is sent with a `Content-Encoding`
         *     (gzip, say), which the server does not decode. Code `unsupported_media_type`.
         */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/unsupported_media_type",
                 *       "title": "Unsupported media type",
                 *       "status": 415,
                 *       "detail": "send the body as Content-Type: application/json, not text/plain",
                 *       "code": "unsupported_media_type",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description A limit refused the request before its body was read: the key's rate limit on
         *     predict-scope operations (`RATE_LIMIT_RPS`, `RATE_LIMIT_BURST`; code
         *     `rate_limited`), the key's requests in progress (`MAX_CONCURRENT_PER_KEY`; code
         *     `concurrency_limited`), or too many failed authentications from the client's
         *     address (`AUTH_FAILURES_PER_MINUTE`; code `auth_throttled`, answered without
         *     looking at the key). Or, for a job submission, once its body was validated: the
         *     key already has as many jobs waiting or running as it may (`MAX_JOBS_PER_KEY`;
         *     code `jobs_limited`; retry when one of them has finished). `Retry-After` says
         *     when to retry.
         */
        TooManyRequests: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/rate_limited",
                 *       "title": "Too many requests",
                 *       "status": 429,
                 *       "detail": "rate limit of 100 requests/s (burst 200) exceeded for this key; retry after 1 s",
                 *       "code": "rate_limited",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description The pipeline failed while running (`execution_error`) or the server hit an
         *     unexpected fault (`internal_error`).
         */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/execution_error",
                 *       "title": "Execution error",
                 *       "status": 500,
                 *       "detail": "echo v1: model run failed",
                 *       "code": "execution_error",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /**
         * @description The work cannot be taken now: the version is still loading or failed to load
         *     (`model_loading`, `model_unavailable`), the job queue is full (`queue_full`), the
         *     queue backend is unreachable (`queue_unavailable`) or the server is shutting down
         *     (`shutting_down`). Retry after `Retry-After` seconds.
         */
        ServiceUnavailable: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "type": "https://inferd.dev/problems/queue_full",
                 *       "title": "Queue full",
                 *       "status": 503,
                 *       "detail": "the job queue holds 1024 jobs (JOB_QUEUE_SIZE); retry later",
                 *       "code": "queue_full",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description A malformed request, or tensors that do not fit the model (which input, and what was expected). Codes `invalid_request`, `invalid_input`. */
        OIPBadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": "input \"input\": shape [1,3] does not fit [-1,4], the shape the model declares",
                 *       "code": "invalid_input",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/json": components["schemas"]["OIPError"];
            };
        };
        /** @description The `X-API-Key` header is missing or holds an unknown key. Code `unauthorized`. */
        OIPUnauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": "send a valid API key in the X-API-Key header",
                 *       "code": "unauthorized",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/json": components["schemas"]["OIPError"];
            };
        };
        /** @description The key lacks the scope the operation needs. Code `forbidden`. */
        OIPForbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": "this operation needs the predict scope; use a key that holds it",
                 *       "code": "forbidden",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/json": components["schemas"]["OIPError"];
            };
        };
        /** @description No such model or version. Codes `model_not_found`, `version_not_found`. */
        OIPNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": "model not found: no model named \"resnet\"",
                 *       "code": "model_not_found",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/json": components["schemas"]["OIPError"];
            };
        };
        /** @description The body is larger than `MAX_REQUEST_BYTES`, or a GET carries one. Code `payload_too_large`. */
        OIPPayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": "the request body exceeds 1048576 bytes (MAX_REQUEST_BYTES); split the batch or send less data",
                 *       "code": "payload_too_large",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/json": components["schemas"]["OIPError"];
            };
        };
        /** @description The body is neither `application/json` nor `application/octet-stream`. Code `unsupported_media_type`. */
        OIPUnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": "send the body as Content-Type: application/json or application/octet-stream, not text/plain",
                 *       "code": "unsupported_media_type",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/json": components["schemas"]["OIPError"];
            };
        };
        /** @description The key's rate limit is exhausted. Code `rate_limited`. */
        OIPTooManyRequests: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": "rate limit of 100 requests/s (burst 200) exceeded for this key; retry after 1 s",
                 *       "code": "rate_limited",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/json": components["schemas"]["OIPError"];
            };
        };
        /** @description The model failed while running (`execution_error`) or the server hit an unexpected fault (`internal_error`). */
        OIPInternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": "the server failed unexpectedly; quote the request_id when you report it",
                 *       "code": "internal_error",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/json": components["schemas"]["OIPError"];
            };
        };
        /** @description The version is loading or failed to load (`model_loading`, `model_unavailable`), or the request was cancelled. Retry after `Retry-After` seconds. */
        OIPServiceUnavailable: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": "model loading: iris v1 is still loading; retry shortly",
                 *       "code": "model_loading",
                 *       "request_id": "5f0c6a2e9d1b4c7a"
                 *     }
                 */
                "application/json": components["schemas"]["OIPError"];
            };
        };
    };
    parameters: {
        /**
         * @description The `job_id` a submission returned. Typed as a plain string, as in contract 1.0.0, so
         *     that no client that sent one before is refused now; an id that names no job (a
         *     malformed one included) is `404 job_not_found`.
         */
        JobID: string;
        /** @description A registered model's name. */
        ModelName: string;
        /** @description One of the model's versions. */
        ModelVersion: string;
        /**
         * @description Binary data extension: with an `application/octet-stream` body, the length in
         *     bytes of the JSON inference request that starts it; the binary tensors follow.
         */
        InferenceHeaderContentLength: number;
        /** @description A registered model's name. */
        OIPModelName: string;
        /** @description One of the model's versions. */
        OIPModelVersion: string;
        /** @description 0 (default) answers the binary profile for `go tool pprof`; 1 and 2 answer readable text. */
        PprofDebug: number;
        /** @description 1 runs a garbage collection before the heap profile is taken. */
        PprofGC: number;
        /** @description How long to record, in seconds (default 30). */
        PprofSeconds: number;
    };
    requestBodies: never;
    headers: {
        /**
         * @description Binary data extension: the length in bytes of the JSON header that starts the
         *     body; the binary tensors follow it.
         */
        "Inference-Header-Content-Length": number;
        /** @description The version that served the request (the one routing chose when the request named none). */
        "X-Model-Version": string;
        /** @description Seconds to wait before trying again. */
        "Retry-After": number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    predict: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PredictRequest"];
            };
        };
        responses: {
            /** @description The prediction. */
            200: {
                headers: {
                    "X-Model-Version": components["headers"]["X-Model-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Prediction"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    predictBatch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BatchPredictRequest"];
            };
        };
        responses: {
            /** @description The predictions, in the order of `items`. */
            200: {
                headers: {
                    "X-Model-Version": components["headers"]["X-Model-Version"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BatchPrediction"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    submitJob: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PredictRequest"];
            };
        };
        responses: {
            /** @description The job was recorded and queued. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AsyncSubmitResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    submitBatchJob: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BatchPredictRequest"];
            };
        };
        responses: {
            /** @description The job was recorded and queued. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AsyncSubmitResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    pollJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The `job_id` a submission returned. Typed as a plain string, as in contract 1.0.0, so
                 *     that no client that sent one before is refused now; an id that names no job (a
                 *     malformed one included) is `404 job_not_found`.
                 */
                job_id: components["parameters"]["JobID"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job record. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobRecord"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    cancelJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The `job_id` a submission returned. Typed as a plain string, as in contract 1.0.0, so
                 *     that no client that sent one before is refused now; an id that names no job (a
                 *     malformed one included) is `404 job_not_found`.
                 */
                job_id: components["parameters"]["JobID"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job is cancelled; its record. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "job_id": "0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b",
                     *       "status": "cancelled",
                     *       "model": "echo",
                     *       "version": "v1",
                     *       "batch": false,
                     *       "created_at": "2026-11-22T10:00:00.123Z",
                     *       "finished_at": "2026-11-22T10:00:01.500Z",
                     *       "result": null,
                     *       "error_message": null
                     *     }
                     */
                    "application/json": components["schemas"]["JobRecord"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getJob: {
        parameters: {
            query?: {
                /**
                 * @description How long to wait, in seconds, for the job to reach a final status before
                 *     answering. 0 (the default) answers at once.
                 */
                wait?: number;
            };
            header?: never;
            path: {
                /**
                 * @description The `job_id` a submission returned. Typed as a plain string, as in contract 1.0.0, so
                 *     that no client that sent one before is refused now; an id that names no job (a
                 *     malformed one included) is `404 job_not_found`.
                 */
                job_id: components["parameters"]["JobID"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job record. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobRecord"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listModels: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The registry's models, sorted by name then version (natural order). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    getModel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                name: components["parameters"]["ModelName"];
                /** @description One of the model's versions. */
                version: components["parameters"]["ModelVersion"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The version's metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelMetadata"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process is alive. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            413: components["responses"]["BodyNotAccepted"];
            500: components["responses"]["InternalError"];
        };
    };
    ready: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every pipeline has loaded (or, with `READY_ALLOW_FAILED=true`, every one that could). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ready",
                     *       "failed": []
                     *     }
                     */
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            413: components["responses"]["BodyNotAccepted"];
            500: components["responses"]["InternalError"];
            /** @description Pipelines are still loading, or a version failed to load. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            413: components["responses"]["BodyNotAccepted"];
            500: components["responses"]["InternalError"];
        };
    };
    listLoadedModels: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The loaded pipelines. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LoadedModelList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    reloadModel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                name: components["parameters"]["ModelName"];
                /** @description One of the model's versions. */
                version: components["parameters"]["ModelVersion"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new pipeline is serving. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReloadResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    modelMemory: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Memory per pipeline and for the process. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryReport"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalError"];
        };
    };
    queueUI: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The dashboard's page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Not in queue mode. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            429: components["responses"]["TooManyRequests"];
        };
    };
    pprofIndex: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An HTML page listing the profiles. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    pprofCPU: {
        parameters: {
            query?: {
                /** @description How long to record, in seconds (default 30). */
                seconds?: components["parameters"]["PprofSeconds"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["PprofProfile"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["ProfileBusy"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    pprofTrace: {
        parameters: {
            query?: {
                /** @description How long to record, in seconds (default 30). */
                seconds?: components["parameters"]["PprofSeconds"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["PprofProfile"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["ProfileBusy"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    pprofHeap: {
        parameters: {
            query?: {
                /** @description 0 (default) answers the binary profile for `go tool pprof`; 1 and 2 answer readable text. */
                debug?: components["parameters"]["PprofDebug"];
                /** @description 1 runs a garbage collection before the heap profile is taken. */
                gc?: components["parameters"]["PprofGC"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["PprofProfile"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    pprofAllocs: {
        parameters: {
            query?: {
                /** @description 0 (default) answers the binary profile for `go tool pprof`; 1 and 2 answer readable text. */
                debug?: components["parameters"]["PprofDebug"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["PprofProfile"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    pprofGoroutine: {
        parameters: {
            query?: {
                /** @description 0 (default) answers the binary profile for `go tool pprof`; 1 and 2 answer readable text. */
                debug?: components["parameters"]["PprofDebug"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["PprofProfile"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    pprofBlock: {
        parameters: {
            query?: {
                /** @description 0 (default) answers the binary profile for `go tool pprof`; 1 and 2 answer readable text. */
                debug?: components["parameters"]["PprofDebug"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["PprofProfile"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    pprofMutex: {
        parameters: {
            query?: {
                /** @description 0 (default) answers the binary profile for `go tool pprof`; 1 and 2 answer readable text. */
                debug?: components["parameters"]["PprofDebug"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["PprofProfile"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    pprofThreadCreate: {
        parameters: {
            query?: {
                /** @description 0 (default) answers the binary profile for `go tool pprof`; 1 and 2 answer readable text. */
                debug?: components["parameters"]["PprofDebug"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: components["responses"]["PprofProfile"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    pprofCmdline: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The command line. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    pprofSymbol: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The number of symbols available. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["BodyNotAccepted"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    openapiYAML: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document the server was built from. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/yaml": Record<string, never>;
                };
            };
            413: components["responses"]["BodyNotAccepted"];
        };
    };
    openapiJSON: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document the server was built from. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            413: components["responses"]["BodyNotAccepted"];
        };
    };
    docs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An HTML page that explores this contract. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            413: components["responses"]["BodyNotAccepted"];
        };
    };
    oipServerMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server's metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OIPServerMetadata"];
                };
            };
            401: components["responses"]["OIPUnauthorized"];
            403: components["responses"]["OIPForbidden"];
            413: components["responses"]["OIPPayloadTooLarge"];
            500: components["responses"]["OIPInternalError"];
        };
    };
    oipServerLive: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server is live. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OIPLive"];
                };
            };
            413: components["responses"]["OIPPayloadTooLarge"];
            500: components["responses"]["OIPInternalError"];
        };
    };
    oipServerReady: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every pipeline has finished loading. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OIPReady"];
                };
            };
            413: components["responses"]["OIPPayloadTooLarge"];
            500: components["responses"]["OIPInternalError"];
            /** @description Pipelines are still loading. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OIPReady"];
                };
            };
        };
    };
    oipModelMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                model_name: components["parameters"]["OIPModelName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The model's metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OIPModelMetadata"];
                };
            };
            400: components["responses"]["OIPBadRequest"];
            401: components["responses"]["OIPUnauthorized"];
            403: components["responses"]["OIPForbidden"];
            404: components["responses"]["OIPNotFound"];
            413: components["responses"]["OIPPayloadTooLarge"];
            500: components["responses"]["OIPInternalError"];
            503: components["responses"]["OIPServiceUnavailable"];
        };
    };
    oipModelVersionMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                model_name: components["parameters"]["OIPModelName"];
                /** @description One of the model's versions. */
                model_version: components["parameters"]["OIPModelVersion"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The model's metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OIPModelMetadata"];
                };
            };
            400: components["responses"]["OIPBadRequest"];
            401: components["responses"]["OIPUnauthorized"];
            403: components["responses"]["OIPForbidden"];
            404: components["responses"]["OIPNotFound"];
            413: components["responses"]["OIPPayloadTooLarge"];
            500: components["responses"]["OIPInternalError"];
            503: components["responses"]["OIPServiceUnavailable"];
        };
    };
    oipModelReady: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                model_name: components["parameters"]["OIPModelName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The version is ready. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OIPModelReady"];
                };
            };
            400: components["responses"]["OIPBadRequest"];
            401: components["responses"]["OIPUnauthorized"];
            403: components["responses"]["OIPForbidden"];
            404: components["responses"]["OIPNotFound"];
            413: components["responses"]["OIPPayloadTooLarge"];
            500: components["responses"]["OIPInternalError"];
            /** @description The version is loading or failed to load. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OIPModelReady"];
                };
            };
        };
    };
    oipModelVersionReady: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A registered model's name. */
                model_name: components["parameters"]["OIPModelName"];
                /** @description One of the model's versions. */
                model_version: components["parameters"]["OIPModelVersion"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The version is ready. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OIPModelReady"];
                };
            };
            400: components["responses"]["OIPBadRequest"];
            401: components["responses"]["OIPUnauthorized"];
            403: components["responses"]["OIPForbidden"];
            404: components["responses"]["OIPNotFound"];
            413: components["responses"]["OIPPayloadTooLarge"];
            500: components["responses"]["OIPInternalError"];
            /** @description The version is loading or failed to load. */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OIPModelReady"];
                };
            };
        };
    };
    oipInfer: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Binary data extension: with an `application/octet-stream` body, the length in
                 *     bytes of the JSON inference request that starts it; the binary tensors follow.
                 */
                "Inference-Header-Content-Length"?: components["parameters"]["InferenceHeaderContentLength"];
            };
            path: {
                /** @description A registered model's name. */
                model_name: components["parameters"]["OIPModelName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OIPInferRequest"];
                "application/octet-stream": string;
            };
        };
        responses: {
            /**
             * @description The outputs. `application/octet-stream` when any output is binary: the JSON
             *     response header of `Inference-Header-Content-Length` bytes, then the binary
             *     outputs in the order of `outputs`.
             */
            200: {
                headers: {
                    "Inference-Header-Content-Length": components["headers"]["Inference-Header-Content-Length"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OIPInferResponse"];
                    "application/octet-stream": string;
                };
            };
            400: components["responses"]["OIPBadRequest"];
            401: components["responses"]["OIPUnauthorized"];
            403: components["responses"]["OIPForbidden"];
            404: components["responses"]["OIPNotFound"];
            413: components["responses"]["OIPPayloadTooLarge"];
            415: components["responses"]["OIPUnsupportedMediaType"];
            429: components["responses"]["OIPTooManyRequests"];
            500: components["responses"]["OIPInternalError"];
            503: components["responses"]["OIPServiceUnavailable"];
        };
    };
    oipInferVersion: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Binary data extension: with an `application/octet-stream` body, the length in
                 *     bytes of the JSON inference request that starts it; the binary tensors follow.
                 */
                "Inference-Header-Content-Length"?: components["parameters"]["InferenceHeaderContentLength"];
            };
            path: {
                /** @description A registered model's name. */
                model_name: components["parameters"]["OIPModelName"];
                /** @description One of the model's versions. */
                model_version: components["parameters"]["OIPModelVersion"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OIPInferRequest"];
                "application/octet-stream": string;
            };
        };
        responses: {
            /**
             * @description The outputs. `application/octet-stream` when any output is binary: the JSON
             *     response header of `Inference-Header-Content-Length` bytes, then the binary
             *     outputs in the order of `outputs`.
             */
            200: {
                headers: {
                    "Inference-Header-Content-Length": components["headers"]["Inference-Header-Content-Length"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OIPInferResponse"];
                    "application/octet-stream": string;
                };
            };
            400: components["responses"]["OIPBadRequest"];
            401: components["responses"]["OIPUnauthorized"];
            403: components["responses"]["OIPForbidden"];
            404: components["responses"]["OIPNotFound"];
            413: components["responses"]["OIPPayloadTooLarge"];
            415: components["responses"]["OIPUnsupportedMediaType"];
            429: components["responses"]["OIPTooManyRequests"];
            500: components["responses"]["OIPInternalError"];
            503: components["responses"]["OIPServiceUnavailable"];
        };
    };
}
