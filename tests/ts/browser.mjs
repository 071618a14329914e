// A person in a real browser: Debian's headless Chromium driven by Playwright (playwright-core,
// pinned in package.json and package-lock.json; it never downloads a browser of its own), on
// the sandbox's pages that svc prints links to (tests/e2e/test_browser_pages.py).
//
// Usage: node browser.mjs, then one JSON command a line on stdin, one JSON answer a line on
// stdout, in turn, so that the test can act on svc's terminal between two steps in the page.
//
// The first line starts the browser:
//   {origin, userDataDir, executablePath, timeoutMs}
//     origin          the sandbox's origin: every request to another one is recorded and
//                     aborted (the pages must load nothing from elsewhere)
//     userDataDir     a fresh, empty profile folder
//     executablePath  the Chromium to drive (/usr/bin/chromium)
//     timeoutMs       the longest any one step waits
//   answer: {ready: true, version}
//
// Then, each answered with {ok: true, ...} or {error: message}:
//   {op: "goto", url}                     open a link; answer: the page (below)
//   {op: "click", name}                   click the button of that accessible name, as a person
//                                         does, and wait for the page it loads; the page
//   {op: "value", label}                  the input of that label: {value, editable}
//   {op: "text", selector}                {text} of the element (an error when there is none)
//   {op: "axe"}                           axe-core (from node_modules, injected into the page)
//                                         on the whole page: {violations: [{id, impact, help,
//                                         nodes: [{target, html, summary}]}], passes}
//   {op: "close"}                         {requests, offOrigin, consoleErrors, pageErrors}, and
//                                         the browser and this process end
// The page: {url, status (of the document's response), title, lang, text (what is shown)}.
//
// Nothing is asserted here: the Python test reads the answers and asserts behaviour.

import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const AXE = require.resolve("axe-core/axe.min.js");

// The flags of a browser with no screen, no network beyond loopback and no background traffic
// (without them Chromium tries Google's hosts at every start, refused here many at a time).
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const say = (doc) => process.stdout.write(JSON.stringify(doc) + "\n");

let context = null;
let page = null;
let origin = null;
let timeoutMs = 15_000;
let lastStatus = null;
const requests = [];
const offOrigin = [];
const consoleErrors = [];
const pageErrors = [];

async function start(config) {
  origin = config.origin;
  timeoutMs = config.timeoutMs ?? timeoutMs;
  context = await chromium.launchPersistentContext(config.userDataDir, {
    executablePath: config.executablePath,
    headless: true,
    args: FLAGS,
    timeout: timeoutMs,
    handleSIGTERM: false, // ours closes the browser, then exits
  });
  context.setDefaultTimeout(timeoutMs);
  context.setDefaultNavigationTimeout(timeoutMs);
  context.on("request", (request) => {
    requests.push({
      url: request.url(),
      method: request.method(),
      type: request.resourceType(),
    });
  });
  // Anything not on the sandbox's origin is recorded and never reaches the network.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (sameOrigin(url)) return route.continue();
    offOrigin.push(url);
    return route.abort("blockedbyclient");
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  page.on("response", (response) => {
    if (response.request().isNavigationRequest() && response.frame() === page.mainFrame()) {
      lastStatus = response.status();
    }
  });
  return { ready: true, version: context.browser()?.version() ?? null };
}

function sameOrigin(url) {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

async function shown() {
  const [title, lang, text] = await Promise.all([
    page.title(),
    page.evaluate(() => document.documentElement.lang),
    page.locator("body").innerText(),
  ]);
  return { url: page.url(), status: lastStatus, title, lang, text };
}

async function axe() {
  if (!(await page.evaluate(() => typeof window.axe === "object"))) {
    await page.addScriptTag({ path: AXE });
  }
  const result = await page.evaluate(() =>
    window.axe.run(document, { resultTypes: ["violations"] }),
  );
  return {
    violations: result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({
        target: n.target,
        html: n.html,
        summary: n.failureSummary,
      })),
    })),
    passes: result.passes.length,
  };
}

async function handle(command) {
  switch (command.op) {
    case "goto": {
      const response = await page.goto(command.url, { waitUntil: "load" });
      lastStatus = response?.status() ?? null;
      return shown();
    }
    case "click": {
      // The new document's load, whatever redirects lead to it; a button that does nothing
      // never loads one, and the step fails after timeoutMs.
      const loaded = page.waitForEvent("load");
      await page.getByRole("button", { name: command.name, exact: true }).click();
      await loaded;
      return shown();
    }
    case "value": {
      const input = page.getByLabel(command.label, { exact: true });
      return { value: await input.inputValue(), editable: await input.isEditable() };
    }
    case "text":
      return { text: await page.locator(command.selector).innerText() };
    case "axe":
      return axe();
    default:
      throw new Error(`unknown op ${JSON.stringify(command.op)}`);
  }
}

async function close() {
  const report = { requests, offOrigin, consoleErrors, pageErrors };
  if (context) await context.close();
  context = null;
  return report;
}

// The end, whichever comes first: `close` asked, stdin closed (the test is done or gone), or
// SIGTERM. Chromium goes with this process (Playwright kills it at exit, if close hangs).
let closing = null;
function shutdown(code) {
  closing ??= (async () => {
    const stuck = setTimeout(() => process.exit(code), 5_000);
    try {
      if (context) await context.close();
    } catch {
      // exiting kills it
    }
    clearTimeout(stuck);
    process.exit(code);
  })();
  return closing;
}
process.on("SIGTERM", () => shutdown(143));

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("close", () => shutdown(0));
let first = true;
for await (const line of lines) {
  if (!line.trim()) continue;
  let command;
  try {
    command = JSON.parse(line);
  } catch (error) {
    say({ error: `not JSON: ${error.message}` });
    continue;
  }
  try {
    if (first) {
      first = false;
      say(await start(command));
    } else if (command.op === "close") {
      say({ ok: true, ...(await close()) });
      break;
    } else {
      say({ ok: true, ...(await handle(command)) });
    }
  } catch (error) {
    say({ error: String(error?.message ?? error) });
  }
}
await shutdown(0);
