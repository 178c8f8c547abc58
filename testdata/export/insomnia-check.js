// Reads an Insomnia export with Insomnia's own importers (insomnia-importers,
// pinned in testdata/package.json), as Insomnia's Import does, and prints
// which importer took it and the resources it made of it (each with the
// defaults the importer fills in), for the tests of
// 'replayctl export --insomnia'.
// Usage: node insomnia-check.js EXPORT.json
"use strict";
const fs = require("fs");
const { convert } = require("insomnia-importers");

convert(fs.readFileSync(process.argv[2], "utf8")).then(
  (result) => process.stdout.write(JSON.stringify({ importer: result.type.id, resources: result.data.resources })),
  (err) => {
    process.stderr.write(String(err && err.stack ? err.stack : err) + "\n");
    process.exit(1);
  },
);
