// @hey-api/openapi-ts's configuration for make check-generators: its defaults (types,
// SDK functions, its fetch client) on the contract. tsConfigPath points it at
// tsconfig.json beside this file, whose NodeNext resolution makes it write the `.js`
// extensions Node's ES modules need (it looks for a tsconfig from its own folder
// otherwise).
import { fileURLToPath } from "node:url";

export default {
  input: fileURLToPath(new URL("../../../openapi.yaml", import.meta.url)),
  output: {
    path: fileURLToPath(new URL("gen/hey-api", import.meta.url)),
    tsConfigPath: fileURLToPath(new URL("tsconfig.json", import.meta.url)),
  },
};
