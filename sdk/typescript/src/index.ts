// The hand-written layer over the generated types (schema.ts) and openapi-fetch:
// one method per operation returning the 2xx body, ProblemError for everything else,
// and waitJob. `raw` is the typed openapi-fetch client for anything not wrapped here;
// it throws ProblemError too.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import { ProblemError } from "./problem.js";
import type { components, paths } from "./schema.js";

export { ProblemError, type Problem } from "./problem.js";
export type { components, paths, operations } from "./schema.js";

type S = components["schemas"];
/**
 * Any JSON value, null included: what `data`, `items[]` and `result` carry. It is
 * `unknown`, openapi-typescript's reading of the contract's AnyValue (a schema without
 * type): anything can be sent, and a result is narrowed or cast before use.
 */
export type JsonValue = S["AnyValue"];
export type PredictRequest = S["PredictRequest"];
export type BatchPredictRequest = S["BatchPredictRequest"];
export type Prediction = S["Prediction"];
export type BatchPrediction = S["BatchPrediction"];
/**
 * What an item whose input the model refuses does to its batch (`on_error` of
 * predictBatch and submitBatchJob): `"fail"` (also when omitted) fails the whole batch;
 * `"continue"` fails it alone: null takes its place among the results, and it is listed
 * in `item_errors` (the answer's, or the finished job's record's).
 */
export type BatchOnError = S["BatchOnError"];
/** An item of a batch sent with `on_error: "continue"` that failed alone: its index, status, code and detail. */
export type BatchItemError = S["BatchItemError"];
export type JobRecord = S["JobRecord"];
export type JobStatus = S["JobStatus"];
export type ModelEntry = S["ModelEntry"];
export type ModelMetadata = S["ModelMetadata"];
/** What the server verified of a version's files: its SHA256SUMS digest and, with MODEL_SIGNING_KEY, the signer's key fingerprint. */
export type Provenance = S["Provenance"];
export type LoadedModelList = S["LoadedModelList"];
export type ReloadResult = S["ReloadResult"];
export type MemoryReport = S["MemoryReport"];
export type Explanation = S["Explanation"];
export type Readiness = S["Readiness"];
export type Health = S["Health"];

export interface InferdOptions {
  /** Where inferd answers, e.g. http://localhost:8080. */
  baseUrl: string;
  /** Sent as X-API-Key; the probes (health, ready, metrics) need none. */
  apiKey?: string;
  /** A fetch to use instead of the global one (a proxy agent, a test recorder). */
  fetch?: (input: Request) => Promise<Response>;
}

export interface WaitOptions {
  /**
   * How long each long poll (GET /jobs/{job_id}?wait=) asks the server to wait for the
   * job to finish, in seconds; at most 30 (the server's cap). Default 20.
   */
  pollSeconds?: number;
  /**
   * The pause after a poll the server answered early without a final record (an older
   * server, one shutting down) or with 429/503; it doubles up to maxDelayMs. Default 50 ms.
   */
  initialDelayMs?: number;
  /** Longest such pause. Default 2000 ms. */
  maxDelayMs?: number;
  /** Give up (JobWaitTimeoutError) after this long. Default 5 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Thrown by waitJob when the job has not finished within timeoutMs. */
export class JobWaitTimeoutError extends Error {
  override readonly name = "JobWaitTimeoutError";
  constructor(readonly job: JobRecord) {
    super(`job ${job.job_id} still ${job.status} when waitJob gave up`);
  }
}

const finished: ReadonlySet<JobStatus> = new Set<JobStatus>(["succeeded", "failed", "cancelled"]);

/** True once a job can no longer change: succeeded, failed or cancelled. */
export function isFinished(status: JobStatus): boolean {
  return finished.has(status);
}

// Every non-2xx becomes a ProblemError here, once, so no method (nor a caller of raw)
// can forget to look at the status.
const problems: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) {
      throw await ProblemError.fromResponse(response);
    }
    return undefined;
  },
};

export type Inferd = ReturnType<typeof createInferd>;

