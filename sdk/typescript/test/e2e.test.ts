// End-to-end test of the SDK against a live inferd at INFERD_E2E_URL (tools/contract-test.sh
// points it at a Prism proxy in front of the server, so every exchange here is also
// checked against openapi.yaml). INFERD_E2E_DIRECT_URL, when set, is the server itself,
// for the exchanges Prism answers on its own instead of forwarding.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { describe, it, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import ts from "typescript";
import { createInferd, type Inferd, type JsonValue, ProblemError } from "../src/index.js";

const baseUrl = process.env.INFERD_E2E_URL ?? "";
const directUrl = process.env.INFERD_E2E_DIRECT_URL ?? "";
const skip = baseUrl === "" ? "INFERD_E2E_URL is not set" : false;

// In CI a missing server is a failure, not a skip: a silent skip would pass a broken setup.
if (skip && process.env.CI === "true") {
  test("a server to test", () => assert.fail("set INFERD_E2E_URL to the base URL of a running inferd (CI=true makes its absence a failure)"));
}

// The package root: this file runs from dist/test/.
const pkg = fileURLToPath(new URL("../../", import.meta.url));

// Every response the SDK received, to assert Prism flagged none of them.
const seen: { method: string; url: string; status: number; violations: string | null }[] = [];
const recording = async (req: Request): Promise<Response> => {
  const res = await fetch(req);
  seen.push({ method: req.method, url: req.url, status: res.status, violations: res.headers.get("sl-violations") });
  return res;
};

function client(apiKey?: string, url = baseUrl): Inferd {
  return createInferd({ baseUrl: url, ...(apiKey === undefined ? {} : { apiKey }), fetch: recording });
}

/** Runs fn, which must fail with a ProblemError, and returns that error. */
async function problem(fn: () => Promise<unknown>): Promise<ProblemError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof ProblemError, `want a ProblemError, got ${String(err)}`);
    return err;
  }
  assert.fail("the call succeeded; want a ProblemError");
}

