// What the TypeScript programs of make check-generators share: the server they talk
// to, the values they send, how they check what comes back, and type-level checks of
// a generated `data` type.

/** A JSON value as TypeScript spells it. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** True when T is `any`, which would type-check anything and so prove nothing. */
export type IsAny<T> = 0 extends 1 & T ? true : false;

/**
 * `true` only when D, a generated `data` type, takes every JSON value (null and nested
 * nulls included) and is not `any`. Issue 24 saw plain openapi-typescript type every
 * member of PredictRequest but model and version as `undefined`, and the recursive
 * AnyValue it emitted turn into `any` (TS2502).
 */
export type TakesEveryJsonValue<D> = IsAny<D> extends true ? false : Json extends D ? true : false;

/** The `data` each program predicts with; within 2^53, since JavaScript numbers are doubles. */
export const data = { text: "hello", n: 9007199254740991, nested: [null, 1.5, true, { a: null }] };

/** The `data` of the job each program submits. */
export const jobData = [1, "two", null];

/** The items of the batch each program sends with on_error continue; echo answers every one. */
export const batchItems = [1, "two", null];

/**
 * An answer of /predict/batch sent with on_error continue whose second item was refused
 * (the contract's example), which each program reads through its generated types: the
 * programs' server, echo alone, refuses no item.
 */
export const continued: unknown = JSON.parse(
  '{"model":"iris","version":"v1","results":[[{"label":"setosa","score":0.9816}],null],' +
    '"item_errors":[{"index":1,"status":400,"code":"invalid_input","detail":"items[1]: expected 4 numbers, got 3"}]}',
);

/** The type of an item error as the contract has it; a generated one must be exactly it. */
export type ItemErrorShape = { index: number; status: number; code: string; detail: string };

/** True when A and B are the same type. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Fails unless an item error read from `continued` is as it was written. */
export function checkItemError(e: ItemErrorShape | undefined): void {
  if (e?.index !== 1 || e.status !== 400 || e.code !== "invalid_input" || e.detail !== "items[1]: expected 4 numbers, got 3") {
    fail(`the item error reads as ${JSON.stringify(e)}`);
  }
}

/** A model no server has: predicting with it is a 400 model_not_found. */
export const noSuchModel = "no-such-model";

/** The server (INFERD_URL, required) and the key (INFERD_API_KEY, default dev-key). */
export function target(): { baseUrl: string; apiKey: string } {
  const baseUrl = process.env["INFERD_URL"];
  if (!baseUrl) fail("INFERD_URL is not set: it names the inferd to call");
  return { baseUrl, apiKey: process.env["INFERD_API_KEY"] || "dev-key" };
}

export function fail(message: string): never {
  throw new Error(message);
}

/** Fails unless got is the JSON value want. */
export function sameJson(what: string, got: unknown, want: unknown): void {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    fail(`${what} is ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
}

/** Fails unless a problem's code is the one predicting with noSuchModel gets. */
export function checkCode(code: string): void {
  if (code !== "model_not_found") fail(`the problem's code is ${JSON.stringify(code)}, want model_not_found`);
}

/** Whether a job's status is final. */
export function finished(status: string): boolean {
  return status !== "created" && status !== "pending" && status !== "running";
}
