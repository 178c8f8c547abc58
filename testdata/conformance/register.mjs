// Loaded with `node --import ./register.mjs` before the MCP conformance
// suite (@modelcontextprotocol/conformance, pinned in ../package.json).
// Its build targets Node 20 but imports fs.globSync, which Node 22 added
// (and uses it only in `tier-check`): hook.mjs gives the suite's own
// modules an fs that has it. On Node 22 and later nothing changes.
import { register } from 'node:module';

register('./hook.mjs', import.meta.url);