describe("TypeScript SDK against a live inferd", { skip }, () => {
  const dev = client("dev-key");
  const admin = client("admin-key");

  it("predict", async (t) => {
    const cases: { name: string; model: string; version: string; data: JsonValue; check: (r: JsonValue) => void }[] = [
      {
        name: "echo returns any JSON value unchanged",
        model: "echo",
        version: "v1",
        data: { text: "hello", n: 42.5, list: [1, "two", null, true], nested: { empty: {} } },
        check: (r) => assert.deepEqual(r, { text: "hello", n: 42.5, list: [1, "two", null, true], nested: { empty: {} } }),
      },
      { name: "echo of null", model: "echo", version: "v2", data: null, check: (r) => assert.equal(r, null) },
      {
        name: "iris v1 classifies a setosa",
        model: "iris",
        version: "v1",
        data: [5.1, 3.5, 1.4, 0.2],
        check: (r) => assert.deepEqual(labels(r), ["setosa", "versicolor", "virginica"]),
      },
    ];
    for (const c of cases) {
      await t.test(c.name, async () => {
        const got = await dev.predict({ model: c.model, version: c.version, data: c.data });
        assert.equal(got.model, c.model);
        assert.equal(got.version, c.version);
        c.check(got.result);
      });
    }
  });

  it("predictBatch", async (t) => {
    const cases: { name: string; model: string; items: JsonValue[]; check: (r: JsonValue[]) => void }[] = [
      { name: "echo keeps the order of items", model: "echo", items: [1, "two", null], check: (r) => assert.deepEqual(r, [1, "two", null]) },
      {
        name: "iris by name and by position",
        model: "iris",
        items: [{ sepal_length: 6.7, sepal_width: 3.0, petal_length: 5.2, petal_width: 2.3 }, [5.1, 3.5, 1.4, 0.2]],
        check: (r) => assert.deepEqual(r.map((x) => labels(x)[0]), ["virginica", "setosa"]),
      },
    ];
    for (const c of cases) {
      await t.test(c.name, async () => {
        const got = await dev.predictBatch({ model: c.model, version: "v1", items: c.items });
        assert.equal(got.version, "v1");
        assert.equal(got.results.length, c.items.length);
        c.check(got.results);
      });
    }
  });

  it("batches whose items fail alone (on_error: continue)", async (t) => {
    const flower = [5.1, 3.5, 1.4, 0.2];
    const items: JsonValue[] = [flower, [5.1, 3.5, 1.4], { sepal_length: 6.7, sepal_width: 3.0, petal_length: 5.2, petal_width: 2.3 }];
    const refused = { index: 1, status: 400, code: "invalid_input", detail: "items[1]: expected 4 numbers, got 3" };
    await t.test("by default one refused item fails the batch", async () => {
      const p = await problem(() => dev.predictBatch({ model: "iris", version: "v1", items }));
      assert.equal(p.status, 400);
      assert.equal(p.code, "invalid_input");
      assert.equal(p.detail, refused.detail);
    });
    await t.test("predictBatch answers the others", async () => {
      const got = await dev.predictBatch({ model: "iris", version: "v1", on_error: "continue", items });
      assert.equal(got.results.length, 3);
      assert.deepEqual(labels(got.results[0])[0], "setosa");
      assert.equal(got.results[1], null);
      assert.deepEqual(labels(got.results[2])[0], "virginica");
      assert.deepEqual(got.item_errors, [refused]);
    });
    await t.test("no item refused: the answer has no item_errors", async () => {
      const got = await dev.predictBatch({ model: "iris", version: "v1", on_error: "continue", items: [flower] });
      assert.equal(got.item_errors, undefined);
    });
    await t.test("submitBatchJob succeeds with the others", async () => {
      const id = await dev.submitBatchJob({ model: "iris", version: "v1", on_error: "continue", items });
      const job = await dev.waitJob(id, { timeoutMs: 30_000 });
      assert.equal(job.status, "succeeded");
      assert.ok(Array.isArray(job.result) && job.result.length === 3 && job.result[1] === null);
      assert.deepEqual(job.item_errors, [refused]);
    });
  });

  it("submit and waitJob", async (t) => {
    const cases: { name: string; submit: () => Promise<string>; batch: boolean; result: JsonValue }[] = [
      { name: "single", submit: () => dev.submitJob({ model: "echo", version: "v1", data: { text: "hello" } }), batch: false, result: { text: "hello" } },
      { name: "batch", submit: () => dev.submitBatchJob({ model: "echo", items: [{ a: 1 }, { b: 2 }] }), batch: true, result: [{ a: 1 }, { b: 2 }] },
    ];
    for (const c of cases) {
      await t.test(c.name, async () => {
        const id = await c.submit();
        assert.match(id, /^[0-9a-f-]{36}$/);
        const job = await dev.waitJob(id, { timeoutMs: 30_000 });
        assert.equal(job.job_id, id);
        assert.equal(job.status, "succeeded");
        assert.equal(job.batch, c.batch);
        assert.deepEqual(job.result, c.result);
        assert.equal(job.error_message, null);
        assert.equal(job.error_code, null);
        assert.ok(job.finished_at, "a finished job has finished_at");
        // A finished job can no longer be cancelled.
        const p = await problem(() => dev.cancelJob(id));
        assert.equal(p.status, 409);
        assert.equal(p.code, "job_finished");
      });
    }
  });

  it("models", async (t) => {
    await t.test("listModels lists echo and iris", async () => {
      const models = await dev.listModels();
      for (const want of [{ name: "echo", version: "v1" }, { name: "echo", version: "v2" }, { name: "iris", version: "v1" }]) {
        assert.ok(models.some((m) => m.name === want.name && m.version === want.version), `no ${want.name} ${want.version} in ${JSON.stringify(models)}`);
      }
    });
    await t.test("getModel describes iris v1", async () => {
      const m = await dev.getModel("iris", "v1");
      assert.equal(m.status, "ready");
      assert.equal(m.error, null);
      assert.deepEqual(m.versions, ["v1", "v2"]);
      assert.equal(m.inputs[0]?.dtype, "float32");
    });
  });

  it("probes and admin", async (t) => {
    await t.test("health", async () => assert.deepEqual(await client().health(), { status: "ok" }));
    await t.test("ready", async () => assert.deepEqual(await client().ready(), { status: "ready", failed: [] }));
    await t.test("metrics", async () => assert.match(await client().metrics(), /inferd_http_requests_total/));
    await t.test("listLoadedModels", async () => {
      const loaded = await admin.listLoadedModels();
      assert.ok(loaded.models.some((m) => m.name === "echo" && m.version === "v1"));
    });
    await t.test("reloadModel", async () => {
      const r = await admin.reloadModel("echo", "v1");
      assert.equal(r.name, "echo");
      assert.ok(r.load_duration_ms >= 0);
    });
    await t.test("modelMemory", async () => assert.ok((await admin.modelMemory()).process.goroutines > 0));
  });

  it("problems are ProblemErrors", async (t) => {
    const cases: { name: string; call: () => Promise<unknown>; status: number; code: string; detail: RegExp }[] = [
      // Prism answers a missing key itself, so the 401 through it uses a key the server does not know.
      { name: "401 for an unknown key", call: () => client("not-a-key").listModels(), status: 401, code: "unauthorized", detail: /X-API-Key/ },
      { name: "403 without the scope", call: () => dev.modelMemory(), status: 403, code: "forbidden", detail: /admin/ },
      { name: "400 for an unknown model", call: () => dev.predict({ model: "nope", data: 1 }), status: 400, code: "model_not_found", detail: /nope/ },
      {
        name: "400 for input the model rejects",
        call: () => dev.predict({ model: "iris", version: "v1", data: [5.1, 3.5, 1.4] }),
        status: 400,
        code: "invalid_input",
        detail: /expected 4 numbers, got 3/,
      },
      { name: "404 for an unknown job", call: () => dev.getJob("0b6f8a52-3c4d-4f6e-9a1b-2c3d4e5f6a7b"), status: 404, code: "job_not_found", detail: /0b6f8a52/ },
    ];
    for (const c of cases) {
      await t.test(c.name, async () => {
        const p = await problem(c.call);
        assert.equal(p.status, c.status);
        assert.equal(p.code, c.code);
        assert.match(p.detail, c.detail);
        assert.ok(p.title.length > 0);
        assert.match(p.requestId, /^[0-9a-f]{16,}$/);
      });
    }
  });

  it("401 for a missing key, direct", { skip: directUrl === "" ? "INFERD_E2E_DIRECT_URL is not set" : false }, async () => {
    const p = await problem(() => client(undefined, directUrl).listModels());
    assert.equal(p.status, 401);
    assert.equal(p.code, "unauthorized");
    assert.match(p.requestId, /^[0-9a-f]{16,}$/);
  });

  it("the TypeScript example of docs/sdks.md type-checks and runs", async () => {
    const out = await runReadmeExample();
    assert.match(out, /^v1 setosa$/m);
    assert.match(out, /^succeeded \[1,"two",null\]$/m);
    assert.match(out, /^400 model_not_found [0-9a-f]{16,}$/m);
  });

  // Last, so that it sees every exchange above.
  it("no response carried Prism's sl-violations header", () => {
    assert.ok(seen.length > 20, `only ${seen.length} exchanges recorded`);
    assert.deepEqual(seen.filter((s) => s.violations !== null), []);
  });
});

