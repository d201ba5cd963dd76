// A browser for test_dashboard.py: Debian's chromium, headless, driven by Playwright. The test
// sends one JSON command per line on stdin and reads one JSON answer per line on stdout:
//   {"op":"open","url":U}                      load U in a new page (console errors are kept)
//   {"op":"goto","hash":H}                     follow an in-page link (location.hash = H)
//   {"op":"waitFor","selector":S,"text":T,"attribute":A,"timeoutMs":MS}
//        until an element matching S has T in its text (or in attribute A); answers how long it
//        took: {"ok":true,"elapsedMs":N,"text":...}
//   {"op":"texts","selector":S}                the texts of every match
//   {"op":"fill","selector":S,"text":T}       types T into the field S
//   {"op":"location"}                          the page's address now
//   {"op":"press","key":K} / {"op":"focused"}  keyboard, and what has the focus
//   {"op":"screenshot","path":P,"width":W,"height":H,"colorScheme":"light"|"dark"}
//   {"op":"errors"}                            console errors and failed page requests so far
//   {"op":"close"}
// Every answer is {"ok":true,...} or {"ok":false,"error":...}.
import { chromium } from "playwright-core";
import readline from "node:readline";

const browser = await chromium.launch({
  executablePath: process.env.TENURE_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
let page = null;
const errors = [];

function watch(p) {
  p.on("console", (m) => { if (m.type() === "error") errors.push("console: " + m.text()); });
  p.on("pageerror", (e) => errors.push("page error: " + e.message));
  p.on("requestfailed", (r) => {
    // An event stream cut by a navigation or a server restart is not a page error.
    if (r.resourceType() === "eventsource" || (r.failure() && r.failure().errorText === "net::ERR_ABORTED")) return;
    errors.push("request failed: " + r.url() + " " + (r.failure() ? r.failure().errorText : ""));
  });
}

async function waitFor(cmd) {
  const started = Date.now();
  const timeout = cmd.timeoutMs ?? 10000;
  const handle = await page.waitForFunction(({ selector, text, attribute }) => {
    for (const node of document.querySelectorAll(selector)) {
      const value = attribute ? node.getAttribute(attribute) : node.textContent;
      if (text === undefined || text === null || (value !== null && value.includes(text))) return value ?? "";
    }
    return false;
  }, { selector: cmd.selector, text: cmd.text, attribute: cmd.attribute }, { timeout, polling: 20 });
  return { elapsedMs: Date.now() - started, text: await handle.jsonValue() };
}

const ops = {
  async open(cmd) {
    if (page) await page.close();
    page = await context.newPage();
    watch(page);
    await page.goto(cmd.url, { waitUntil: "load" });
    return { url: page.url() };
  },
  async goto(cmd) {
    await page.evaluate((hash) => { location.hash = hash; }, cmd.hash);
    return {};
  },
  waitFor,
  async texts(cmd) {
    return { texts: await page.$$eval(cmd.selector, (nodes) => nodes.map((n) => n.textContent)) };
  },
  async location() {
    return { href: await page.evaluate(() => location.href) };
  },
  async fill(cmd) {
    await page.fill(cmd.selector, cmd.text);
    return {};
  },
  async press(cmd) {
    await page.keyboard.press(cmd.key);
    return {};
  },
  async focused() {
    return { focused: await page.evaluate(() => {
      const a = document.activeElement;
      return a ? a.tagName.toLowerCase() + (a.id ? "#" + a.id : "") + (a.dataset && a.dataset.lease ? "[" + a.dataset.lease + "]" : "") : "";
    }) };
  },
  async screenshot(cmd) {
    await page.setViewportSize({ width: cmd.width ?? 1280, height: cmd.height ?? 800 });
    await page.emulateMedia({ colorScheme: cmd.colorScheme ?? "light" });
    // Two frames: the new size and colours are painted.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.screenshot({ path: cmd.path, fullPage: cmd.fullPage ?? false });
    return {};
  },
  async errors() {
    return { errors };
  },
  async close() {
    await browser.close();
    return {};
  },
};

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  let answer;
  try {
    const cmd = JSON.parse(line);
    answer = { ok: true, ...(await ops[cmd.op](cmd)) };
    if (cmd.op === "close") {
      process.stdout.write(JSON.stringify(answer) + "\n");
      break;
    }
  } catch (e) {
    answer = { ok: false, error: String(e && e.message ? e.message : e) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
process.exit(0);
