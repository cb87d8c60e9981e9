// ProblemError.fromResponse on the answers a client meets: inferd's problems, and bodies
// from something else on the way (a proxy's page, /ready's 503).
import assert from "node:assert/strict";
import { test } from "node:test";
import { ProblemError } from "../src/index.js";

test("ProblemError.fromResponse", async (t) => {
  const cases: {
    name: string;
    status: number;
    body: string;
    headers?: Record<string, string>;
    want: Partial<Pick<ProblemError, "status" | "code" | "title" | "detail" | "requestId" | "retryAfter" | "instance">>;
  }[] = [
    {
      name: "an inferd problem",
      status: 400,
      body: JSON.stringify({
        type: "https://inferd.dev/problems/model_not_found",
        title: "Model not found",
        status: 400,
        detail: 'no model named "nope"',
        code: "model_not_found",
        request_id: "8a043e12998ce125a1c78bb29e3cfaf4",
        instance: "/predict",
      }),
      headers: { "Content-Type": "application/problem+json", "X-Request-ID": "8a043e12998ce125a1c78bb29e3cfaf4" },
      want: { status: 400, code: "model_not_found", title: "Model not found", detail: 'no model named "nope"', requestId: "8a043e12998ce125a1c78bb29e3cfaf4", instance: "/predict" },
    },
    {
      name: "Retry-After is read",
      status: 429,
      body: JSON.stringify({ title: "Too many requests", status: 429, detail: "retry after 1 s", code: "rate_limited", request_id: "ab12" }),
      headers: { "Retry-After": "1" },
      want: { status: 429, code: "rate_limited", retryAfter: 1 },
    },
    {
      name: "a body that is not a problem",
      status: 502,
      body: "<html>Bad Gateway</html>",
      headers: { "X-Request-ID": "cd34" },
      want: { status: 502, code: "http_502", detail: "<html>Bad Gateway</html>", requestId: "cd34", retryAfter: undefined },
    },
    {
      name: "JSON that is not a problem (/ready while loading)",
      status: 503,
      body: '{"status":"loading"}',
      want: { status: 503, code: "http_503", requestId: "" },
    },
    { name: "no body", status: 500, body: "", want: { status: 500, code: "http_500", detail: "" } },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const res = new Response(c.body, { status: c.status, ...(c.headers ? { headers: c.headers } : {}) });
      const p = await ProblemError.fromResponse(res);
      assert.ok(p instanceof Error);
      for (const [k, v] of Object.entries(c.want)) {
        assert.equal(p[k as keyof typeof c.want], v, k);
      }
      assert.match(p.message, new RegExp(`^${c.status} ${p.code}: `));
    });
  }
});
