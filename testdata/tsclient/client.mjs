// The TypeScript SDK test client of replayctl's record and serve tests: it
// connects N sessions of the official TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in ../package.json) to an MCP server,
// runs the same fixed script as the Go test client
// (internal/testclient/mcpclient; see package internal/testclient), and
// prints a transcript, one JSON line per step, grouped by client in client
// order.
//
// Usage:
//
//	node client.mjs [flags] --http URL
//	node client.mjs [flags] -- SERVER_CMD ARGS...
//
// Flags: --clients N, --script default|changed, --header NAME=VALUE
// (repeatable, --http only), --secret-arg S, --no-roots, --timeout SECONDS,
// -h/--help.
// Exit status: 0 when every step succeeded, 1 when one did not, 2 on bad
// usage. The TypeScript SDK speaks protocol 2025-11-25 at most.
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";

// The answers the client gives to the server's own requests: the same as
// the Go client's.
const ELICIT_CONTENT = { name: "Ada", username: "ada", context: "tests", color: "blue" };
const SAMPLE_TEXT = "Paris";
const ROOTS = [{ uri: "file:///tmp/replayctl-testclient", name: "testclient" }];

// The script's choices: the same lists as the Go client's (script.go).
const ECHO_TOOLS = ["echo", "test_x_mcp_header"];
const SUM_TOOLS = ["get-sum", "add"];
const TEXT_TOOLS = ["test_simple_text"];
const PREFERRED_RESOURCES = ["test://static-text"];
const PREFERRED_PROMPTS = ["test_simple_prompt", "simple-prompt"];

const USAGE =
  "usage: node client.mjs [--clients N] [--script default|changed] [--header NAME=VALUE] [--secret-arg S] [--no-roots] [--timeout SECONDS] (--http URL | -- SERVER_CMD ARGS...)\n";

const HELP = `${USAGE}
Runs the test client script with the TypeScript SDK client against an MCP
server and prints a JSON transcript, one line per step.

  --http URL            Streamable HTTP endpoint of the server
  --clients N           number of concurrent client sessions (default 1)
  --script S            client script: default, or changed (default "default")
  --header NAME=VALUE   HTTP header sent with every request (repeatable; --http only)
  --secret-arg S        a secret to pass in a tool call's arguments (adds a step)
  --no-roots            offer no roots capability (a server that asks for roots
                        some time after initialized, as server-everything
                        does, then never asks)
  --timeout SECONDS     bound on the whole run (default 60)
  -h, --help            print this help

Exit status: 0 every step succeeded, 1 one did not, 2 bad usage.
`;

function usage(msg) {
  process.stderr.write(`tsclient: ${msg}\n${USAGE}`);
  process.exit(2);
}

function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        http: { type: "string" },
        clients: { type: "string", default: "1" },
        script: { type: "string", default: "default" },
        header: { type: "string", multiple: true, default: [] },
        "secret-arg": { type: "string", default: "" },
        "no-roots": { type: "boolean", default: false },
        timeout: { type: "string", default: "60" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (err) {
    usage(err.message);
  }
  const v = parsed.values;
  if (v.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  const cfg = {
    url: v.http ?? "",
    argv: parsed.positionals,
    clients: Number(v.clients),
    script: v.script,
    headers: {},
    secret: v["secret-arg"],
    roots: !v["no-roots"],
    timeout: Number(v.timeout),
  };
  if (cfg.url === "" && cfg.argv.length === 0) usage("give a server: --http URL, or -- SERVER_CMD ARGS");
  if (cfg.url !== "" && cfg.argv.length > 0) usage(`give --http URL or a server command, not both (got --http ${cfg.url} and ${JSON.stringify(cfg.argv)})`);
  if (!Number.isInteger(cfg.clients) || cfg.clients < 1) usage(`--clients ${v.clients}: want 1 or more`);
  if (cfg.script !== "default" && cfg.script !== "changed") usage(`--script ${JSON.stringify(cfg.script)}: want default or changed`);
  if (!(cfg.timeout > 0)) usage(`--timeout ${v.timeout}: want a positive number of seconds`);
  if (cfg.url === "" && v.header.length > 0) usage("--header applies to --http only: a stdio server has no headers");
  for (const h of v.header) {
    const i = h.indexOf("=");
    if (i <= 0 || h.slice(0, i).trim() === "") usage(`--header: want NAME=VALUE, got ${JSON.stringify(h)}`);
    cfg.headers[h.slice(0, i).trim()] = h.slice(i + 1);
  }
  if (cfg.url !== "") {
    try {
      new URL(cfg.url);
    } catch {
      usage(`--http ${JSON.stringify(cfg.url)}: not a URL`);
    }
  }
  return cfg;
}

// newClient is client k; its clientInfo names k, as the Go client's does.
// With roots false it offers no roots capability.
function newClient(k, roots) {
  const capabilities = { sampling: {}, elicitation: {} };
  if (roots) capabilities.roots = { listChanged: true };
  const client = new Client({ name: `replayctl-testclient-ts-${k}`, version: "1" }, { capabilities });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: ELICIT_CONTENT }));
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    model: "fake",
    content: { type: "text", text: SAMPLE_TEXT },
  }));
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: ROOTS }));
  return client;
}

function transport(cfg) {
  if (cfg.url !== "") {
    return new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers: cfg.headers } });
  }
  // The whole environment, as a shell would pass it (the SDK's default is
  // a few variables only): a server command such as `replayctl record
  // --redact-env NAME` reads its own.
  return new StdioClientTransport({ command: cfg.argv[0], args: cfg.argv.slice(1), env: { ...process.env }, stderr: "inherit" });
}

