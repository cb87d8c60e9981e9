import type { components } from "./schema.js";

/** The RFC 9457 problem body inferd sends with every 4xx and 5xx. */
export type Problem = components["schemas"]["Problem"];

/**
 * ProblemError is thrown for every non-2xx answer. It carries the problem's fields, so a
 * caller branches on `code` (stable) rather than on `detail` (for people), and quotes
 * `requestId` when reporting a fault.
 */
export class ProblemError extends Error {
  override readonly name = "ProblemError";
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly requestId: string;
  readonly type: string;
  readonly instance: string | undefined;
  /** Seconds from a Retry-After header (429, 503), when the server sent one. */
  readonly retryAfter: number | undefined;

  constructor(p: {
    status: number;
    code: string;
    title: string;
    detail: string;
    requestId: string;
    type?: string;
    instance?: string | undefined;
    retryAfter?: number | undefined;
  }) {
    super(`${p.status} ${p.code}: ${p.detail} (request ${p.requestId || "unknown"})`);
    this.status = p.status;
    this.code = p.code;
    this.title = p.title;
    this.detail = p.detail;
    this.requestId = p.requestId;
    this.type = p.type ?? "about:blank";
    this.instance = p.instance;
    this.retryAfter = p.retryAfter;
  }

  /**
   * Reads a non-2xx response. A body that is not a problem (a proxy's HTML page, or
   * /ready's 503 `loading`) still becomes a ProblemError, coded `http_<status>`, so
   * callers need only one catch.
   */
  static async fromResponse(response: Response): Promise<ProblemError> {
    const text = await response.text().catch(() => "");
    const headerId = response.headers.get("X-Request-ID") ?? "";
    const retry = Number.parseInt(response.headers.get("Retry-After") ?? "", 10);
    const retryAfter = Number.isFinite(retry) ? retry : undefined;
    const body = parseObject(text);
    if (body && typeof body.code === "string") {
      return new ProblemError({
        status: typeof body.status === "number" ? body.status : response.status,
        code: body.code,
        title: str(body.title) ?? response.statusText,
        detail: str(body.detail) ?? "",
        requestId: str(body.request_id) ?? headerId,
        type: str(body.type) ?? "about:blank",
        instance: str(body.instance),
        retryAfter,
      });
    }
    return new ProblemError({
      status: response.status,
      code: `http_${response.status}`,
      title: response.statusText,
      detail: text.slice(0, 500),
      requestId: headerId,
      retryAfter,
    });
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}
