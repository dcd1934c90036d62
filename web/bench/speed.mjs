// The speed benchmark of the npm package: the wasm Policy's classify from JavaScript
// against a plain JavaScript regex gate (./regex-gate.mjs) on the same calls in the same
// V8, and, given the native CLI (`--native BIN`), the same calls classified natively
// (`toolgate bench`). The calls: the public corpus (where the shared folder is), the own
// and agents corpora and the agents' real traffic. scripts/bench-js runs it.
//
//   node web/bench/speed.mjs [--pkg DIR] [--seconds S] [--native BIN]
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { regexGate } from "./regex-gate.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const opt = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const PKG = resolve(opt("--pkg", join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "npm", "toolgate")));
const SECONDS = Number(opt("--seconds", "2"));
const NATIVE = opt("--native", null);
const WS = "/home/dev/app";
const HOME = "/home/dev";

const shared = join(ROOT, "..", "shared", "corpus");
const files = [join(shared, "public.jsonl"), join(ROOT, "tests/corpus/own.jsonl"), join(ROOT, "tests/corpus/agents.jsonl")];
if (existsSync(join(shared, "traffic"))) {
  for (const f of readdirSync(join(shared, "traffic")).filter((f) => f.endsWith(".jsonl")).sort()) files.push(join(shared, "traffic", f));
}
const calls = [];
for (const f of files.filter(existsSync)) {
  for (const line of readFileSync(f, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const v = JSON.parse(line);
    if (typeof v.tool === "string") calls.push({ tool: v.tool, args: v.args ?? {} });
  }
}

/** Calls per second of `f` over `calls`, looping for SECONDS after a warm-up pass. */
function rate(f) {
  for (const c of calls) f(c);
  let n = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(SECONDS * 1e9));
  let now = start;
  while (now < end) {
    for (const c of calls) f(c);
    n += calls.length;
    now = process.hrtime.bigint();
  }
  return n / (Number(now - start) / 1e9);
}

const { Policy } = await import(pathToFileURL(join(PKG, "node.mjs")).href);
const policy = Policy.defaults({ workspace: WS, home: HOME });
const rows = [];
const wasm = rate((c) => policy.classify(c));
rows.push(["wasm Policy.classify (JS object in, verdict object out)", wasm]);
if (typeof policy.classifyMany === "function") {
  const batch = 256;
  let n = 0;
  for (let i = 0; i < calls.length; i += batch) policy.classifyMany(calls.slice(i, i + batch));
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(SECONDS * 1e9));
  let now = start;
  while (now < end) {
    for (let i = 0; i < calls.length; i += batch) policy.classifyMany(calls.slice(i, i + batch));
    n += calls.length;
    now = process.hrtime.bigint();
  }
  rows.push([`wasm Policy.classifyMany (batches of ${batch})`, n / (Number(now - start) / 1e9)]);
}
const regex = rate((c) => regexGate(c, WS));
rows.push(["JavaScript regex gate (web/bench/regex-gate.mjs)", regex]);
if (NATIVE) {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
  try {
    const file = join(dir, "calls.jsonl");
    writeFileSync(file, calls.map((c) => JSON.stringify(c)).join("\n") + "\n");
    const out = execFileSync(NATIVE, ["bench", file, "--seconds", String(SECONDS), "--workspace", WS, "--home", HOME], { encoding: "utf8", timeout: (SECONDS + 120) * 1000, killSignal: "SIGKILL" });
    const m = /classifications_per_sec=(\d+)/.exec(out);
    if (m) rows.push(["native core (toolgate bench, release build)", Number(m[1])]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`speed: ${calls.length} calls (${files.filter(existsSync).map((f) => f.split("/").pop()).join(", ")}), ${SECONDS} s each, Node ${process.version}`);
for (const [name, r] of rows) {
  console.log(`  ${name.padEnd(60)} ${(r / 1000).toFixed(1).padStart(8)} k calls/s ${(1e6 / r).toFixed(2).padStart(8)} µs/call`);
}
const before = JSON.parse(readFileSync(join(ROOT, "web", "bench", "before.json"), "utf8"));
const nativeRate = NATIVE ? rows[rows.length - 1][1] : null;
console.log(`  wasm / regex gate: ${(wasm / regex).toFixed(2)}× (before, at ${before.commit}: ${(before.rates.wasm / before.rates.regex).toFixed(2)}×)`);
if (nativeRate) {
  console.log(`  native / wasm: ${(nativeRate / wasm).toFixed(1)}× (before: ${(before.rates.native / before.rates.wasm).toFixed(1)}×); native / regex gate: ${(nativeRate / regex).toFixed(2)}× (before: ${(before.rates.native / before.rates.regex).toFixed(2)}×)`);
}
