// The official MCP TypeScript SDK client (@modelcontextprotocol/sdk, pinned in package.json and
// package-lock.json) drives `svc mcp` over stdio, as a desktop or IDE host built on it would.
//
// Usage: node drive.mjs < plan.json > report.json
//
// The plan (written by tests/e2e/test_mcp_typescript.py):
//   command, args, env      how to start `svc mcp`
//   sandbox                 the sandbox's base URL (its clock is advanced through /_sandbox/clock)
//   protocol                optional: the protocol version this client asks for (a host on an
//                           older SDK), instead of the SDK's latest
//   elicitation             false: a client that declares no elicitation capability
//   person                  how the person answers the server's forms: {pay, code,
//                           advanceAfterAnswer, typesForSeconds (a slow person: this long,
//                           times timeScale, before the code is given)}
//   http                    optional {url, token}: Streamable HTTP to a running `svc mcp
//                           --http` with that bearer token, instead of starting one on stdio
//   timeScale               optional, in (0, 1]: the server runs its waits at this pace
//                           (SVC_TEST_MCP_TIME_SCALE, set by the test in env) and the client
//                           times a request out after the SDK's default times the same factor,
//                           so a test of the 60 s limit keeps its ratios in a fraction of the time
//   steps                   a list of {tool, args} | {advance: seconds} | {setLevel: level}
//                           | {listTools: true} | {strictSchemas: true}; an argument "$task"
//                           is the id of the last task a step returned
//
// The report: one JSON document with every step's outcome (a tool result as the client
// returned it, or the error the client threw), the forms the person was shown, progress and log
// notifications, the negotiated protocol version and the server's stderr. Nothing is asserted
// here: the Python test reads the report and asserts behaviour.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import Ajv2020 from "ajv/dist/2020.js";
import AjvDraft7 from "ajv";

const readStdin = async () => {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A stdio transport that can ask for an older protocol version and records the one agreed. */
class RecordingTransport extends StdioClientTransport {
  constructor(params, protocol) {
    super(params);
    this.askFor = protocol;
    this.negotiated = null;
  }

  async send(message, options) {
    if (this.askFor && message.method === "initialize") {
      message = { ...message, params: { ...message.params, protocolVersion: this.askFor } };
    }
    return super.send(message, options);
  }

  setProtocolVersion(version) {
    this.negotiated = version;
  }
}

/** The HTTP transport, recording the protocol version agreed as the stdio one does. */
class RecordingHttpTransport extends StreamableHTTPClientTransport {
  constructor(url, token) {
    super(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    this.negotiated = null;
  }

  setProtocolVersion(version) {
    this.negotiated = version;
    super.setProtocolVersion?.(version);
  }
}

async function advance(sandbox, seconds) {
  const response = await fetch(`${sandbox}/_sandbox/clock`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ advance_seconds: seconds }),
  });
  if (!response.ok) throw new Error(`sandbox clock: HTTP ${response.status}`);
}

/** Every tool schema compiled by Ajv in strict mode, as the MCP Inspector's strict checks do:
 * union `type` arrays, unknown keywords, `required` names with no property all fail. */
function strictProblems(tools) {
  const problems = [];
  for (const [dialect, Ajv] of [
    ["2020-12", Ajv2020],
    ["draft-07", AjvDraft7],
  ]) {
    const ajv = new Ajv({ strict: true, allErrors: true });
    for (const tool of tools) {
      for (const which of ["inputSchema", "outputSchema"]) {
        if (!tool[which]) continue;
        try {
          ajv.compile(tool[which]);
        } catch (error) {
          problems.push({ dialect, tool: tool.name, schema: which, error: String(error.message) });
        }
      }
    }
  }
  return problems;
}

function describeThrown(error) {
  return { code: error?.code ?? null, message: String(error?.message ?? error) };
}

async function main() {
  const plan = await readStdin();
  const person = plan.person ?? {};
  const report = { steps: [], asked: [], logs: [], negotiated: null, stderr: "" };
  const capabilities = plan.elicitation === false ? {} : { elicitation: { form: {} } };
  const client = new Client({ name: "svc-tests-ts", version: "1.0.0" }, { capabilities });

  if (plan.elicitation !== false) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      report.asked.push(request.params);
      const properties = request.params.requestedSchema?.properties ?? {};
      if ("pay" in properties) {
        return { action: "accept", content: { pay: Boolean(person.pay) } };
      }
      if (person.code == null) return { action: "decline" };
      // A person who takes this long to find the code (scaled with the server's waits).
      if (person.typesForSeconds) await sleep(person.typesForSeconds * 1000 * (plan.timeScale ?? 1));
      if (person.advanceAfterAnswer) {
        // The task resumes once the code is in; move the sandbox's clock on a moment later.
        sleep(1500)
          .then(() => advance(plan.sandbox, person.advanceAfterAnswer))
          .catch(() => {});
      }
      return { action: "accept", content: { value: person.code } };
    });
  }
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    report.logs.push(notification.params);
  });

  const transport = plan.http
    ? new RecordingHttpTransport(plan.http.url, plan.http.token)
    : new RecordingTransport(
        { command: plan.command, args: plan.args, env: plan.env, stderr: "pipe" },
        plan.protocol,
      );
  transport.stderr?.on("data", (chunk) => {
    report.stderr += chunk.toString("utf8");
  });

  await client.connect(transport);
  report.negotiated = transport.negotiated;
  report.defaultTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MSEC; // what a host waits, unscaled
  report.serverCapabilities = client.getServerCapabilities() ?? null;
  // The SDK caches the output schemas it validates results against when tools are listed,
  // as hosts do before offering the tools to a model.
  const { tools } = await client.listTools();
  let lastTask = null;
  const withTask = (args) =>
    Object.fromEntries(Object.entries(args ?? {}).map(([k, v]) => [k, v === "$task" ? lastTask : v]));

  for (const step of plan.steps) {
    const started = Date.now();
    const entry = { step };
    try {
      if (step.advance !== undefined) {
        await advance(plan.sandbox, step.advance);
      } else if (step.setLevel !== undefined) {
        entry.result = await client.setLoggingLevel(step.setLevel);
      } else if (step.listTools) {
        entry.tools = tools;
      } else if (step.strictSchemas) {
        entry.problems = strictProblems(tools);
      } else {
        const progress = [];
        // Default request options (60 s timeout, not reset by progress), as a host uses them;
        // the timeout scaled only when the server's waits are (plan.timeScale).
        const args = withTask(step.args);
        const options = { onprogress: (p) => progress.push(p) };
        if (plan.timeScale) options.timeout = DEFAULT_REQUEST_TIMEOUT_MSEC * plan.timeScale;
        entry.result = await client.callTool(
          { name: step.tool, arguments: args },
          undefined,
          options,
        );
        entry.progress = progress;
        lastTask = entry.result.structuredContent?.task?.id ?? lastTask;
      }
    } catch (error) {
      entry.threw = describeThrown(error);
    }
    entry.ms = Date.now() - started;
    report.steps.push(entry);
  }
  await client.close();
  await sleep(200); // the last stderr lines of the server
  process.stdout.write(JSON.stringify(report));
}

main().catch((error) => {
  process.stdout.write(JSON.stringify({ fatal: describeThrown(error) }));
  process.exitCode = 1;
});
