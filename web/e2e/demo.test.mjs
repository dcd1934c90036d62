// End-to-end tests of the toolgate demo in headless Chromium (playwright-core driving
// Debian's /usr/bin/chromium). Serves dist/ on a free 127.0.0.1 port, runs every test
// in a fresh browser context, prints measurements and `N passed, N failed`.
//
//   node web/e2e/demo.test.mjs          (after ./scripts/build-web)

import { serveDir } from "./serve.mjs";
import { mkdirSync, copyFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./checks.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const DIST = join(ROOT, "dist");
const ARTIFACTS = join(ROOT, "artifacts");

function serve() {
  return serveDir(DIST);
}

const consoleErrors = [];
const metrics = {};

async function openPage(ctx, url) {
  const page = await ctx.newPage();
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(`${page.url()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => consoleErrors.push(`${page.url()}: pageerror ${e.message}`));
  page.on("crash", () => consoleErrors.push(`${page.url()}: the page crashed`));
  page.on("dialog", async (d) => {
    consoleErrors.push(`dialog opened: ${d.message()}`);
    await d.dismiss();
  });
  await page.goto(url);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "1" && window.toolgateDemo);
  return page;
}

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

const prompt = (page) => page.locator('[data-testid="approval-prompt"]');

/** Starts a submit without awaiting it; the promise's value lands in window.__out[key]. */
async function submitAsync(page, key, call, options) {
  await page.evaluate(
    ([key, call, options]) => {
      window.__out = window.__out ?? {};
      window.toolgateDemo.submit(call, options).then((v) => (window.__out[key] = v), (e) => (window.__out[key] = { error: String(e) }));
    },
    [key, call, options ?? {}],
  );
}

async function outcome(page, key, timeout = 5000) {
  const h = await page.waitForFunction((k) => window.__out && window.__out[k], key, { timeout });
  return h.jsonValue();
}

const PUSH = { tool: "bash", args: { command: "git push origin main" } };

const tests = {
  async "approve once → the run continues"(ctx, url) {
    const page = await openPage(ctx, url);
    await submitAsync(page, "a", PUSH);
    await prompt(page).waitFor();
    assert((await page.getByTestId("tool-name").textContent()) === "bash", "tool-name");
    assert((await page.getByTestId("tier").textContent()) === "ask", "tier");
    assert((await page.getByTestId("tool-args").textContent()).includes("git push origin main"), "tool-args");
    assert((await page.getByTestId("reason").textContent()).length > 5, "reason");
    assert((await page.getByTestId("countdown").textContent()).includes("left"), "countdown");
    assert((await page.getByTestId("approve-always").textContent()).includes("Bash(git push origin main)"), "scope shown");
    await page.screenshot({ path: join(ARTIFACTS, "prompt.png"), fullPage: false });
    // latency: click → the page's onResumed (the run continues)
    await page.evaluate(() => {
      document.addEventListener("click", () => (window.__clickAt = performance.now()), { capture: true, once: true });
    });
    await page.getByTestId("approve-once").click();
    const out = await outcome(page, "a");
    assert(out.outcome === "approved", `outcome ${JSON.stringify(out)}`);
    metrics.clickToResumeMs = await page.evaluate(() => window.__toolgateLastResume - window.__clickAt);
    await prompt(page).waitFor({ state: "detached" });
    const log = await page.evaluate(() => window.toolgateDemo.log().map((e) => e.text).join("\n"));
    assert(log.includes("new branch"), "the pushed result is in the transcript");
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="run-status"]')].some((e) => e.textContent === "completed"));
  },

  async "deny with a message → the agent receives User refused permission: <message>"(ctx, url) {
    const page = await openPage(ctx, url);
    await submitAsync(page, "d", PUSH);
    await prompt(page).waitFor();
    await page.getByTestId("deny-message").fill("not on main, use a branch");
    await page.getByTestId("deny").click();
    const out = await outcome(page, "d");
    assert(out.outcome === "denied", JSON.stringify(out));
    assert(out.toolResult === "User refused permission: not on main, use a branch", JSON.stringify(out));
    const log = await page.evaluate(() => window.toolgateDemo.log().map((e) => e.text));
    assert(log.includes("User refused permission: not on main, use a branch"), "refusal in transcript");
  },

  async "always allow → a second matching call is not asked"(ctx, url) {
    const page = await openPage(ctx, url);
    await submitAsync(page, "1", PUSH);
    await prompt(page).waitFor();
    await page.waitForTimeout(550); // (key grace does not apply to clicks; realistic pause)
    await page.getByTestId("approve-always").click();
    const matches = await page.getByTestId("grant-matches").first().textContent();
    assert(matches.includes("exactly the command `git push origin main`"), `what the grant matches, shown first: ${matches}`);
    await page.getByTestId("grant-approve").first().click();
    const first = await outcome(page, "1");
    assert(first.outcome === "approved" && first.scope === "Bash(git push origin main)", JSON.stringify(first));
    const second = await page.evaluate((c) => window.toolgateDemo.submit(c), PUSH);
    assert(second.outcome === "approved" && second.verdict.tier === "auto", JSON.stringify(second));
    assert((await prompt(page).count()) === 0, "no prompt for the second call");
    const other = await page.evaluate(() => window.toolgateDemo.runs().filter((r) => r.status === "awaiting_permission").length);
    assert(other === 0, "nothing parked");
  },

  async "expiry → the prompt says expired and the call does not run"(ctx, url) {
    const page = await openPage(ctx, url);
    await submitAsync(page, "e", { tool: "bash", args: { command: "git push origin expiring" } }, { ttlMs: 2500 });
    await prompt(page).waitFor();
    assert(/0:0\d left/.test(await page.getByTestId("countdown").textContent()), "time left visible before expiry");
    await page.waitForFunction(() => document.querySelector('[data-testid="countdown"]')?.textContent.includes("expired"), null, { timeout: 6000 });
    const text = await page.getByTestId("countdown").textContent();
    assert(text.includes("expired") && !text.includes("denied"), text);
    assert(await page.getByTestId("approve-once").isDisabled(), "buttons disabled after expiry");
    const out = await outcome(page, "e", 6000);
    assert(out.outcome === "expired", JSON.stringify(out));
    const log = await page.evaluate(() => window.toolgateDemo.log().map((e) => e.text).join("\n"));
    assert(!log.includes("expiring -> "), "the push did not run");
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="run-status"]')].some((e) => e.textContent.startsWith("expired")), null, { timeout: 7000 });
  },

  async "reload while awaiting → the same prompt is back and deciding works"(ctx, url) {
    const page = await openPage(ctx, url);
    await submitAsync(page, "r", { tool: "bash", args: { command: "npm publish" } });
    await prompt(page).waitFor();
    const before = await prompt(page).getAttribute("data-tool-call-id");
    await page.reload();
    await page.waitForFunction(() => document.documentElement.dataset.ready === "1");
    await prompt(page).waitFor();
    assert((await prompt(page).getAttribute("data-tool-call-id")) === before, "same prompt");
    assert((await page.getByTestId("tool-args").textContent()).includes("npm publish"), "same args");
    await page.waitForTimeout(550);
    await page.keyboard.press("a"); // shortcut: approve once
    await prompt(page).waitFor({ state: "detached" });
    await page.waitForFunction(() => window.toolgateDemo.runs().every((r) => r.status === "completed"));
    assert((await page.evaluate(() => window.toolgateDemo.resumes().length)) === 1, "one resume");
  },

  async "two tabs → deciding in one updates the other within a second; exactly one resume"(ctx, url) {
    const a = await openPage(ctx, url);
    const b = await openPage(ctx, url);
    await submitAsync(a, "t", PUSH);
    await prompt(a).waitFor();
    await prompt(b).waitFor({ timeout: 1500 });
    await b.getByTestId("approve-once").click();
    const t0 = Date.now();
    await prompt(a).waitFor({ state: "detached", timeout: 1000 });
    metrics.otherTabUpdateMs = Date.now() - t0;
    const out = await outcome(a, "t");
    assert(out.outcome === "approved", JSON.stringify(out));
    // A second resume of the same marker (as a racing tab would try) is refused.
    const again = await a.evaluate(async () => {
      const store = window.toolgateDemo.runs()[0];
      return store.status;
    });
    assert(again === "completed" || again === "running", again);
    const resumes = await a.evaluate(() => window.toolgateDemo.resumes());
    assert(resumes.length === 1, `resumes ${JSON.stringify(resumes)}`);
  },

  async "both tabs click at once → one resume wins, the other says already decided"(ctx, url) {
    const a = await openPage(ctx, url);
    const b = await openPage(ctx, url);
    await submitAsync(a, "x", { tool: "bash", args: { command: "git push origin race" } });
    await prompt(a).waitFor();
    await prompt(b).waitFor({ timeout: 1500 });
    await a.waitForTimeout(600);
    const click = () => document.querySelector('[data-testid="approve-once"]')?.click();
    await Promise.all([a.evaluate(click), b.evaluate(click)]);
    await outcome(a, "x");
    await a.waitForTimeout(500);
    const resumes = await a.evaluate(() => window.toolgateDemo.resumes());
    assert(resumes.length === 1, `resumes ${JSON.stringify(resumes)}`);
  },

  async "markup in tool args renders as text and nothing executes"(ctx, url) {
    const page = await openPage(ctx, url);
    await page.evaluate(() => (window.__xss = 0));
    const evil = `echo "<img src=x onerror=alert(1)>" <script>window.__xss=1</script>`;
    await submitAsync(page, "x", { tool: "bash", args: { command: evil, note: "<b>bold</b>" } });
    await prompt(page).waitFor();
    const args = await page.getByTestId("tool-args").textContent();
    assert(args.includes("<img src=x onerror=alert(1)>") && args.includes("<script>"), args);
    assert((await page.locator(".tg-panel img, .tg-panel script, .tg-panel b, #transcript img, #transcript script").count()) === 0, "no elements made from args");
    await page.waitForTimeout(300);
    assert((await page.evaluate(() => window.__xss)) === 0, "script ran");
    await page.getByTestId("deny").click();
    await outcome(page, "x");
  },

  async "several pending calls are decided one by one; scripted task runs to the end"(ctx, url) {
    const page = await openPage(ctx, url);
    await page.evaluate(() => window.toolgateDemo.start());
    await prompt(page).first().waitFor({ timeout: 5000 });
    assert((await prompt(page).count()) === 2, "git push + rm -rf tmp/build in one marker");
    const log1 = await page.evaluate(() => window.toolgateDemo.log().map((e) => e.text).join("\n"));
    assert(log1.includes("pipe-to-shell") || log1.includes("remote"), "curl | sh was denied");
    assert(log1.includes("rm-root") || log1.includes("recursive delete"), "rm -rf / was denied");
    await prompt(page).nth(0).getByTestId("approve-once").click();
    assert((await prompt(page).count()) === 2, "first decision waits for the second");
    await prompt(page).nth(1).getByTestId("deny-message").fill("keep the build dir");
    await prompt(page).nth(1).getByTestId("deny").click();
    await prompt(page).first().waitFor({ state: "detached" });
    await page.locator("#question input").waitFor();
    await page.locator("#question input").fill("yes please");
    await page.locator("#question button").click();
    await page.waitForFunction(() => window.toolgateDemo.runs().some((r) => r.status === "completed"));
    const log2 = await page.evaluate(() => window.toolgateDemo.log().map((e) => e.text).join("\n"));
    assert(log2.includes("User refused permission: keep the build dir"), "refusal");
    assert(log2.includes("yes please") && log2.includes("Done:"), "ran to the end");
  },

  async "unchanged polls do not touch the DOM"(ctx, url) {
    const page = await openPage(ctx, url);
    await submitAsync(page, "m", PUSH);
    await prompt(page).waitFor();
    await page.waitForTimeout(500);
    const result = await page.evaluate(async () => {
      const root = document.getElementById("toolgate-ui");
      let all = 0, clock = 0;
      const obs = new MutationObserver((records) => {
        for (const r of records) {
          const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
          if (el && el.closest('[data-testid="countdown"]')) clock++;
          else all++;
        }
      });
      obs.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
      const p0 = window.toolgateDemo.panel.polls;
      while (window.toolgateDemo.panel.polls - p0 < 3) await new Promise((r) => setTimeout(r, 200));
      obs.disconnect();
      return { mutations: all, countdownTicks: clock, polls: window.toolgateDemo.panel.polls - p0 };
    });
    metrics.mutationsDuring3Polls = result.mutations;
    metrics.countdownMutations = result.countdownTicks;
    assert(result.mutations === 0, `mutations ${JSON.stringify(result)}`);
    await page.getByTestId("deny").click();
  },
};

async function main() {
  mkdirSync(ARTIFACTS, { recursive: true });
  const only = process.argv[2];
  const { url, proc } = await serve();
  let browser;
  let passed = 0, failed = 0;
  try {
    browser = await launchChromium();
    for (const [name, fn] of Object.entries(tests)) {
      if (only && !name.includes(only)) continue;
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const t0 = Date.now();
      try {
        await fn(ctx, url);
        passed++;
        console.log(`ok   ${name} (${Date.now() - t0} ms)`);
      } catch (e) {
        failed++;
        console.log(`FAIL ${name}: ${e.message.split("\n")[0]}`);
        try {
          const pages = ctx.pages();
          if (pages.length) await pages[pages.length - 1].screenshot({ path: join(ARTIFACTS, `fail-${passed + failed}.png`) });
        } catch {}
      } finally {
        await ctx.close();
      }
    }
    if (consoleErrors.length) {
      failed++;
      console.log(`FAIL no console errors on any page:\n  ${consoleErrors.join("\n  ")}`);
    } else {
      passed++;
      console.log("ok   no console errors on any page");
    }
  } finally {
    await browser?.close();
    proc.kill();
  }
  // The README's screenshot is refreshed only on request: a test run leaves the
  // checkout as it found it (the artifact is artifacts/prompt.png).
  if (process.env.TOOLGATE_UPDATE_SCREENSHOT && existsSync(join(ARTIFACTS, "prompt.png"))) {
    mkdirSync(join(ROOT, "docs"), { recursive: true });
    copyFileSync(join(ARTIFACTS, "prompt.png"), join(ROOT, "docs", "prompt.png"));
  }
  console.log(`metrics: ${JSON.stringify(metrics)}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  console.log("0 passed, 1 failed");
  process.exit(1);
});
