// Shortens the names a wasm-bindgen module imports and exports, and rewrites its glue
// to match: binaryen's --minify-imports-and-exports-and-modules, the pass Emscripten
// runs on its release builds (binaryen src/passes/MinifyImportsAndExports.cpp). A
// wasm-bindgen import is named `__wbg_then_656f253a5dd7d8ea` in module
// `./toolgate_wasm_bg.js`; minified it is `a` in module `a`. On the Gate's module that
// is ~2.9 KB of the gzipped .wasm (issue 51), and the glue is shorter too.
//
//   node scripts/lib/wasm-minify-names.mjs IN.wasm OUT.wasm GLUE…
//
// GLUE: the JavaScript glue files wasm-bindgen wrote for IN (any of its targets: they
// all name the imports in one object literal and call exports as `wasm.NAME`) and its
// TypeScript declarations (`InitOutput` lists the exports). Every name is rewritten
// where the glue has it, and checked: a glue that does not name every import, or that
// calls an export the minified module does not have, fails here, before it ships.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const [input, output, ...glue] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: node scripts/lib/wasm-minify-names.mjs IN.wasm OUT.wasm GLUE…");
  process.exit(2);
}

function fail(message) {
  console.error(`wasm-minify-names: ${message}`);
  process.exit(1);
}

// The features rustc's wasm uses (scripts/lib/wasm.sh's wasm_optimize); the pass prints
// its mapping as JSON on stdout.
const mapping = JSON.parse(
  execFileSync(
    join(ROOT, "web/node_modules/.bin/wasm-opt"),
    [
      "--enable-bulk-memory",
      "--enable-nontrapping-float-to-int",
      "--enable-sign-ext",
      "--enable-mutable-globals",
      "--enable-reference-types",
      "--enable-multivalue",
      "--minify-imports-and-exports-and-modules",
      input,
      "-o",
      output,
    ],
    { encoding: "utf8", maxBuffer: 64 << 20 },
  ),
);

// What the modules say, checked against the mapping: every import and export renamed.
const before = new WebAssembly.Module(readFileSync(input));
const after = new WebAssembly.Module(readFileSync(output));
const importsAfter = WebAssembly.Module.imports(after);
const exportsAfter = new Set(WebAssembly.Module.exports(after).map((e) => e.name));
const imports = new Map(mapping.imports.map(([, name, short]) => [name, short]));
const exports = new Map(mapping.exports.map(([name, short]) => [name, short]));
const modules = new Map();
WebAssembly.Module.imports(before).forEach((imp, i) => {
  const short = imports.get(imp.name);
  const now = importsAfter[i];
  if (short === undefined || now === undefined || now.name !== short) fail(`import ${imp.module}.${imp.name} has no new name`);
  modules.set(imp.module, now.module);
});
for (const e of WebAssembly.Module.exports(before)) {
  if (!exportsAfter.has(exports.get(e.name))) fail(`export ${e.name} has no new name`);
}

const escape = (s) => s.replace(/[$.*+?^()[\]{}|\\]/g, "\\$&");
// `name` as a whole identifier (`$` is an identifier character in JavaScript).
const word = (name) => new RegExp(`(?<![\\w$])${escape(name)}(?![\\w$])`, "g");

for (const file of glue) {
  let text = readFileSync(file, "utf8");
  if (file.endsWith(".d.ts")) {
    // The exports in `InitOutput` (the web target's `init()` resolves to it).
    text = text.replace(/export interface InitOutput \{[\s\S]*?\n\}/, (block) =>
      block.replace(/(readonly )([\w$]+)(:)/g, (all, pre, name, post) =>
        exports.has(name) ? pre + exports.get(name) + post : all,
      ),
    );
  } else {
    // The import object: `"./NAME_bg.js": import0`, and each import its key in it.
    for (const [from, to] of modules) {
      const key = new RegExp(`"${escape(from)}"(?=\\s*:)`, "g");
      if (!key.test(text)) fail(`${file}: no import object for module ${from}`);
      text = text.replace(key, JSON.stringify(to));
    }
    for (const [name, short] of imports) {
      const re = word(name);
      if (!re.test(text)) fail(`${file}: import ${name} is not in the glue`);
      text = text.replace(re, short);
    }
    // Calls into the module: `wasm.NAME`.
    text = text.replace(/(?<![\w$.])wasm\.([\w$]+)/g, (all, name) => {
      const short = exports.get(name);
      if (short === undefined) fail(`${file}: calls wasm.${name}, which the module does not export`);
      return `wasm.${short}`;
    });
  }
  writeFileSync(file, text);
}
