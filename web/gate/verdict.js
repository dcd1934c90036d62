// Policy.classify and Policy.classifyMany as the package defines them: the call goes in
// as the text JSON.stringify makes of it, and the verdict comes back as *fields*
// (toolgate-core's `Verdict::write_fields`), read here into the object JSON.parse makes
// of the verdict's JSON: the same properties in the same order. Writing the verdict as
// JSON text and JSON.parse were about a quarter of a short command's call; a field is
// one slice, with no escapes to write or undo.
//
// A field is its length in UTF-16 code units, `:`, and its text, so no text can end a
// field early. The fields of a verdict: tier, rule, reason, span ("" or "START END"),
// the number of parts, then each part's tier, text, rule, reason and span.
// classifyMany's answer is the number of verdicts, then each verdict's fields.
//
// A call JSON.stringify cannot write (a cycle, a BigInt, `undefined`) is classified as
// `null` is, a malformed call (`ask`), as the module did when it called JSON.stringify.

function codeError(code, message) {
  const e = new Error(message);
  e.code = code;
  return e;
}

function json(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

// The verdicts in a text of fields: `count` verdicts, or the one verdict for null.
function readFields(s, count) {
  let i = 0;
  const field = () => {
    const colon = s.indexOf(":", i);
    if (colon < 0) throw codeError("internal_error", "toolgate internal error (a bug): a verdict's fields end early");
    i = colon + 1 + Number(s.slice(i, colon));
    return s.slice(colon + 1, i);
  };
  const number = () => {
    const n = Number(field());
    if (!Number.isSafeInteger(n) || n < 0) throw codeError("internal_error", "toolgate internal error (a bug): a verdict's count is not a number");
    return n;
  };
  const span = (v) => {
    const f = field();
    if (f !== "") {
      const gap = f.indexOf(" ");
      v.span = [Number(f.slice(0, gap)), Number(f.slice(gap + 1))];
    }
  };
  const verdict = () => {
    const v = { tier: field(), rule: field(), reason: field() };
    span(v);
    const n = number();
    if (n > 0) {
      const parts = new Array(n);
      for (let k = 0; k < n; k++) {
        const p = { tier: field(), text: field(), rule: field(), reason: field() };
        span(p);
        parts[k] = p;
      }
      v.parts = parts;
    }
    return v;
  };
  let out;
  if (count === null) {
    out = verdict();
  } else {
    const n = number();
    out = new Array(n);
    for (let k = 0; k < n; k++) out[k] = verdict();
  }
  // Fail closed: fields that do not end where the text ends are no verdict.
  if (i !== s.length) throw codeError("internal_error", "toolgate internal error (a bug): a verdict's fields do not end with the text");
  return out;
}

// Defines Policy.prototype.classify and classifyMany (index.d.ts declares them).
export function defineClassify(Policy) {
  Policy.prototype.classify = function classify(call) {
    // A call JSON cannot hold (a cycle, a BigInt, `undefined`) is a malformed call: `ask`.
    return readFields(this.classifyFields(json(call) ?? "null"), null);
  };
  Policy.prototype.classifyMany = function classifyMany(calls) {
    const text = json(calls);
    if (text === undefined && calls !== undefined) {
      throw codeError("bad_input", "bad input: classifyMany(calls): not a JSON value (a cycle or a BigInt)");
    }
    // What is not an array (`undefined` reads as null) the module refuses: `bad_input`.
    return readFields(this.classifyManyFields(text ?? "null"), 0);
  };
}
