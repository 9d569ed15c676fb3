// Drives `gbrain serve` with the official TypeScript SDK client (@modelcontextprotocol/sdk),
// as a Node.js MCP host would: list tools, call brain_search and brain_get.
// usage: node ts_sdk_client.cjs NODE_MODULES_PARENT PYTHON DB
// Prints one JSON object on stdout: {tools, search, get}.
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
  await client.close();
  process.stdout.write(JSON.stringify({ tools: tools.tools, search, get }) + "\n");
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(1);
});
