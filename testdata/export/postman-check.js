// Parses a Postman Collection with Postman's own library (postman-collection,
// pinned in testdata/package.json) and prints what it read, for the tests
// of 'replayctl export --postman': the collection's schema, its variables,
// and per request its folder, name, method, URL, headers, body and scripts.
// Usage: node postman-check.js COLLECTION.json
"use strict";
const fs = require("fs");
const { Collection } = require("postman-collection");

const json = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
if (!Collection.isCollection(new Collection(json))) {
  throw new Error("not a collection");
}
const c = new Collection(json);
const out = { schema: json.info.schema, name: c.name, variables: c.variables.toObject(), requests: [] };
c.forEachItem((item) => {
  const parent = item.parent();
  out.requests.push({
    folder: parent && parent.name,
    name: item.name,
    method: item.request.method,
    url: item.request.url.toString(),
    headers: item.request.headers.toObject(),
    body: item.request.body && item.request.body.raw,
    prerequest: item.events.listeners("prerequest").map((e) => e.script.toSource()).join("\n"),
    test: item.events.listeners("test").map((e) => e.script.toSource()).join("\n"),
  });
});
process.stdout.write(JSON.stringify(out));
