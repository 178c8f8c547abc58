// Validates OpenAPI documents with @apidevtools/swagger-parser (pinned in
// testdata/package.json): the document against the OpenAPI 3.1 schema,
// every $ref resolved. Prints, per file, what it read: the version, the
// paths and the component schemas' names.
// Usage: node openapi-check.js OPENAPI.json...
"use strict";
const SwaggerParser = require("@apidevtools/swagger-parser");

(async () => {
  const out = [];
  for (const file of process.argv.slice(2)) {
    const api = await SwaggerParser.validate(file);
    out.push({ openapi: api.openapi, paths: Object.keys(api.paths), schemas: Object.keys(api.components.schemas) });
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(1);
});
