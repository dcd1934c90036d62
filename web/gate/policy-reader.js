// The policy reader: `Policy.fromToml` reads policy files with a WebAssembly module of
// its own (toolgate_policy_bg.wasm, toolgate-core's TOML reader), so the Gate's module
// carries no TOML reader and a page that gives no policy file never loads one. The
// entries (node.mjs, node.cjs, web.js) define `Policy.fromToml` over it: Node compiles the
// reader on the first call; a browser loads it with `await loadPolicyReader()`.
//
// The reader has four exports and no imports: input(len) is the address of a buffer
// for the text's UTF-8 bytes (null for a text over its size limit, whose error is then
// already the answer), read() reads them (0: the answer is the policy's spec;
// 1: the error, `LINE:MESSAGE`), output() and output_len() locate the answer, which
// the Gate's `Policy.fromPolicyReader` turns into the policy or the `policy` error
// `fromToml` throws. Each file is read by a fresh instance of the compiled module, so
// nothing carries over from one read to the next, and a trap (a bug) leaves nothing
// behind.

let compiled = null;

export function hasPolicyReader() {
  return compiled !== null;
}

export function usePolicyReader(module) {
  if (!(module instanceof WebAssembly.Module)) {
    throw new TypeError("the policy reader must be a WebAssembly.Module");
  }
  compiled = compiled ?? module;
}

function codeError(code, message) {
  const e = new Error(message);
  e.code = code;
  return e;
}

// The length of `text` in UTF-8 as TextEncoder writes it (a lone surrogate is U+FFFD),
// counted without encoding it: a text over the reader's limit is never copied.
function utf8Length(text) {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function read(text) {
  try {
    const x = new WebAssembly.Instance(compiled, {}).exports;
    const len = utf8Length(text);
    // input() is null for a text over the limit, the error already answered.
    const at = x.input(len);
    let ok = false;
    if (at !== 0) {
      const { read: units, written } = new TextEncoder().encodeInto(text, new Uint8Array(x.memory.buffer, at, len));
      // Never a part of the file read as the whole of it.
      if (units !== text.length || written !== len) throw new Error("the policy file's text was not copied whole");
      ok = x.read() === 0;
    }
    const answer = new TextDecoder().decode(new Uint8Array(x.memory.buffer, x.output(), x.output_len()));
    return [ok, answer];
  } catch (e) {
    // A trap or an instance that cannot be made (memory): no policy, in toolgate's terms.
    throw codeError("internal_error", `toolgate: internal error in the policy reader, no policy was read: ${e?.message ?? e}`);
  }
}

// Defines Policy.fromToml; `loadSync` compiles the reader where that may be done
// synchronously (Node), or is null (browsers: loadPolicyReader first).
export function defineFromToml(Policy, loadSync) {
  Policy.fromToml = function fromToml(text) {
    if (typeof text !== "string") {
      throw codeError("bad_input", "bad input: Policy.fromToml(text): text must be a string");
    }
    if (compiled === null) {
      if (loadSync === null) {
        throw codeError(
          "no_policy_reader",
          "Policy.fromToml needs the policy reader: `await loadPolicyReader()` once first (after `await init()`)",
        );
      }
      usePolicyReader(loadSync());
    }
    const [ok, answer] = read(text);
    return Policy.fromPolicyReader(ok, answer);
  };
}

// The reader compiled from what `input` is (as init's module_or_path): a compiled
// module, bytes, a Response, or where to fetch it (a URL, string or Request).
export async function compilePolicyReader(input) {
  let source = await input;
  if (source instanceof WebAssembly.Module) return source;
  if (typeof source === "string" || source instanceof URL || (typeof Request === "function" && source instanceof Request)) {
    source = await fetch(source);
  }
  if (typeof Response === "function" && source instanceof Response) {
    if (!source.ok) {
      throw codeError("no_policy_reader", `the policy reader could not be loaded: HTTP ${source.status} for ${source.url}`);
    }
    source = await source.arrayBuffer();
  }
  return WebAssembly.compile(source);
}
