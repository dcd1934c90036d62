import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// The tally the end-to-end tests print: `ok   NAME` / `FAIL NAME: DETAIL`, then
// `LABEL: N passed, N failed`, exiting 1 on any failure.
export function checker() {
  let passed = 0;
  let failed = 0;
  return {
    check(name, cond, detail) {
      if (cond) {
        passed++;
        console.log(`ok   ${name}`);
      } else {
        failed++;
        console.log(`FAIL ${name}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
      }
    },
    finish(label) {
      console.log(`${label}: ${passed} passed, ${failed} failed`);
      if (failed) process.exit(1);
    },
  };
}

/** Headless Chromium (Debian's, `CHROMIUM` to override) as every browser test runs it.
 * Chromium keeps a profile under $TMPDIR (`org.chromium.Chromium.scoped_dir.*`, about
 * 30 MB) that outlives Playwright's close, so it gets a directory of ours, removed
 * with the browser (or at exit, if the test dies first). */
export async function launchChromium() {
  const { chromium } = await import("playwright-core");
  const tmp = mkdtempSync(join(tmpdir(), "toolgate-chromium-"));
  const clean = () => rmSync(tmp, { recursive: true, force: true });
  process.on("exit", clean);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    env: { ...process.env, TMPDIR: tmp },
  });
  const close = browser.close.bind(browser);
  browser.close = async (...args) => {
    try {
      return await close(...args);
    } finally {
      clean();
    }
  };
  return browser;
}
