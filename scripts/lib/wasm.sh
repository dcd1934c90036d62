# The one cdylib → wasm-bindgen → wasm-opt pipeline, sourced by build-web, wasm-size and
# ts-check (run from the repository root, with web/node_modules/.bin and ~/.cargo/bin on
# PATH). Each step is a function; a script chooses the crate, profile and flags.

WASM_TARGET_DIR="${CARGO_TARGET_DIR:-target}"

# wasm_build CRATE PROFILE [CARGO_FLAG…]: builds CRATE for wasm32-unknown-unknown (with
# the flags, e.g. `--features demo`) and prints the path of its .wasm. Profile `wasm-release` (Cargo.toml: opt-level z, fat LTO, one codegen
# unit, panic=abort) builds the cdylib alone with `cargo rustc --crate-type cdylib`:
# the crates are cdylib+rlib, and Cargo runs no LTO for a build that also emits an rlib
# (the bundle was ~8-12 % bigger gzipped). Profile `debug` is a plain build.
wasm_build() {
  local crate=$1 profile=$2
  shift 2
  if [ "$profile" = debug ]; then
    cargo build -q --target wasm32-unknown-unknown -p "$crate" "$@" >&2 || return 1
  else
    # The paths panic messages carry name the registry checkout of the machine that
    # built the bundle (`/root/.cargo/registry/src/index.crates.io-…/serde_json-…`):
    # shipped as `/cargo/serde_json-…` instead, shorter and saying nothing of the
    # build machine (what cargo's unstable `trim-paths` does).
    local flags="${RUSTFLAGS:-}" dir
    for dir in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
      [ -d "$dir" ] && flags="$flags --remap-path-prefix=${dir%/}=/cargo"
    done
    RUSTFLAGS="${flags# }" cargo rustc -q --profile "$profile" --target wasm32-unknown-unknown \
      -p "$crate" "$@" --crate-type cdylib >&2 || return 1
  fi
  printf '%s/wasm32-unknown-unknown/%s/%s.wasm\n' "$WASM_TARGET_DIR" "$profile" "${crate//-/_}"
}

# wasm_bindgen_web WASM OUT_DIR [FLAG…]: the JS glue and the `_bg.wasm` for ES modules.
wasm_bindgen_web() {
  local wasm=$1 out=$2
  shift 2
  wasm-bindgen --target web "$@" --out-dir "$out" "$wasm"
}

# wasm_optimize_shipped IN OUT: wasm_optimize with what is true of every module
# wasm-bindgen emits (its memory is its own and zeroed, Rust leaves the first 1 KiB
# unused; reference types and multi-value are what it targets): ~2.5 KB gz smaller;
# --converge (the passes again until nothing shrinks: ~0.4 KB gz, twice the time),
# --strip-producers and --strip-target-features (the toolchain's names and the features it
# was built with, for tools only: ~0.1 KB each) and
# --one-caller-inline-max-function-size=20: a function with one caller is inlined into
# it only when small (binaryen's default inlines every such function, whatever its
# size): a few more bytes raw, fewer gzipped, as measured (Gate 255,940 -> 254,415 B,
# the element's .wasm 385,135 -> 381,781 B; 10 to 20 measured best; classify's speed
# from Node unchanged).
# Every shipped .wasm goes through it (build-web, package) and wasm-size measures it.
wasm_optimize_shipped() {
  wasm_optimize "$1" "$2" --low-memory-unused --zero-filled-memory --enable-reference-types \
    --enable-multivalue --converge --strip-producers --strip-target-features \
    --one-caller-inline-max-function-size=20
}

# wasm_minify_names IN OUT GLUE…: the module's import, export and import-module names
# shortened (binaryen's --minify-imports-and-exports-and-modules, as Emscripten's
# release builds do) and its wasm-bindgen glue (JS, and the .d.ts's InitOutput)
# rewritten to match, checked (scripts/lib/wasm-minify-names.mjs). Before
# wasm_optimize_shipped: minified first, the Gate's module is ~2.9 KB gz smaller
# (232,635 -> 229,771 B; after the optimization instead, ~2.1 KB).
wasm_minify_names() {
  if [ ! -x web/node_modules/.bin/wasm-opt ]; then
    echo "web/node_modules/.bin/wasm-opt missing: run ./scripts/setup" >&2
    return 1
  fi
  node scripts/lib/wasm-minify-names.mjs "$@"
}

# wasm_optimize IN OUT [FLAG…]: wasm-opt -Oz from binaryen in web/node_modules (never
# Debian's binaryen 108, which emits broken wasm), with the features rustc's wasm uses.
wasm_optimize() {
  local in=$1 out=$2
  shift 2
  local opt=web/node_modules/.bin/wasm-opt
  if [ ! -x "$opt" ]; then
    echo "$opt missing: run ./scripts/setup" >&2
    return 1
  fi
  "$opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals "$@" "$in" -o "$out"
}
