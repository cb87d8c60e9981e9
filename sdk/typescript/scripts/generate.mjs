// Writes src/schema.ts from the repository's openapi.yaml with openapi-typescript.
// One change to its stock output: the contract's AnyValue (anyOf of every JSON type,
// recursive, null through a nullable branch) becomes the recursive alias JsonValue.
// Emitted as-is it refers to itself through an indexed access type, which TypeScript
// rejects (TS2502) and then widens to `any`.
import { readFile, writeFile } from "node:fs/promises";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";

const contract = new URL("../../../openapi.yaml", import.meta.url);
const out = new URL("../src/schema.ts", import.meta.url);

const ast = await openapiTS(await readFile(contract, "utf8"), {
  transform(_schema, { path }) {
    if (path === "#/components/schemas/AnyValue") {
      return ts.factory.createTypeReferenceNode("JsonValue");
    }
    return undefined;
  },
});

const header = `// Generated from openapi.yaml by \`make generate-ts\` (openapi-typescript, scripts/generate.mjs).
// Never edit it by hand.

/** Any JSON value, null included: the contract's AnyValue. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

`;
await writeFile(out, header + astToString(ast));
