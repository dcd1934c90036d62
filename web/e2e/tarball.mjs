// The npm package as a user gets it, built once per test run: `./scripts/package` packs
// target/npm/toolgate-<version>.tgz on first import (ES modules are evaluated once, so
// package.test.mjs and element.test.mjs share one build). `run` is the bounded command
// runner both use; `installTarball` makes a throwaway consumer project with its own
// lockfile and THE TARBALL installed (never the source tree).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = join(ROOT, "web", "node_modules", ".bin");

const out = execFileSync(join(ROOT, "scripts", "package"), { cwd: ROOT, encoding: "utf8" }).trim().split("\n").pop();
/** The packed tarball. */
export const TGZ = out.startsWith("/") ? out : join(ROOT, out);
/** The unpacked package the tarball was packed from (for size checks and publint). */
export const PKG_DIR = join(dirname(TGZ), "toolgate");

import { run } from "./cmd.mjs";
export { run };

/** A consumer project in `dir` (`package.json`, `type: module`) with the tarball
 * installed: `{ ok, out }`, ok only when npm wrote its lockfile. */
export function installTarball(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  const r = run("npm", ["install", TGZ, "--no-audit", "--no-fund", "--loglevel=error"], dir);
  return { ok: r.ok && existsSync(join(dir, "package-lock.json")), out: r.out };
}

/** Copies a consumer project of web/consumers/ (or the project at `from`; without
 * node_modules, dist or a Tauri app's src-tauri) to `dir`, `npm ci`s it from its
 * lockfile, adds the tarball and runs `npm run build`. */
export function buildConsumer(name, dir, from = join(ROOT, "web", "consumers", name)) {
  cpSync(from, dir, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|dist|src-tauri)([/\\]|$)/.test(src),
  });
  const ci = run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], dir);
  const add = ci.ok ? run("npm", ["install", "--no-save", TGZ, "--no-audit", "--no-fund", "--loglevel=error"], dir) : { ok: false, out: "" };
  const build = add.ok ? run("npm", ["run", "build"], dir) : { ok: false, out: "" };
  return { ok: ci.ok && add.ok && build.ok, out: ci.out + add.out + build.out };
}
