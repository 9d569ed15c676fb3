// Drives `gbrain serve` with the official TypeScript SDK client (@modelcontextprotocol/sdk),
// as a Node.js MCP host would: list tools, call brain_search and brain_get, and three calls that
// fail (their error results carry structuredContent, which this client validates against the
// tool's outputSchema even on isError: a result that did not conform would throw here).
// usage: node ts_sdk_client.cjs NODE_MODULES_PARENT PYTHON DB
// Prints one JSON object on stdout: {tools, search, get, errors}.
const { createRequire } = require("node:module");
const path = require("node:path");

const [modulesParent, python, db] = process.argv.slice(2);
const req = createRequire(path.join(modulesParent, "package.json"));
const { Client } = req("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = req("@modelcontextprotocol/sdk/client/stdio.js");

async function main() {
  const transport = new StdioClientTransport({
    command: python,
    args: ["-m", "gbrain", "serve", "--db", db],
    env: { ...process.env },
    stderr: "ignore",
  });
  const client = new Client({ name: "gbrain-ts-test", version: "1.0.0" });
  await client.connect(transport);
  const tools = await client.listTools();
  const search = await client.callTool({ name: "brain_search", arguments: { query: "Series A", limit: 3 } });
  const get = await client.callTool({ name: "brain_get", arguments: { slug: "ana-lima" } });
  const errors = [];
  for (const [name, args] of [["brain_get", { slug: "people/ana-lim" }], ["brain_list", { sort: "size" }], ["brain_search", { query: "x", limitt: 2 }]]) {
    errors.push(await client.callTool({ name, arguments: args }));
  }
  await client.close();
  process.stdout.write(JSON.stringify({ tools: tools.tools, search, get, errors }) + "\n");
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(1);
});