// errorJSON is a JSON-RPC error as {code, message, data}, any other error
// as its text.
function errorJSON(err) {
  if (err instanceof McpError) {
    const e = { code: err.code, message: err.message };
    if (err.data !== undefined) e.data = err.data;
    return e;
  }
  return String(err?.message ?? err);
}

// runClient runs client k's session and returns its steps; a step that
// failed ends the session there.
async function runClient(cfg, k, steps) {
  const done = (step, result) => steps.push({ client: k, step, ok: true, result });
  const failed = (step, err) => steps.push({ client: k, step, ok: false, error: errorJSON(err) });
  const skipped = (step, why) => steps.push({ client: k, step, ok: true, skipped: why });
  // run does one step; false when it failed.
  const run = async (step, fn) => {
    try {
      done(step, await fn());
      return true;
    } catch (err) {
      failed(step, err);
      return false;
    }
  };

  const client = newClient(k, cfg.roots);
  const ok = await run("initialize", async () => {
    await client.connect(transport(cfg));
    const r = { capabilities: client.getServerCapabilities(), serverInfo: client.getServerVersion() };
    const instructions = client.getInstructions();
    if (instructions !== undefined) r.instructions = instructions;
    return r;
  });
  if (!ok) return;
  try {
    await script(cfg, k, client, { run, skipped, steps });
  } finally {
    await client.close().catch((err) => process.stderr.write(`tsclient: client ${k}: close: ${err}\n`));
  }
}

async function script(cfg, k, client, { run, skipped, steps }) {
  const changed = cfg.script === "changed";
  let tools;
  if (!(await run("tools/list", async () => (tools = await client.listTools())))) return;
  const names = tools.tools.map((t) => t.name);

  const echoArgs = (tool, msg) => (tool === "test_x_mcp_header" ? { region: msg, level: 1 } : { message: msg });
  const echo = (text) => ({ role: "echo", candidates: ECHO_TOOLS, args: (tool) => echoArgs(tool, `${text} from client ${k}`) });
  const [a, b, greeting] = changed ? [20, 22, "changed hello"] : [2, 3, "hello"];
  const roles = [
    echo(greeting),
    { role: "sum", candidates: SUM_TOOLS, args: () => ({ a, b }) },
    { role: "simple text", candidates: TEXT_TOOLS, args: () => undefined },
  ];
  if (cfg.secret !== "") {
    roles.push({ role: "secret", candidates: ECHO_TOOLS, args: (tool) => ({ ...echoArgs(tool, cfg.secret), api_key: cfg.secret }) });
  }
  const callRole = async (r) => {
    const tool = r.candidates.find((c) => names.includes(c));
    if (tool === undefined) {
      skipped(`tools/call (${r.role})`, `the server lists none of ${r.candidates.join(", ")}`);
      return true;
    }
    const step = `tools/call ${tool}` + (r.role === "secret" ? " (secret)" : "");
    const args = r.args(tool);
    if (!(await run(step, () => client.callTool(args === undefined ? { name: tool } : { name: tool, arguments: args })))) return false;
    const last = steps[steps.length - 1];
    if (last.result?.isError) last.ok = false;
    return last.ok;
  };
  for (const r of roles) if (!(await callRole(r))) return;

  let resources;
  if (!(await run("resources/list", async () => (resources = await client.listResources())))) return;
  const uri = pickResource(resources.resources);
  if (uri === "") skipped("resources/read", "the server lists no resources");
  else if (!(await run(`resources/read ${uri}`, () => client.readResource({ uri })))) return;

  let prompts;
  if (!(await run("prompts/list", async () => (prompts = await client.listPrompts())))) return;
  const prompt = pickPrompt(prompts.prompts);
  if (prompt === "") skipped("prompts/get", "the server lists no prompt without required arguments");
  else if (!(await run(`prompts/get ${prompt}`, () => client.getPrompt({ name: prompt })))) return;

  if (!(await run("ping", () => client.ping()))) return;
  if (changed) await callRole(echo("extra call"));
}

const least = (xs) => xs.reduce((m, x) => (m === "" || x < m ? x : m), "");

// pickResource: a preferred URI, else the least URI of a text resource,
// else the least URI; "" when there is none.
function pickResource(rs) {
  const uris = rs.map((r) => r.uri);
  const p = PREFERRED_RESOURCES.find((u) => uris.includes(u));
  if (p !== undefined) return p;
  const text = rs.filter((r) => (r.mimeType ?? "").startsWith("text/")).map((r) => r.uri);
  return text.length > 0 ? least(text) : least(uris);
}

// pickPrompt: a preferred name, else the least name of a prompt with no
// required argument; "" when there is none.
function pickPrompt(ps) {
  const names = ps.filter((p) => !(p.arguments ?? []).some((a) => a.required)).map((p) => p.name);
  const p = PREFERRED_PROMPTS.find((n) => names.includes(n));
  if (p !== undefined) return p;
  return least(names);
}

function print(all) {
  let status = 0;
  for (const steps of all) {
    for (const s of steps) {
      if (!s.ok) status = 1;
      process.stdout.write(JSON.stringify(s) + "\n");
    }
  }
  return status;
}

const cfg = parse(process.argv.slice(2));
const all = Array.from({ length: cfg.clients }, () => []);
const timer = setTimeout(() => {
  print(all);
  process.stderr.write(`tsclient: stopped after --timeout ${cfg.timeout}s\n`);
  process.exit(1);
}, cfg.timeout * 1000);
await Promise.all(all.map((steps, k) => runClient(cfg, k, steps)));
clearTimeout(timer);
const status = print(all);
process.stdout.write("", () => process.exit(status));
