// Swagger UI end to end in a real browser: builds and starts inferd on a random port
// (the example models, in-process jobs), opens /docs in headless Debian Chromium driven
// by playwright-core, and uses it as an integrator would: every operation listed once,
// Authorize with an API key, "Try it out" on POST /predict and on a job poll.
//
//   node --test tools/browser/            (make test-browser)
//   SCREENSHOTS=docs/screenshots node --test tools/browser/   (make screenshots)
//
// CHROMIUM names the browser (default /usr/bin/chromium). Without it the test is
// skipped, except with CI=true, where it fails.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const browserPath = process.env.CHROMIUM || "/usr/bin/chromium";
const ci = process.env.CI === "true";
const shots = resolve(root, process.env.SCREENSHOTS || "bin/screenshots");
const BIG = "12345678901234567890";

const haveBrowser = existsSync(browserPath);
const skip = !haveBrowser && !ci ? `no browser at ${browserPath} (install Debian's chromium)` : false;

let server, base, browser, page, contract;
let serverLog = "";

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

async function waitReady(url, ms) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error(`inferd did not get ready at ${url}:\n${serverLog}`);
    if (server.exitCode !== null) throw new Error(`inferd exited ${server.exitCode}:\n${serverLog}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

before(async () => {
  if (skip) return;
  assert.ok(haveBrowser, `CI=true and no browser at ${browserPath}: apt-get install chromium fonts-liberation`);
  const bin = process.env.INFERD_BIN || join(mkdtempSync(join(tmpdir(), "inferd-docs-")), "inferd");
  if (!process.env.INFERD_BIN) execFileSync("go", ["build", "-o", bin, "./cmd/inferd"], { cwd: root, stdio: "inherit" });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(bin, [], {
    cwd: root,
    env: { ...process.env, PORT: String(port), MODELS_DIR: "models", QUEUE_URL: "", API_KEYS: "", API_KEYS_FILE: "", PUBLIC_URL: "", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout.on("data", (d) => (serverLog += d));
  server.stderr.on("data", (d) => (serverLog += d));
  await waitReady(`${base}/ready`, 60_000);
  contract = await (await fetch(`${base}/openapi.json`)).json();

  browser = await chromium.launch({
    executablePath: browserPath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(20_000);
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(`${base}/docs`);
  await page.waitForSelector(".opblock");
  mkdirSync(shots, { recursive: true });
});

after(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
  }
});

// opblock returns an operation's block, found by the id Swagger UI gives it
// (operations-<tag>-<operationId>).
function opblock(tag, operationId) {
  return page.locator(`#operations-${tag}-${operationId}`);
}

// tryItOut expands an operation, presses "Try it out" and returns its block.
async function tryItOut(tag, operationId) {
  const op = opblock(tag, operationId);
  if (!(await op.locator(".opblock-body").isVisible())) await op.locator(".opblock-summary").first().click();
  await op.locator(".try-out__btn").click();
  return op;
}

// shoot saves the part of the page from an operation's summary to its live response:
// what a person sees after pressing Execute, without the documented responses below.
async function shoot(op, name) {
  const top = await op.locator(".opblock-summary").first().boundingBox();
  const end = await op.locator(".live-responses-table").boundingBox();
  const scroll = await page.evaluate(() => ({ x: window.scrollX, y: window.scrollY }));
  await page.screenshot({
    path: join(shots, name),
    fullPage: true, // boxes are relative to the viewport, the clip to the page
    clip: { x: top.x + scroll.x, y: top.y + scroll.y, width: top.width, height: end.y + end.height - top.y },
  });
}

// execute presses Execute and returns the live response's status and body text.
async function execute(op) {
  await op.locator(".execute").click();
  const row = op.locator(".live-responses-table .response");
  await row.waitFor();
  const status = (await row.locator(".response-col_status").innerText()).trim();
  const body = await row.locator(".response-col_description pre").first().innerText();
  const url = (await op.locator(".request-url pre").innerText()).trim();
  return { status, body, url };
}

test("every operation of openapi.yaml is listed exactly once", { skip }, async () => {
  const want = [];
  for (const [path, item] of Object.entries(contract.paths)) {
    for (const method of ["get", "put", "post", "delete", "options", "head", "patch", "trace"]) {
      if (item[method]) want.push(`${method.toUpperCase()} ${path}`);
    }
  }
  const shown = await page.$$eval(".opblock", (blocks) =>
    blocks.map((b) => {
      const m = b.querySelector(".opblock-summary-method")?.textContent.trim();
      const p = b.querySelector(".opblock-summary-path")?.getAttribute("data-path");
      return `${m} ${p}`;
    }),
  );
  const counts = {};
  for (const s of shown) counts[s] = (counts[s] || 0) + 1;
  for (const op of want) assert.equal(counts[op], 1, `${op} is listed ${counts[op] || 0} times`);
  assert.equal(shown.length, want.length, `Swagger UI lists ${shown.length} operations, the contract has ${want.length}`);
  await page.screenshot({ path: join(shots, "docs.png") });
});

test("Authorize takes an API key for the X-API-Key scheme", { skip }, async () => {
  await page.locator(".auth-wrapper button.authorize").click();
  const modal = page.locator(".modal-ux");
  await modal.waitFor();
  assert.match(await modal.innerText(), /X-API-Key/);
  await modal.locator("input").first().fill("dev-key");
  await modal.locator(".auth-btn-wrapper button.authorize").click();
  await modal.locator("button.btn-done").waitFor();
  await modal.screenshot({ path: join(shots, "authorize.png") });
  await modal.locator("button.btn-done").click();
  await modal.waitFor({ state: "detached" });
  assert.match(await page.locator(".auth-wrapper button.authorize").getAttribute("class"), /locked/);
});

test("Try it out on POST /predict sends and shows the exact big integer", { skip }, async () => {
  const op = await tryItOut("predict", "predict");
  const body = op.locator("textarea.body-param__text");
  const text = await body.inputValue();
  assert.ok(text.includes(BIG), `the request body pre-filled from the example lost ${BIG}:\n${text}`);
  assert.deepEqual(JSON.parse(text.replace(BIG, "0")), { model: "echo", version: "v1", data: { text: "hello", n: 0 } });
  const res = await execute(op);
  assert.equal(res.status, "200", res.body);
  assert.equal(res.url, `${base}/predict`, "Try it out must call the origin the page came from");
  assert.ok(res.body.includes(`"n": ${BIG}`), `the response shown lost ${BIG}:\n${res.body}`);
  assert.match(res.body, /"model": "echo"/);
  await shoot(op, "try-it-out-predict.png");
});

test("Try it out on a job: submit, then poll GET /predict/async/{job_id}", { skip }, async () => {
  const submit = await tryItOut("predict", "submitJob");
  const sub = await execute(submit);
  assert.equal(sub.status, "200", sub.body);
  const jobID = JSON.parse(sub.body).job_id;
  assert.match(jobID, /^[0-9a-f-]{36}$/);

  const poll = await tryItOut("jobs", "pollJob");
  await poll.locator('tr[data-param-name="job_id"] input').fill(jobID);
  let res;
  for (let i = 0; i < 50; i++) {
    res = await execute(poll);
    if (/"status": "(succeeded|failed)"/.test(res.body)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(res.status, "200", res.body);
  assert.equal(res.url, `${base}/predict/async/${jobID}`);
  assert.match(res.body, /"status": "succeeded"/);
  assert.ok(res.body.includes(`"n": ${BIG}`), `the job's result shown lost ${BIG}:\n${res.body}`);
  await shoot(poll, "try-it-out-job.png");
});
