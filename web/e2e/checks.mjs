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

/** Headless Chromium (Debian's, `CHROMIUM` to override) as every browser test runs it. */
export async function launchChromium() {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}