function labels(r: JsonValue): string[] {
  assert.ok(Array.isArray(r), `want a ranked list, got ${JSON.stringify(r)}`);
  return r.map((x) => {
    assert.ok(x !== null && typeof x === "object" && !Array.isArray(x) && typeof x.label === "string");
    return x.label;
  });
}

/**
 * Takes the ```ts block of docs/sdks.md's "TypeScript SDK" section, type-checks it with the
 * package's own compiler options (strict), compiles it and runs it with node against the
 * server under test. It imports "@inferd/sdk", which resolves to this package.
 */
async function runReadmeExample(): Promise<string> {
  const readme = await readFile(new URL("../../docs/sdks.md", `file://${pkg}`), "utf8");
  const section = readme.split(/^## /m).find((s) => s.startsWith("TypeScript SDK\n"));
  assert.ok(section, "docs/sdks.md has no '## TypeScript SDK' section");
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(code, "the TypeScript SDK section has no ```ts block");

  const dir = `${pkg}dist/readme/`;
  await mkdir(dir, { recursive: true });
  const file = `${dir}example.ts`;
  await writeFile(file, code);

  const config = ts.getParsedCommandLineOfConfigFile(`${pkg}tsconfig.json`, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  assert.ok(config, "cannot read tsconfig.json");
  const program = ts.createProgram([file], { ...config.options, rootDir: dir, outDir: dir, declaration: false, sourceMap: false });
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
  const messages = diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  assert.deepEqual(messages, [], "the docs/sdks.md example does not type-check");

  const { stdout } = await promisify(execFile)(process.execPath, [`${dir}example.js`], {
    env: { ...process.env, INFERD_URL: baseUrl },
    timeout: 60_000,
  });
  return stdout;
}