export function createInferd(options: InferdOptions) {
  const headers: Record<string, string> = {};
  if (options.apiKey !== undefined) {
    headers["X-API-Key"] = options.apiKey;
  }
  const raw: Client<paths> = createClient<paths>({
    baseUrl: options.baseUrl,
    headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  raw.use(problems);

  const getJob = async (jobId: string): Promise<JobRecord> =>
    body(await raw.GET("/predict/async/{job_id}", { params: { path: { job_id: jobId } } }));

  // A long poll: the server answers when the job finishes or after waitSeconds.
  const getJobWaiting = async (jobId: string, waitSeconds: number, signal?: AbortSignal): Promise<JobRecord> =>
    body(
      await raw.GET("/jobs/{job_id}", {
        params: { path: { job_id: jobId }, query: { wait: waitSeconds } },
        ...(signal ? { signal } : {}),
      }),
    );

  return {
    raw,

    /** POST /predict: one synchronous prediction. */
    predict: async (req: PredictRequest): Promise<Prediction> => body(await raw.POST("/predict", { body: req })),

    /**
     * POST /predict/batch: results in the order of items. With `on_error: "continue"`,
     * the refused items are null among them and listed in `item_errors`.
     */
    predictBatch: async (req: BatchPredictRequest): Promise<BatchPrediction> =>
      body(await raw.POST("/predict/batch", { body: req })),

    /** POST /predict/async: the new job's id. */
    submitJob: async (req: PredictRequest): Promise<string> =>
      body(await raw.POST("/predict/async", { body: req })).job_id,

    /**
     * POST /predict/async/batch: the new job's id; its result is an array in the order of
     * items. With `on_error: "continue"` the job succeeds with the good items' results,
     * the refused ones listed in the record's `item_errors`.
     */
    submitBatchJob: async (req: BatchPredictRequest): Promise<string> =>
      body(await raw.POST("/predict/async/batch", { body: req })).job_id,

    /** GET /predict/async/{job_id}: the job's record now. */
    getJob,

    /** DELETE /predict/async/{job_id}: the cancelled record; 409 job_finished when too late. */
    cancelJob: async (jobId: string): Promise<JobRecord> =>
      body(await raw.DELETE("/predict/async/{job_id}", { params: { path: { job_id: jobId } } })),

    /**
     * Long-polls the job (GET /jobs/{job_id}?wait=, which the server answers as the job
     * finishes) until it has finished (succeeded, failed or cancelled) and returns that
     * record; a failed job is a record, not an exception. 429 and 503 answers (rate
     * limit, queue briefly unreachable) are waited out.
     */
    waitJob: (jobId: string, wait: WaitOptions = {}): Promise<JobRecord> => waitJob(getJobWaiting, jobId, wait),

    /** GET /models: every registered model version. */
    listModels: async (): Promise<ModelEntry[]> => body(await raw.GET("/models")).models,

    /** GET /models/{name}/{version}: status, tensors, steps and routing of one version. */
    getModel: async (name: string, version: string): Promise<ModelMetadata> =>
      body(await raw.GET("/models/{name}/{version}", { params: { path: { name, version } } })),

    /** GET /health. */
    health: async (): Promise<Health> => body(await raw.GET("/health")),

    /**
     * GET /ready: `loading`, `failed` or `stopping` (a 503) is an answer here, not an
     * error; its `failed` lists the versions that failed to load, and why (`at_start`
     * for those whose load at start failed, which hold readiness back).
     */
    ready: async (): Promise<Readiness> => {
      const res = await raw.GET("/ready");
      if (res.response.status === 503 && res.error && typeof res.error === "object" && "status" in res.error) {
        return res.error as Readiness;
      }
      return body(res);
    },

    /** GET /metrics: the Prometheus text exposition. */
    metrics: async (): Promise<string> => {
      const { data } = await raw.GET("/metrics", { parseAs: "text" });
      return data ?? "";
    },

    /** GET /debug/models/loaded (admin). */
    listLoadedModels: async (): Promise<LoadedModelList> => body(await raw.GET("/debug/models/loaded")),

    /** POST /admin/models/{name}/{version}/reload (admin). */
    reloadModel: async (name: string, version: string): Promise<ReloadResult> =>
      body(await raw.POST("/admin/models/{name}/{version}/reload", { params: { path: { name, version } } })),

    /** POST /admin/models/{name}/{version}/explain (admin): one prediction, with what each step of the version's model graph did. */
    explainPrediction: async (name: string, version: string, data: unknown): Promise<Explanation> =>
      body(await raw.POST("/admin/models/{name}/{version}/explain", { params: { path: { name, version } }, body: { data } })),

    /** GET /admin/models/memory (admin). */
    modelMemory: async (): Promise<MemoryReport> => body(await raw.GET("/admin/models/memory")),
  };
}

// The middleware has thrown for every non-2xx, so a missing body here means the server
// answered 2xx with nothing, which the contract never allows.
function body<T>(res: { data?: T; response: Response }): T {
  if (res.data === undefined) {
    throw new ProblemError({
      status: res.response.status,
      code: "empty_response",
      title: "Empty response",
      detail: `${res.response.url} answered ${res.response.status} without a body`,
      requestId: res.response.headers.get("X-Request-ID") ?? "",
    });
  }
  return res.data;
}

async function waitJob(
  getJobWaiting: (jobId: string, waitSeconds: number, signal?: AbortSignal) => Promise<JobRecord>,
  jobId: string,
  { pollSeconds = 20, initialDelayMs = 50, maxDelayMs = 2000, timeoutMs = 300_000, signal }: WaitOptions,
): Promise<JobRecord> {
  const deadline = Date.now() + timeoutMs;
  let delay = initialDelayMs;
  let last: JobRecord | undefined;
  for (;;) {
    signal?.throwIfAborted();
    // Seconds with millisecond precision, never past the deadline nor the server's cap.
    const waitSeconds = Math.max(0, Math.min(pollSeconds, 30, Math.floor(deadline - Date.now()) / 1000));
    const started = Date.now();
    let pause = 0;
    try {
      last = await getJobWaiting(jobId, waitSeconds, signal);
      if (isFinished(last.status)) {
        return last;
      }
      // A server that waited the poll out is asked again at once; one that answered
      // early is not hammered.
      if (Date.now() - started < (waitSeconds * 1000) / 2) {
        pause = delay;
        delay = Math.min(delay * 2, maxDelayMs);
      }
    } catch (err) {
      const transient = err instanceof ProblemError && (err.status === 429 || err.status === 503);
      if (!transient) {
        throw err;
      }
      pause = Math.max(delay, (err.retryAfter ?? 0) * 1000);
      delay = Math.min(delay * 2, maxDelayMs);
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      if (last) {
        throw new JobWaitTimeoutError(last);
      }
      throw new Error(`job ${jobId}: no answer to a poll within ${timeoutMs} ms`);
    }
    if (pause > 0) {
      await sleep(Math.min(pause, left), signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });
}
