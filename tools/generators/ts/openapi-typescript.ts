// The types stock openapi-typescript writes from openapi.yaml (gen/openapi-typescript,
// by make check-generators), with openapi-fetch, its companion client, used as an
// integrator would: predict with `data`, read `result`, submit a job and read its
// record, send a batch with on_error continue and read an answer's item_errors, read
// a problem's `code`. Type-checked with strict tsc; run against the
// server INFERD_URL names.
import createClient from "openapi-fetch";
import type { components, paths } from "./gen/openapi-typescript/schema.js";
import { batchItems, checkCode, checkItemError, continued, data, fail, finished, jobData, noSuchModel, sameJson, target, type ItemErrorShape, type Same, type TakesEveryJsonValue } from "./shared.js";

type PredictRequest = components["schemas"]["PredictRequest"];
type JobRecord = components["schemas"]["JobRecord"];
type BatchPrediction = components["schemas"]["BatchPrediction"];

const itemErrorsTyped: Same<NonNullable<BatchPrediction["item_errors"]>[number], ItemErrorShape> = true;
const jobItemErrorsTyped: Same<NonNullable<JobRecord["item_errors"]>[number], ItemErrorShape> = true;
void itemErrorsTyped, jobItemErrorsTyped;

const dataTakesJson: TakesEveryJsonValue<PredictRequest["data"]> = true;
const resultTakesJson: TakesEveryJsonValue<JobRecord["result"]> = true;
void dataTakesJson, resultTakesJson;

const { baseUrl, apiKey } = target();
const client = createClient<paths>({ baseUrl, headers: { "X-API-Key": apiKey } });

// predict with data, read result
const request: PredictRequest = { model: "echo", data };
const predicted = await client.POST("/predict", { body: request });
if (!predicted.data) fail(`predict answered ${predicted.response.status}: ${JSON.stringify(predicted.error)}`);
sameJson("predict's result", predicted.data.result, data);

// submit a job, read its record until it has finished
const submitted = await client.POST("/predict/async", { body: { model: "echo", data: jobData } });
if (!submitted.data) fail(`submitJob answered ${submitted.response.status}: ${JSON.stringify(submitted.error)}`);
const id = submitted.data.job_id;
let job: JobRecord | undefined;
while (!job || !finished(job.status)) {
  const polled = await client.GET("/jobs/{job_id}", { params: { path: { job_id: id }, query: { wait: 5 } } });
  if (!polled.data) fail(`getJob answered ${polled.response.status}: ${JSON.stringify(polled.error)}`);
  job = polled.data;
}
if (job.status !== "succeeded") fail(`job ${id} is ${job.status}: ${job.error_message}`);
sameJson("the job's result", job.result, jobData);

// a batch whose items fail alone: on_error continue; item_errors
const batched = await client.POST("/predict/batch", { body: { model: "echo", items: batchItems, on_error: "continue" } });
if (!batched.data || batched.data.results.length !== batchItems.length || batched.data.item_errors !== undefined) {
  fail(`predictBatch with on_error continue answered ${batched.response.status}: ${JSON.stringify(batched.data ?? batched.error)}`);
}
const read = continued as BatchPrediction;
if (read.results[1] !== null) fail(`results[1] of the continued answer is ${JSON.stringify(read.results[1])}`);
checkItemError(read.item_errors?.[0]);

// a problem: its code
const refused = await client.POST("/predict", { body: { model: noSuchModel, data: 1 } });
if (!refused.error) fail(`predict of an unknown model answered ${refused.response.status}, want a 400 problem`);
checkCode(refused.error.code);

console.log(`openapi-typescript: predict, job ${id} ${job.status}, batch on_error continue, problem ${refused.error.code}`);
