#!/usr/bin/env node
// `npx toolgate …` / `toolgate …` from npm: runs the native CLI from the platform
// package npm installed beside this one (`optionalDependencies`, each platform package
// with `os` and `cpu` fields, so npm installs only the one that fits: the way esbuild
// and biome ship their binaries). Node only starts it: stdin, stdout, stderr, the exit
// code and a signal pass through. `toolgate install` writes the native binary's own
// path into the hosts' settings, so a hook never runs through Node.
// TOOLGATE_BINARY=/path/to/toolgate runs that binary instead.
"use strict";
const { spawnSync } = require("node:child_process");
const { existsSync, readFileSync } = require("node:fs");
const { dirname, join } = require("node:path");

// process.platform + process.arch -> the package that carries the binary. The Linux
// binaries are static (musl linked in), so one package serves glibc and musl systems.
const PACKAGES = {
  "linux x64": "@toolgate/cli-linux-x64",
  "linux arm64": "@toolgate/cli-linux-arm64",
  "darwin x64": "@toolgate/cli-darwin-x64",
  "darwin arm64": "@toolgate/cli-darwin-arm64",
  "win32 x64": "@toolgate/cli-win32-x64",
};

function fail(message) {
  process.stderr.write(`toolgate: ${message}\n`);
  process.exit(1);
}

function binary() {
  const override = process.env.TOOLGATE_BINARY;
  if (override) {
    if (!existsSync(override)) fail(`TOOLGATE_BINARY=${override} does not exist`);
    return override;
  }
  const platform = `${process.platform} ${process.arch}`;
  const pkg = PACKAGES[platform];
  if (!pkg) {
    fail(
      `no native binary is published for ${process.platform}-${process.arch} ` +
        `(there are: ${Object.keys(PACKAGES).map((k) => k.replace(" ", "-")).join(", ")}). ` +
        `Build it from source: cargo install toolgate-cli. ` +
        `The library (import "toolgate") is WebAssembly and works here.`,
    );
  }
  let manifest;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    fail(
      `the native binary's package ${pkg} is not installed. npm skips optional ` +
        `dependencies under --omit=optional (or --no-optional, or a lockfile made on ` +
        `another platform before npm 7): reinstall toolgate without it.`,
    );
  }
  const ours = require("../package.json").version;
  const theirs = JSON.parse(readFileSync(manifest, "utf8")).version;
  if (theirs !== ours) {
    fail(`${pkg} is version ${theirs} but toolgate is ${ours}: reinstall toolgate.`);
  }
  return join(dirname(manifest), process.platform === "win32" ? "toolgate.exe" : "toolgate");
}

const exe = binary();
const result = spawnSync(exe, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
if (result.error) fail(`could not run ${exe}: ${result.error.message}`);
// Killed by a signal: 128 + its number, as a shell reports it (never 0).
const signal = result.signal ? require("node:os").constants.signals[result.signal] : undefined;
process.exit(result.status ?? 128 + (signal ?? 0));
