// The client stock @hey-api/openapi-ts writes from openapi.yaml (gen/hey-api, by make
// check-generators; its default types, SDK functions and fetch client) used as an
// integrator would: predict with `data`, read `result`, submit a job and read its
// record, read a problem's `code`. Type-checked with strict tsc; run against the server
// INFERD_URL names.
import { client } from "./gen/hey-api/client.gen.js";
import { getJob, predict, submitJob } from "./gen/hey-api/sdk.gen.js";
import type { JobRecord, PredictRequest } from "./gen/hey-api/types.gen.js";
import { checkCode, data, fail, finished, jobData, noSuchModel, sameJson, target, type TakesEveryJsonValue } from "./shared.js";

const dataTakesJson: TakesEveryJsonValue<PredictRequest["data"]> = true;
const resultTakesJson: TakesEveryJsonValue<JobRecord["result"]> = true;
void dataTakesJson, resultTakesJson;

const { baseUrl, apiKey } = target();
client.setConfig({ baseUrl, auth: () => apiKey });

// predict with data, read result
const request: PredictRequest = { model: "echo", data };
const predicted = await predict({ body: request });
if (!predicted.data) fail(`predict answered ${predicted.response.status}: ${JSON.stringify(predicted.error)}`);
sameJson("predict's result", predicted.data.result, data);

// submit a job, read its record until it has finished
const submitted = await submitJob({ body: { model: "echo", data: jobData } });
if (!submitted.data) fail(`submitJob answered ${submitted.response.status}: ${JSON.stringify(submitted.error)}`);
const id = submitted.data.job_id;
let job: JobRecord | undefined;
while (!job || !finished(job.status)) {
  const polled = await getJob({ path: { job_id: id }, query: { wait: 5 } });
  if (!polled.data) fail(`getJob answered ${polled.response.status}: ${JSON.stringify(polled.error)}`);
  job = polled.data;
}
if (job.status !== "succeeded") fail(`job ${id} is ${job.status}: ${job.error_message}`);
sameJson("the job's result", job.result, jobData);

// a problem: its code
const refused = await predict({ body: { model: noSuchModel, data: 1 } });
if (!refused.error) fail(`predict of an unknown model answered ${refused.response.status}, want a 400 problem`);
checkCode(refused.error.code);

console.log(`@hey-api/openapi-ts: predict, job ${id} ${job.status}, problem ${refused.error.code}`);
