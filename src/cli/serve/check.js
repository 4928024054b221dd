// The certificate checker of the review page (docs/CERTIFICATES.md): a second implementation,
// in plain JavaScript, of the checks of clir-check/src/check.rs, sharing no code with clir or
// clir-check. `clir serve` puts this file into the page's one script (src/cli/serve/mod.rs);
// tests/js_checker_agrees.rs runs it under node over the certificates and mutations the Rust
// checker is tested on and requires the same verdicts. It reads the package file's bytes, a
// case line and its certified ruling line, and says `certified`, `not_ruled` or `rejected`
// with the literal, the step and the reason. Hashes through WebCrypto (`crypto.subtle`), which
// browsers and node (>= 19, `globalThis.crypto`) both have.
//
// What it certifies is what clir-check certifies (docs/CERTIFICATES.md "What a certified line
// guarantees"): the package file is its own canonical JSON and every contentHash recomputes
// (readPackage refuses it otherwise, naming the node; the package read says its name, version
// and seal); the case line is one `clir rule` rules, under the grants given (a line it refuses is
// rejected at step `case_line` with clir's own message); the ruling line carries only `case`,
// `concluded`, `definite`, `contradictions`, `warnings` and `certificate`, each proved; the
// certificate only its seven keys, every node listed once and named by an entry.
//
// JSON is read by a reader of its own, not JSON.parse, as serde_json reads it for clir-check: a
// key written twice at any depth is an error (JSON.parse keeps the last one read, so a forged
// key could ride in front of the certified one); a number keeps its source text, so an Integer
// is read exactly, as a BigInt, a number written with a fraction or an exponent (`80.0`, `8e1`)
// is no Integer (FORMAT.md, DECISIONS 20), and a case id (`9007199254740993`, `1e400`) is
// compared as written; errors are worded and placed (byte columns) as serde_json words and
// places them, so that both checkers give the same reason. Integer arithmetic is 64-bit two's
// complement with wraparound (EXTENSIONS.md §3), on BigInts. Its literals, reasons and errors are
// text as clir-check writes it, names as the package and the lines hold them: the page shows
// every text through its `shown()`, which writes control and invisible format characters (bidi
// overrides, zero-width characters) as `\u{..}` escapes, once. Anything it cannot vouch for is
// a rejection, never a wrong acceptance.
"use strict";
const ClirCheck = (() => {
  const FORMAT = "clir.certificate/1";
  const MATCH_BUDGET = 100000;
  const MAX_WHY_NOT = 1024, MAX_FACTS = 10000000;
  const INTEGER = "urn:law:std#Integer";
  const STRING = "urn:law:std#String";
  const I64_MIN = -(2n ** 63n), I64_MAX = 2n ** 63n - 1n, U64_MAX = 2n ** 64n - 1n;
  // Layers: +D, +S beyond +D, +d beyond +D (clir-check's `Tier`).
  const D = 0, S = 1, C = 2;
  const TIER = ["+D", "+S", "+d"];
  // Sets a body literal is looked up in (clir-check's `Set`).
  const DEFINITE = "D", SUPPORTED = "S", CONCLUDED = "d";
  // The keys of a case line, of a ruling line a certificate proves, of a certificate.
  const CASE_KEYS = ["case", "facts", "why_not", "as_of"];
  const CASE_OBJECT = "a case object {\"case\":..., \"facts\":{...}}";
  const RULING_KEYS = ["case", "concluded", "definite", "contradictions", "warnings", "certificate"];
  const CERTIFICATE_KEYS = ["format", "seal", "case", "nodes", "D", "S", "d"];

  class Failure {
    constructor(literal, step, reason) { this.literal = literal; this.step = step; this.reason = reason; }
  }
  const fail = (literal, step, reason) => { throw new Failure(literal, step, reason); };
  const lineFailure = (reason) => new Failure(null, "line", reason);

  async function sha256(bytes) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    return "sha256:" + Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  // ---- Strict JSON --------------------------------------------------------------------------

  // A JSON number: its source text, and as a BigInt when it is written as an integer (no
  // fraction, no exponent; `-0` is 0).
  class Num {
    constructor(text) { this.text = text; this.int = /[.eE]/.test(text) ? null : BigInt(text); }
    toJSON() { return Number(this.text); }
  }
  const isNum = (v) => v instanceof Num;
  // The keys of a parsed object, in the order written.
  const KEYS = Symbol("keys");
  const keysOf = (o) => o[KEYS] || Object.keys(o);
  const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v) && !isNum(v);
  const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  // The Integer `v` is, signed 64 bits, or null.
  const int64 = (v) => isNum(v) && v.int !== null && v.int >= I64_MIN && v.int <= I64_MAX ? v.int : null;
  // The whole number below 2^64 `v` is, or null (`-0` is read as a double, as serde_json reads
  // it: no whole number).
  const uint64 = (v) => isNum(v) && v.int !== null && v.text !== "-0" && v.int >= 0n && v.int <= U64_MAX ? v.int : null;

  // A JSON error, worded as serde_json words it: `what`, and where (`line`, `column` from 1);
  // for a key written twice, `dup` (the key) and `path` (the keys of the objects it is in).
  // `index`: where, as an index into the text.
  class JsonError extends Error {
    constructor(what, line, column, dup, path, index) {
      super(what + " at line " + line + " column " + column);
      Object.assign(this, { what, line, column, dup, path, index });
    }
  }
  // serde_json's column of the position after `to` characters of `src`'s last line: UTF-8
  // bytes since the line began.
  const utf8 = new TextEncoder();
  const byteColumn = (src, to) => utf8.encode(src.slice(src.lastIndexOf("\n", to - 1) + 1, to)).length;
  const MAX_DEPTH = 128, PEEK = -1;
  // Parses `src` as one JSON value (RFC 8259): objects with a null prototype, their keys each
  // once; numbers as `Num` (a number too large for a double is out of range, as serde_json
  // says); strings without lone surrogates. Throws a JsonError. With `line`, `src` is a case or
  // ruling line: an object, whose `case` value is kept as written too (`caseText`: less the
  // white space between its tokens), any number (`1e400`) read as its text; the result is
  // {value, caseText}.
  //
  // `hooks` (a case line, read as clir reads it, clir-check's case.rs) are told of each value
  // as it begins (`start(path, kinds, from)`) and ends (`end(path, kinds, value, from, to)`), of
  // each key (`key(path, kinds, k, keyEnd)`), may say that an object's repeated key is found
  // only once its value is read (`dupLater(path, kinds)`, then `dup(path, k, to)`) or is no
  // error (`lenient(path, kinds)`), and may throw; `path` holds the keys and indices down to the
  // value, `kinds` whether each is in an object ("obj") or a list ("arr").
  function parseJson(src, line, lenient, expecting, hooks) {
    let i = 0, caseTwice = false;
    // In a line, where each top-level value is ([from, to, end of its key]), and each item of a
    // top-level list ([from, to]).
    const spans = Object.create(null), elems = Object.create(null);
    const path = [], kinds = [];
    // Line and column of the position after `to` characters, as serde_json gives them.
    const place = (to) => [src.slice(0, to).split("\n").length, byteColumn(src, to)];
    // An error at the position `at` (by default where the reading is), or at the character
    // being looked at (`PEEK`: serde_json's peek position, one byte past where the reading is).
    const err = (what, at, dup) => {
      const to = at === undefined || at === PEEK ? i : at;
      const [l, c] = place(to);
      const peek = at === PEEK && i < src.length;
      throw new JsonError(what, l, peek ? c + 1 : c, dup, path.slice(), peek ? i + 1 : to);
    };
    const ws = () => { while (i < src.length && (src[i] === " " || src[i] === "\t" || src[i] === "\n" || src[i] === "\r")) i++; };
    const digit = () => i < src.length && src[i] >= "0" && src[i] <= "9";
    // A number's text, checked as serde_json reads one (`lax`: any size, as a raw value;
    // `skimmed`: as it skims a value it ignores).
    function number(lax, skimmed) {
      const start = i;
      if (src[i] === "-") i++;
      const c = i < src.length ? src[i++] : "";
      if (c === "0") {
        if (digit()) err("invalid number", PEEK);
      } else if (c >= "1" && c <= "9") {
        while (digit()) i++;
      } else err("invalid number");
      const exponent = () => {
        i++;
        if (src[i] === "+" || src[i] === "-") i++;
        const d = i < src.length ? src[i++] : "";
        if (!(d >= "0" && d <= "9")) err("invalid number");
        while (digit()) i++;
      };
      if (src[i] === ".") {
        i++;
        if (!digit()) err(i >= src.length && !skimmed ? "EOF while parsing a value" : "invalid number", PEEK);
        while (digit()) i++;
      }
      if (src[i] === "e" || src[i] === "E") exponent();
      const text = src.slice(start, i);
      if (!lax && !Number.isFinite(Number(text))) err("number out of range");
      return text;
    }
    // A string at `i` (its opening quote), read as serde_json reads one: with `validate`, as a
    // string (its \\u escapes paired surrogates); without, as it skims a value it ignores.
    function string(validate = true) {
      i++;
      let out = "", from = i;
      const next = () => {
        if (i >= src.length) err("EOF while parsing a string");
        return src[i++];
      };
      const hex = () => {
        let h = "";
        for (let k = 0; k < 4; k++) h += next();
        if (!/^[0-9a-fA-F]{4}$/.test(h)) err("invalid escape");
        return parseInt(h, 16);
      };
      // The character after a leading surrogate's escape: `\\`, then `u`, or the escape ends.
      const expect = (c) => {
        if (i >= src.length) err("EOF while parsing a string");
        if (src[i] !== c) err("unexpected end of hex escape", PEEK);
        i++;
      };
      for (;;) {
        if (i >= src.length) err("EOF while parsing a string");
        const c = src.charCodeAt(i);
        if (c === 0x22) { out += src.slice(from, i); i++; return out; }
        if (c < 0x20) err("control character (\\u0000-\\u001F) found while parsing a string", validate ? PEEK : i);
        if (c !== 0x5c) { i++; continue; }
        out += src.slice(from, i);
        i++;
        const at = i, e = next();
        const simple = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }[e];
        if (simple !== undefined) out += simple;
        else if (e !== "u") { i = at; err("invalid escape", PEEK); }
        else {
          const u = hex();
          if (!validate || u < 0xd800 || u > 0xdfff) out += String.fromCharCode(u);
          else {
            if (u >= 0xdc00) err("lone leading surrogate in hex escape");
            expect("\\");
            expect("u");
            const l = hex();
            if (l < 0xdc00 || l > 0xdfff) err("lone leading surrogate in hex escape");
            out += String.fromCharCode(u, l);
          }
        }
        from = i;
      }
    }
    // A line's `case` value, read as serde_json reads a raw value: its extent first, whatever
    // its depth or numbers (`1e400`); then, when it is a list or an object, read strictly, an
    // error of that reading placed at its end.
    function rawValue() {
      ws();
      const start = i, end = skim();
      const raw = src.slice(start, end);
      if (raw[0] !== "{" && raw[0] !== "[") {
        i = start;
        const v = raw[0] === '"' ? string(false) : value(0, true);
        i = end;
        return v;
      }
      try { return parseJson(raw, false, lenient); } catch (e) {
        if (!(e instanceof JsonError)) throw e;
        i = end;
        ws();
        const to = src[i] === "}" ? i + 1 : i, [line, column] = place(to);
        throw new JsonError(e.what, line, column, e.dup, path.concat(e.path), to);
      } finally { i = end; }
    }
    // The end of the value at `i`, found as serde_json's ignore_value finds it: no depth
    // limit, numbers by their syntax only, strings without decoding their escapes.
    function skim() {
      const outer = [];
      let enclosing = null;
      for (;;) {
        ws();
        if (i >= src.length) err("EOF while parsing a value");
        const c = src[i];
        let frame = null;
        if (c === "n" || c === "t" || c === "f") {
          for (const expected of { n: "null", t: "true", f: "false" }[c]) {
            if (i >= src.length) err("EOF while parsing a value");
            if (src[i] !== expected) err("expected ident", PEEK);
            i++;
          }
        } else if (c === "-" || (c >= "0" && c <= "9")) number(true, true);
        else if (c === '"') string(false);
        else if (c === "[" || c === "{") {
          if (enclosing !== null) outer.push(enclosing);
          enclosing = null;
          i++;
          frame = c;
        } else err("expected value", PEEK);
        let comma = false;
        if (frame === null) {
          if (enclosing !== null) [frame, enclosing] = [enclosing, null];
          else if (outer.length) frame = outer.pop();
          else return i;
          comma = true;
        }
        for (;;) {
          ws();
          if (i >= src.length) err(frame === "[" ? "EOF while parsing a list" : "EOF while parsing an object", PEEK);
          const d = src[i];
          if (d === "," && comma) { i++; break; }
          if ((d === "]" && frame === "[") || (d === "}" && frame === "{")) {
            i++;
            if (!outer.length) return i;
            frame = outer.pop();
            comma = true;
            continue;
          }
          if (comma) err(frame === "[" ? "expected `,` or `]`" : "expected `,` or `}`", PEEK);
          break;
        }
        if (frame === "{") {
          ws();
          if (i >= src.length) err("EOF while parsing an object", PEEK);
          if (src[i] !== '"') err("key must be a string", PEEK);
          string(false);
          ws();
          if (i >= src.length) err("EOF while parsing an object", PEEK);
          if (src[i] !== ":") err("expected `:`", PEEK);
          i++;
        }
        enclosing = frame;
      }
    }
    // A line's object with every value skimmed, as clir reads a line only for its `case`:
    // {caseText, caseTwice}.
    function skimLine() {
      ws();
      if (src[i] === "[") {
        // As a struct of one field, `case` is read from a list too: `[1]` has the case 1.
        i++;
        ws();
        if (src[i] === "]") err("invalid length 0, expected a case", PEEK);
        const from = i, end = skim(), text = compact(src.slice(from, end));
        ws();
        if (src[i] !== "]") err("trailing characters", PEEK);
        i++;
        ws();
        if (i < src.length) err("trailing characters", PEEK);
        return { caseText: text, caseTwice: false };
      }
      if (src[i] !== "{") err("expected an object", PEEK);
      i++;
      ws();
      let text, twice = false;
      if (src[i] === "}") i++;
      else {
        for (;;) {
          ws();
          if (i >= src.length || src[i] !== '"') err("key must be a string", PEEK);
          const k = string();
          ws();
          if (src[i] !== ":") err("expected `:`", PEEK);
          i++;
          ws();
          const from = i, end = skim();
          if (k === "case") {
            if (text !== undefined) twice = true;
            text = compact(src.slice(from, end));
          }
          ws();
          if (src[i] === ",") { i++; continue; }
          if (src[i] === "}") { i++; break; }
          err("expected `,` or `}`", PEEK);
        }
      }
      ws();
      if (i < src.length) err("trailing characters", PEEK);
      return { caseText: text, caseTwice: twice };
    }
    let caseText;
    function value(depth, lax) {
      ws();
      if (i >= src.length) err("EOF while parsing a value");
      if (!hooks) return bare(depth, lax);
      const from = i;
      hooks.start(path, kinds, from);
      const v = bare(depth, lax);
      hooks.end(path, kinds, v, from, i);
      return v;
    }
    function bare(depth, lax) {
      const c = src[i];
      if (c === "{" || c === "[") {
        if (depth >= MAX_DEPTH) err("recursion limit exceeded", PEEK);
        i++;
        ws();
        if (i >= src.length) err(c === "[" ? "EOF while parsing a list" : "EOF while parsing an object");
        if (c === "[") {
          const out = [];
          if (src[i] === "]") { i++; return out; }
          const items = line && depth === 1 && path.length === 1 ? (elems[path[0]] = []) : null;
          for (;;) {
            path.push(out.length);
            kinds.push("arr");
            ws();
            const from = i;
            out.push(value(depth + 1, lax));
            if (items) items.push([from, i]);
            path.pop();
            kinds.pop();
            ws();
            if (i >= src.length) err("EOF while parsing a list");
            if (src[i] === ",") {
              i++;
              ws();
              if (src[i] === "]") err("trailing comma", PEEK);
              continue;
            }
            if (src[i] === "]") { i++; return out; }
            err("expected `,` or `]`", PEEK);
          }
        }
        const out = Object.create(null), keys = [];
        Object.defineProperty(out, KEYS, { value: keys });
        const free = lenient || (hooks && hooks.lenient(path, kinds)), later = !free && hooks && hooks.dupLater(path, kinds);
        if (src[i] === "}") {
          i++;
          if (hooks && hooks.close) hooks.close(path, out, i);
          return out;
        }
        for (let first = true; ; first = false) {
          ws();
          if (i >= src.length) err(first ? "EOF while parsing an object" : "EOF while parsing a value");
          if (src[i] !== '"') err(src[i] === "}" ? "trailing comma" : "key must be a string", PEEK);
          const k = string(), keyEnd = i;
          if (hooks) hooks.key(path, kinds, k, keyEnd);
          const twice = has(out, k);
          if (twice) {
            if (!free && !later) err("duplicate key `" + k + "`", i, k);
            if (line && depth === 0 && k === "case") caseTwice = true;
          } else keys.push(k);
          ws();
          if (i >= src.length) err("EOF while parsing an object");
          if (src[i] !== ":") err("expected `:`", PEEK);
          i++;
          const from = i, isCase = line && depth === 0 && k === "case";
          path.push(k);
          kinds.push("obj");
          out[k] = isCase ? rawValue() : value(depth + 1, lax);
          path.pop();
          kinds.pop();
          if (twice && later) hooks.dup(path, k, i);
          if (isCase) caseText = compact(src.slice(from, i));
          if (line && depth === 0) spans[k] = [from, i, keyEnd];
          ws();
          if (i >= src.length) err("EOF while parsing an object");
          if (src[i] === ",") { i++; continue; }
          if (src[i] === "}") {
            i++;
            if (hooks && hooks.close) hooks.close(path, out, i);
            return out;
          }
          err("expected `,` or `}`", PEEK);
        }
      }
      if (c === '"') return string();
      const word = { t: ["true", true], f: ["false", false], n: ["null", null] }[c];
      if (word) {
        for (const expected of word[0]) {
          if (i >= src.length) err("EOF while parsing a value");
          if (src[i] !== expected) err("expected ident", PEEK);
          i++;
        }
        return word[1];
      }
      if (c !== "-" && !(c >= "0" && c <= "9")) err("expected value", PEEK);
      return new Num(number(lax));
    }
    if (line && lenient === "skim") return skimLine();
    if (line) {
      ws();
      if (i < src.length && src[i] !== "{") {
        const what = (v) => "invalid type: " + unexpected(v) + ", expected " + (expecting || "a JSON object");
        if (src[i] === "[") err(what([]));
        err(what(value(0, false)));
      }
    }
    const v = value(0, false);
    ws();
    if (i < src.length) err("trailing characters", PEEK);
    return line ? { value: v, caseText, caseTwice, spans, elems } : v;
  }

  // A parsed value as serde's "invalid type" errors name it.
  function unexpected(v) {
    if (v === null) return "null";
    if (typeof v === "boolean") return "boolean `" + v + "`";
    if (typeof v === "string") return "string " + JSON.stringify(v);
    if (Array.isArray(v)) return "sequence";
    if (isNum(v)) {
      if (v.int !== null && v.int >= I64_MIN && v.int <= U64_MAX && v.text !== "-0") return "integer `" + v.int + "`";
      // serde_json writes the double as zmij does.
      return "floating point `" + floatText(Number(v.text)) + "`";
    }
    return "map";
  }

  // A number as serde_json writes it: an integer of 64 bits as it is, anything else as the
  // double it is read as, its shortest digits as zmij writes them (`80.0`, `0.001`, `1e+300`,
  // `1.8446744073709552e+19`).
  function numberText(v) {
    if (v.int !== null && v.int >= I64_MIN && v.int <= U64_MAX && v.text !== "-0") return v.int.toString();
    return floatText(Number(v.text));
  }
  function floatText(x) {
    if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
    const [mant, exp] = Math.abs(x).toExponential().split("e");
    const digits = mant.replace(".", ""), length = digits.length, e = Number(exp);
    let out;
    if (e >= -5 && e <= 15) {
      if (length - 1 <= e) out = digits + "0".repeat(e - length + 1) + ".0";
      else if (e >= 0) out = digits.slice(0, e + 1) + "." + digits.slice(e + 1);
      else out = "0." + "0".repeat(-e - 1) + digits;
    } else out = digits[0] + (length > 1 ? "." + digits.slice(1) : "") + "e" + (e >= 0 ? "+" : "-") + Math.abs(e);
    return (x < 0 ? "-" : "") + out;
  }

  // A parsed value as serde_json writes it (compact; objects' keys in the order read).
  function jsonText(v) {
    if (isNum(v)) return numberText(v);
    if (Array.isArray(v)) return "[" + v.map(jsonText).join(",") + "]";
    if (isObject(v)) return "{" + Object.keys(v).map((k) => canonicalString(k) + ":" + jsonText(v[k])).join(",") + "}";
    if (typeof v === "string") return canonicalString(v);
    return JSON.stringify(v);
  }

  // JSON text less the white space between its tokens (inside strings, every character stays).
  function compact(json) {
    let out = "", inString = false, escaped = false;
    for (const c of json) {
      if (inString) {
        if (escaped) escaped = false;
        else if (c === "\\") escaped = true;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === " " || c === "\t" || c === "\n" || c === "\r") continue;
      out += c;
    }
    return out;
  }

  // The canonical JSON of a parsed value (SEMANTICS §1, clir-codegen's canonical.rs): keys
  // sorted by UTF-16 code units (JavaScript's own string order), no white space, `"`, `\` and
  // control characters escaped, everything else raw; integers exactly. `skip` leaves out one
  // key of the top object. A number with a fraction or exponent has no canonical form here:
  // null.
  function canonical(v, skip) {
    if (isNum(v)) return v.int === null || v.int < I64_MIN || v.int > U64_MAX ? null : v.int.toString();
    if (Array.isArray(v)) {
      const items = v.map((x) => canonical(x));
      return items.includes(null) ? null : "[" + items.join(",") + "]";
    }
    if (isObject(v)) {
      const keys = Object.keys(v).filter((k) => k !== skip).sort();
      const items = keys.map((k) => [k, canonical(v[k])]);
      return items.some(([, x]) => x === null) ? null : "{" + items.map(([k, x]) => canonicalString(k) + ":" + x).join(",") + "}";
    }
    if (typeof v === "string") return canonicalString(v);
    return JSON.stringify(v);
  }
  function canonicalString(s) {
    // serde_json's escapes: \" \\ \b \f \n \r \t, other controls as \u00XX; nothing else.
    return '"' + s.replace(/["\\\u0000-\u001f]/g, (c) => ({ '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" })[c]
      || "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")) + '"';
  }

  // ---- The package (clir-check/src/package.rs) ----------------------------------------------

  function field(o, key, at) {
    if (!has(o, key)) throw new Error(at + ": no `" + key + "`");
    return o[key];
  }
  function text(o, key, at) {
    const v = field(o, key, at);
    if (typeof v !== "string") throw new Error(at + ": `" + key + "` is not a string");
    return v;
  }
  function object(v, at) {
    if (!isObject(v)) throw new Error(at + ": not an object");
    return v;
  }
  function list(o, key, at) {
    const v = field(o, key, at);
    if (!Array.isArray(v)) throw new Error(at + ": `" + key + "` is not a list");
    return v;
  }
  function reference(o, key, at) {
    const v = field(o, key, at);
    if (typeof v === "string") return v;
    if (isObject(v)) return text(v, "id", at);
    throw new Error(at + ": `" + key + "` is no reference");
  }
  const str = (o, k) => isObject(o) && typeof o[k] === "string" ? o[k] : undefined;

  // Whether `s` is a calendar date `YYYY-MM-DD` (clir's is_iso_date: a day that month has).
  function isDate(s) {
    const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
    if (!m) return false;
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
    return days !== undefined && d >= 1 && d <= days;
  }
  // clir-codegen's ir::is_iso_date, which reads the lifecycle: month 01-12, day 01-31.
  const isLifecycleDate = (s) => /^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/.test(s);

  // The hashes of SEMANTICS §1 that the file itself carries: it is its own canonical JSON, each
  // node's `contentHash` is the sha256 of its canonical bytes without that key, and each text of
  // a fragment carries the sha256 of its text. Throws an Error naming the first that does not.
  async function verifyHashes(doc, source) {
    const enc = new TextEncoder();
    const written = canonical(doc);
    if (written !== source) {
      const [a, b] = [enc.encode(written === null ? "" : written), enc.encode(source)];
      let at = 0;
      while (at < a.length && at < b.length && a[at] === b[at]) at++;
      throw new Error("the package file is not canonical JSON (SEMANTICS §1): first difference at byte " + at);
    }
    const nodes = list(object(doc, "the package"), "nodes", "the package");
    for (let i = 0; i < nodes.length; i++) {
      const n = object(nodes[i], "a node");
      const id = str(n, "id") === undefined ? "?" : n.id;
      const computed = await sha256(enc.encode(canonical(n, "contentHash")));
      if (n.contentHash !== computed) {
        const found = typeof n.contentHash === "string" ? n.contentHash : "missing";
        throw new Error("node " + i + " (" + id + "): its contentHash is " + found + ", but its content hashes to " + computed + ": the package was changed");
      }
      const texts = Array.isArray(n.texts) ? n.texts : [];
      for (let j = 0; j < texts.length; j++) {
        const t = texts[j];
        if (!isObject(t) || typeof t.text !== "string") continue;
        const body = await sha256(enc.encode(t.text));
        if (t.contentHash !== body) {
          const found = typeof t.contentHash === "string" ? t.contentHash : "missing";
          throw new Error("node " + i + " (" + id + "), text " + j + ": its contentHash is " + found + ", but the text hashes to " + body + ": the package was changed");
        }
      }
    }
  }

  // Reads a package document (its text) sealed `seal`; throws an Error saying what part of it
  // could not be read, or which of its hashes does not recompute (a tampered file is refused
  // before any case is checked).
  async function parsePackage(source, seal) {
    let doc;
    try { doc = parseJson(source); } catch (e) {
      if (!(e instanceof JsonError)) throw e;
      throw new Error("the package is not JSON: " + e.message);
    }
    await verifyHashes(doc, source);
    const top = object(doc, "the package");
    const info = object(field(top, "package", "the package"), "the package's `package`");
    const name = text(info, "name", "package"), version = text(info, "version", "package");
    const law = name + " " + version;
    const nodes = list(top, "nodes", "the package");
    const relations = [], relIds = new Map(), constants = new Map(), capabilities = new Map(), typeNames = new Map();
    // Every constant a case may name, with its type's name: the declared ones, then the
    // Strings the rules write that are no constant's name (type `String`).
    const declared = [];
    let inForce = null, until = null;
    for (const raw of nodes) {
      const n = object(raw, "a node");
      if (n.kind === "type_decl" && typeof n.id === "string" && typeof n.name === "string") typeNames.set(n.id, n.name);
    }
    const typeName = (t) => t === INTEGER ? "Integer" : t === STRING ? "String" : typeNames.has(t) ? typeNames.get(t) : t;
    const earliest = (slot, date) => slot === null || date < slot ? date : slot;
    for (const raw of nodes) {
      const n = object(raw, "a node");
      if (n.kind === "external_decl" && typeof n.symbol === "string" && typeof n.capability === "string") capabilities.set(n.symbol, n.capability);
      if (n.kind === "source_edition" && Array.isArray(n.lifecycle)) {
        for (const e of n.lifecycle) {
          const status = str(e, "status"), date = str(e, "extent");
          if (status === undefined || date === undefined || !isLifecycleDate(date)) continue;
          if (status === "in_force") inForce = earliest(inForce, date);
          if (["superseded", "repealed", "expired", "revoked"].includes(status)) until = earliest(until, date);
        }
      }
      if (n.kind !== "symbol_decl") continue;
      const id = text(n, "id", "a symbol_decl");
      const kind = text(n, "symbolKind", id);
      if (kind === "constant") {
        const name = text(n, "name", id);
        const ty = isObject(n.returnType) && typeof n.returnType.name === "string" ? n.returnType.name : "";
        declared.push([name, typeName(ty)]);
        constants.set(id, name);
      }
      if (kind === "relation") {
        const params = list(n, "parameters", id).map((p) => {
          const ty = text(object(field(object(p, id), "type", id), id), "name", id);
          return { name: typeof p.name === "string" ? p.name : "", ty: typeName(ty), integer: ty === INTEGER };
        });
        const rk = n.relationKind === "institutional" || n.relationKind === "judgment" ? n.relationKind : "empirical";
        relIds.set(id, relations.length);
        relations.push({ id, name: text(n, "name", id), params, integer: params.map((p) => p.integer), kind: rk, institutional: rk === "institutional" });
      }
    }
    for (const r of relations) r.capability = capabilities.get(r.id) || "";
    const byName = new Map();
    relations.forEach((r, i) => byName.set(r.name, i));
    const relation = (id, at) => {
      if (!relIds.has(id)) throw new Error(at + ": `" + id + "` is no relation");
      return relIds.get(id);
    };
    function term(o, vars, at, depth) {
      if (depth > 64) throw new Error(at + ": a term nested deeper than 64 levels");
      const kind = text(o, "kind", at);
      if (kind === "var") {
        const v = text(o, "var", at), i = vars.indexOf(v);
        if (i < 0) throw new Error(at + ": undeclared variable `" + v + "`");
        return { v: i };
      }
      if (kind === "const_ref" || kind === "entity_ref") {
        const id = text(o, "id", at);
        if (!constants.has(id)) throw new Error(at + ": `" + id + "` is no constant");
        return { val: constants.get(id) };
      }
      if (kind === "value") {
        const ty = text(object(field(o, "type", at), at), "name", at), v = field(o, "value", at);
        if (ty === INTEGER) {
          const i = int64(v);
          if (i === null) throw new Error(at + ": not an Integer");
          return { val: i };
        }
        if (ty === STRING && typeof v === "string") return { val: v };
        throw new Error(at + ": a value of unknown type `" + ty + "`");
      }
      if (kind === "arith") {
        const op = { add: "+", sub: "-", mul: "*" }[text(o, "op", at)];
        if (!op) throw new Error(at + ": unknown arithmetic `" + o.op + "`");
        const l = term(object(field(o, "left", at), at), vars, at, depth + 1);
        const r = term(object(field(o, "right", at), at), vars, at, depth + 1);
        return { op, l, r };
      }
      throw new Error(at + ": unknown term `" + kind + "`");
    }
    function literal(o, vars, at) {
      const rel = relation(text(o, "predicate", at), at);
      const negative = text(o, "polarity", at) === "negative";
      const args = list(o, "args", at).map((a) => term(object(a, at), vars, at, 0));
      return { rel, negative, args };
    }
    function items(f, vars, at, out, rule, depth) {
      if (depth > 64) throw new Error(at + ": a body nested deeper than 64 levels");
      const kind = text(f, "kind", at);
      if (kind === "and") for (const item of list(f, "items", at)) items(object(item, at), vars, at, out, rule, depth + 1);
      else if (kind === "boolean") { if (field(f, "value", at) === false) rule.never = true; }
      else if (kind === "literal") out.push({ literal: true, supported: false, lit: literal(f, vars, at) });
      else if (kind === "status") {
        const status = text(f, "status", at);
        if (status !== "established" && status !== "supported") throw new Error(at + ": unknown status `" + status + "`");
        out.push({ literal: true, supported: status === "supported", lit: literal(object(field(f, "formula", at), at), vars, at) });
      } else if (kind === "not") out.push({ not: literal(object(field(f, "formula", at), at), vars, at) });
      else if (kind === "comparison") {
        out.push({ compare: text(f, "op", at), l: term(object(field(f, "left", at), at), vars, at, 0), r: term(object(field(f, "right", at), at), vars, at, 0) });
      } else throw new Error(at + ": unknown body item `" + kind + "`");
    }
    const rules = [], nodeIx = new Map();
    for (const raw of nodes) {
      const n = object(raw, "a node");
      if (n.kind !== "rule") continue;
      const id = text(n, "id", "a rule");
      const strength = text(n, "strength", id);
      if (!["strict", "defeasible", "defeater"].includes(strength)) throw new Error(id + ": unknown strength `" + strength + "`");
      const vars = list(n, "variables", id).map((v) => text(object(v, id), "id", id));
      const rule = { id, strength, vars, head: literal(object(field(n, "head", id), id), vars, id), body: [], never: false };
      items(object(field(n, "body", id), id), vars, id, rule.body, rule, 0);
      nodeIx.set(id, { rule: rules.length });
      rules.push(rule);
    }
    const priorities = [], closures = [];
    for (const raw of nodes) {
      const n = object(raw, "a node");
      if (n.kind === "priority_rule") {
        const id = text(n, "id", "a priority_rule");
        const ruleOf = (key) => {
          const node = nodeIx.get(reference(n, key, id));
          if (!node || node.rule === undefined) throw new Error(id + ": `" + key + "` names no rule");
          return node.rule;
        };
        const higher = ruleOf("higher"), lower = ruleOf("lower");
        nodeIx.set(id, { priority: priorities.length });
        priorities.push({ id, higher, lower });
      } else if (n.kind === "closure_policy") {
        const id = text(n, "id", "a closure_policy");
        const predicate = relation(reference(n, "predicate", id), id), domain = relation(reference(n, "domain", id), id);
        nodeIx.set(id, { closure: closures.length });
        closures.push({ id, predicate, domain });
      }
    }
    const strings = [];
    const stringsOf = (t) => {
      if (typeof t.val === "string" && !declared.some(([c]) => c === t.val) && !strings.includes(t.val)) strings.push(t.val);
      if (t.op) { stringsOf(t.l); stringsOf(t.r); }
    };
    for (const r of rules) {
      const terms = r.head.args.slice();
      for (const i of r.body) {
        if (i.literal) terms.push(...i.lit.args);
        else if (i.not) terms.push(...i.not.args);
        else terms.push(i.l, i.r);
      }
      terms.forEach(stringsOf);
    }
    const caseConstants = declared.concat(strings.map((s) => [s, "String"]));
    return { seal, name, version, law, inForce, until, constants: caseConstants, relations, byName, rules, priorities, closures, nodes: nodeIx };
  }

  // Reads the package file's bytes (a Uint8Array or ArrayBuffer): its seal is their sha256.
  // The package read says its `name`, `version` and `seal`.
  async function readPackage(bytes) {
    const seal = await sha256(bytes);
    let source;
    try { source = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes); } catch (e) { throw new Error("the package is not UTF-8"); }
    return parsePackage(source, seal);
  }

  // ---- Literals ---------------------------------------------------------------------------

  // A literal: relation index, strong negation, values (a BigInt for an Integer, a string for
  // a name); its key identifies it in maps and sets.
  const valueKey = (v) => typeof v === "bigint" ? v.toString() : JSON.stringify(v);
  const argsKey = (args) => args.map(valueKey).join(",");
  const key = (l) => l.rel + (l.neg ? "~" : "+") + argsKey(l.args);
  const cmpValue = (a, b) => {
    const ta = typeof a === "bigint", tb = typeof b === "bigint";
    if (ta !== tb) return ta ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  };
  const cmpArgs = (a, b) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = cmpValue(a[i], b[i]);
      if (c) return c;
    }
    return a.length - b.length;
  };
  const cmpLit = (a, b) => (a.rel - b.rel) || (Number(a.neg) - Number(b.neg)) || cmpArgs(a.args, b.args);

  const QUOTED = /[,()"\\\p{White_Space}\p{Cc}]/u;
  // A literal written as FORMAT.md writes it: `~name(a,b)`.
  function litText(pkg, l) {
    const args = l.args.map((a) => typeof a === "bigint" ? a.toString() : (a !== "" && !QUOTED.test(a) ? a : JSON.stringify(a)));
    return (l.neg ? "~" : "") + pkg.relations[l.rel].name + "(" + args.join(",") + ")";
  }
  // A JSON argument as a reason shows it.
  const argText = (a) => a === undefined ? "nothing" : jsonText(a);
  // A list of strings as Rust's `{:?}` writes it: `["a(b)", "c"]`.
  const debugList = (xs) => "[" + xs.map((s) => '"' + s.replace(/[\\"\n\r\t\0]|[\u0001-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/gu,
    (c) => ({ "\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0" })[c] || "\\u{" + c.codePointAt(0).toString(16) + "}") + '"').join(", ") + "]";

  // A tuple of relation `rel` from JSON arguments; throws a reason string.
  function tuple(pkg, rel, args) {
    const r = pkg.relations[rel];
    if (args.length !== r.integer.length) throw "`" + r.name + "` takes " + r.integer.length + " arguments, got " + args.length;
    return r.integer.map((int, i) => {
      const a = args[i];
      if (int && int64(a) !== null) return int64(a);
      if (!int && typeof a === "string") return a;
      throw "`" + r.name + "`: argument " + argText(a) + " is not of its parameter's type";
    });
  }

  function readLiteral(pkg, v) {
    if (!Array.isArray(v) || !v.length) throw "a literal is a list: its relation, then its arguments";
    if (typeof v[0] !== "string") throw "a literal's relation is a string";
    const neg = v[0].startsWith("~"), name = neg ? v[0].slice(1) : v[0];
    if (!pkg.byName.has(name)) throw "unknown relation `" + name + "`";
    const rel = pkg.byName.get(name);
    return { rel, neg, args: tuple(pkg, rel, v.slice(1)) };
  }

  function readRef(v) {
    if (typeof v !== "string") throw "a premise is a string such as \"D3\"";
    const t = { D, S, d: C }[v[0]];
    if (t === undefined) throw "premise `" + v + "` names no layer";
    const digits = v.slice(1);
    if (!/^\+?[0-9]+$/.test(digits) || BigInt(digits) > U64_MAX) throw "premise `" + v + "` has no index";
    return { t, i: BigInt(digits) };
  }

  function readEntry(pkg, v, nodes) {
    if (!Array.isArray(v)) throw "an entry is a list [rank, literal, how]";
    if (v.length < 3 || v.length > 4) throw "an entry is a list [rank, literal, how] or [rank, literal, how, attacks]";
    const rank = uint64(v[0]);
    if (rank === null) throw "a rank is a whole number below 2^64";
    const lit = readLiteral(pkg, v[1]);
    const nodeIx = (x) => {
      const n = uint64(x);
      if (n === null || n >= BigInt(nodes)) throw "a node index out of the node list";
      return Number(n);
    };
    const how = v[2];
    if (how === "fact" && v.length === 3) return { rank, lit, fact: true };
    if (!Array.isArray(how) || how.length !== 2) throw "`how` is \"fact\" or [node, premises]";
    const node = nodeIx(how[0]);
    if (!Array.isArray(how[1])) throw "premises are a list";
    const refs = how[1].map(readRef);
    const beats = [];
    if (v.length === 4) {
      if (!Array.isArray(v[3])) throw "attacks are a list";
      for (const a of v[3]) {
        if (!Array.isArray(a) || a.length !== 3) throw "an attack is [attacker, beaten by, priority]";
        beats.push(a.map(nodeIx));
      }
    }
    return { rank, lit, node, refs, beats };
  }

  // ---- Terms ------------------------------------------------------------------------------

  function evalTerm(t, b) {
    if (t.v !== undefined) return b[t.v];
    if (t.val !== undefined) return t.val;
    const x = evalTerm(t.l, b), y = evalTerm(t.r, b);
    if (typeof x !== "bigint" || typeof y !== "bigint") return null;
    return BigInt.asIntN(64, t.op === "+" ? x + y : t.op === "-" ? x - y : x * y);
  }

  function compare(op, l, r) {
    if (op === "eq") return l === r;
    if (op === "ne") return l !== r;
    if (typeof l !== "bigint" || typeof r !== "bigint") return false;
    return { lt: l < r, le: l <= r, gt: l > r, ge: l >= r }[op] || false;
  }

  // Binds the free variables of `p` to `args` and checks the rest; the variables bound are
  // pushed to `bound` (also when it fails, for the caller to undo).
  function unify(p, args, b, bound) {
    const n = Math.min(p.args.length, args.length);
    for (let i = 0; i < n; i++) {
      const t = p.args[i];
      if (t.v !== undefined && b[t.v] === null) {
        b[t.v] = args[i];
        bound.push(t.v);
      } else if (evalTerm(t, b) !== args[i]) return false;
    }
    return p.args.length === args.length;
  }
  // unify of the columns `keep` of `p` with `args`, one value each.
  function unifyColumns(p, keep, args, b, bound) {
    for (let j = 0; j < keep.length; j++) {
      const t = p.args[keep[j]];
      if (t.v !== undefined && b[t.v] === null) {
        b[t.v] = args[j];
        bound.push(t.v);
      } else if (evalTerm(t, b) !== args[j]) return false;
    }
    return true;
  }

  // Per variable of `rule`: whether it is lone, occurring exactly once in the whole rule, as an
  // argument of a body literal (not in the head, a comparison, a negation or arithmetic).
  function loneVariables(rule) {
    const n = rule.vars.map(() => 0);
    const count = (t, k) => {
      if (t.v !== undefined) n[t.v] += k;
      else if (t.op) { count(t.l, 2); count(t.r, 2); }
    };
    rule.head.args.forEach((t) => count(t, 2));
    for (const i of rule.body) {
      if (i.literal) i.lit.args.forEach((t) => count(t, 1));
      else if (i.not) i.not.args.forEach((t) => count(t, 2));
      else if (i.compare) { count(i.l, 2); count(i.r, 2); }
    }
    return n.map((k) => k === 1);
  }

  // The plan of a join of `rule`'s body literals `lits` in `order`, as clir-check's JoinPlan:
  // per depth (the literals `order[..depth]` bound), the comparisons and negations first
  // decidable there (`items`, indices into the body), and the variables still live there
  // (`live`: read by a later literal, a later item or the head; sorted).
  function joinPlan(rule, lits, order) {
    const vars = (t, out) => {
      if (t.v !== undefined) out.push(t.v);
      else if (t.op) { vars(t.l, out); vars(t.r, out); }
    };
    const litVars = (p) => {
      const out = [];
      p.args.forEach((t) => vars(t, out));
      return out;
    };
    // The variables some literal binds; a negation needs only those of its own.
    const positive = new Set(lits.flatMap(([, p]) => litVars(p)));
    const needs = [];
    rule.body.forEach((item, i) => {
      if (item.literal) return;
      if (item.compare) {
        const out = [];
        vars(item.l, out);
        vars(item.r, out);
        needs.push([i, out]);
      } else needs.push([i, litVars(item.not).filter((v) => positive.has(v))]);
    });
    const n = order.length, bound = new Set(), at = needs.map(() => n);
    const decided = needs.map(() => false);
    for (let depth = 0; depth <= n; depth++) {
      if (depth > 0) litVars(lits[order[depth - 1]][1]).forEach((v) => bound.add(v));
      needs.forEach(([, need], k) => {
        if (!decided[k] && need.every((v) => bound.has(v))) { decided[k] = true; at[k] = depth; }
      });
    }
    const items = [], live = [];
    const head = [];
    rule.head.args.forEach((t) => vars(t, head));
    for (let d = 0; d <= n; d++) {
      items.push(needs.filter((_, k) => at[k] === d).map(([i]) => i));
      const l = new Set(head);
      for (const o of order.slice(d)) litVars(lits[o][1]).forEach((v) => l.add(v));
      needs.forEach(([, need], k) => { if (at[k] > d) need.forEach((v) => l.add(v)); });
      live.push([...l].sort((x, y) => x - y));
    }
    return { items, live };
  }

  function undo(b, bound, to) {
    for (const v of bound.splice(to)) b[v] = null;
  }

  // ---- The layers of one case -------------------------------------------------------------

  class Model {
    constructor(pkg) {
      this.pkg = pkg;
      this.tiers = [[], [], []];
      this.member = [new Map(), new Map(), new Map()];
      this.tuples = new Map();
      this.indices = new Map();
    }
    inD(l) { return this.member[D].has(key(l)); }
    inSet(set, l) {
      return this.inD(l) || (set === SUPPORTED && this.member[S].has(key(l))) || (set === CONCLUDED && this.member[C].has(key(l)));
    }
    index() {
      const add = (set, l) => {
        const k = set + l.rel + (l.neg ? "~" : "+");
        if (!this.tuples.has(k)) this.tuples.set(k, []);
        this.tuples.get(k).push(l.args);
      };
      for (const e of this.tiers[D]) for (const s of [DEFINITE, SUPPORTED, CONCLUDED]) add(s, e.lit);
      for (const e of this.tiers[S]) add(SUPPORTED, e.lit);
      for (const e of this.tiers[C]) add(CONCLUDED, e.lit);
    }
    lookup(set, rel, neg, cols, vals) {
      const k = set + rel + (neg ? "~" : "+");
      const all = this.tuples.get(k);
      if (!all) return [];
      if (!cols.length) return all;
      const ik = k + "@" + cols.join(",");
      let ix = this.indices.get(ik);
      if (!ix) {
        ix = new Map();
        all.forEach((t, i) => {
          const kk = argsKey(cols.map((c) => t[c]));
          if (!ix.has(kk)) ix.set(kk, []);
          ix.get(kk).push(i);
        });
        this.indices.set(ik, ix);
      }
      return (ix.get(argsKey(vals)) || []).map((i) => all[i]);
    }
    // The tuples of `set` for `rel`/`neg` projected on the columns `keep` (each projection
    // once), whose columns `cols` (positions in `keep`) hold `vals`.
    lookupProjected(set, rel, neg, keep, cols, vals) {
      if (keep.length === this.pkg.relations[rel].integer.length) return this.lookup(set, rel, neg, cols, vals);
      const k = set + rel + (neg ? "~" : "+"), pk = k + "#" + keep.join(",");
      if (!this.tuples.has(pk)) {
        const seen = new Map();
        for (const t of this.tuples.get(k) || []) {
          const projected = keep.map((c) => t[c]), sk = argsKey(projected);
          if (!seen.has(sk)) seen.set(sk, projected);
        }
        this.tuples.set(pk, [...seen.values()]);
      }
      const all = this.tuples.get(pk);
      if (!cols.length) return all;
      const ik = pk + "@" + cols.join(",");
      let ix = this.indices.get(ik);
      if (!ix) {
        ix = new Map();
        all.forEach((t, i) => {
          const kk = argsKey(cols.map((c) => t[c]));
          if (!ix.has(kk)) ix.set(kk, []);
          ix.get(kk).push(i);
        });
        this.indices.set(ik, ix);
      }
      return (ix.get(argsKey(vals)) || []).map((i) => all[i]);
    }
    bound(p, b) {
      const cols = [], vals = [];
      p.args.forEach((t, c) => {
        const v = evalTerm(t, b);
        if (v !== null) { cols.push(c); vals.push(v); }
      });
      return [cols, vals];
    }
    // Every binding of `rule`'s body over the layers: its literals looked up in +D only
    // (`definite`) or as their status asks, its comparisons and negations true. A lone variable
    // (one that occurs once in the rule, in a body literal) binds nothing another part of the
    // rule reads: its literal is an existence test on its other columns, joined over their
    // distinct values, and the variable is left unbound, so one step stays linear in the case
    // where a lone variable has many values (as clir-check does it). The join goes as
    // clir-check's does: tests first (a literal that binds nothing new), then the most bound;
    // each comparison or negation tested once its variables are bound (joinPlan); and each
    // subtree walked once for each value of the variables still live at its depth, since the
    // heads it finds depend on nothing else.
    solve(rule, definite) {
      const found = [];
      if (rule.never) return found;
      const lone = loneVariables(rule);
      const lits = rule.body.filter((i) => i.literal).map((i) => [definite ? DEFINITE : i.supported ? SUPPORTED : CONCLUDED, i.lit,
        i.lit.args.map((t, c) => c).filter((c) => !(i.lit.args[c].v !== undefined && lone[i.lit.args[c].v]))]);
      const order = [], known = rule.vars.map(() => false);
      while (order.length < lits.length) {
        // The score (a test, the bound columns) compared as clir-check's tuple is; the first
        // literal on ties.
        let best = -1, bestTest = false, bestBound = -1;
        lits.forEach(([, p, keep], i) => {
          if (order.includes(i)) return;
          const free = (c) => p.args[c].v !== undefined && !known[p.args[c].v];
          const test = keep.every((c) => !free(c)), bound = keep.filter((c) => !free(c)).length;
          if (best < 0 || (test && !bestTest) || (test === bestTest && bound > bestBound)) {
            best = i; bestTest = test; bestBound = bound;
          }
        });
        for (const t of lits[best][1].args) if (t.v !== undefined) known[t.v] = true;
        order.push(best);
      }
      const plan = joinPlan(rule, lits, order);
      const b = rule.vars.map(() => null);
      const seen = new Set();
      const join = (depth) => {
        for (const i of plan.items[depth]) if (!this.itemHolds(rule.body[i], b)) return;
        const live = depth + "|" + plan.live[depth].map((v) => b[v] === null ? "_" : valueKey(b[v])).join(",");
        if (seen.has(live)) return;
        seen.add(live);
        if (depth === order.length) {
          found.push(b.slice());
          return;
        }
        const [set, p, keep] = lits[order[depth]];
        const cols = [], vals = [];
        keep.forEach((c, j) => {
          const v = evalTerm(p.args[c], b);
          if (v !== null) { cols.push(j); vals.push(v); }
        });
        const bound = [];
        for (const t of this.lookupProjected(set, p.rel, p.negative, keep, cols, vals)) {
          if (unifyColumns(p, keep, t, b, bound)) join(depth + 1);
          undo(b, bound, 0);
        }
      };
      join(0);
      return found;
    }
    // Whether the comparison or negation `i` holds under `b`, its variables bound.
    itemHolds(i, b) {
      if (i.literal) return true;
      if (i.compare) {
        const l = evalTerm(i.l, b), r = evalTerm(i.r, b);
        return l !== null && r !== null && compare(i.compare, l, r);
      }
      const [cols, vals] = this.bound(i.not, b);
      return this.lookup(CONCLUDED, i.not.rel, i.not.negative, cols, vals).length === 0;
    }
    // The comparisons and negations of `rule` under the full binding `b`.
    itemsHold(rule, b) {
      return rule.body.every((i) => this.itemHolds(i, b));
    }
    static head(rule, b) {
      const args = rule.head.args.map((t) => evalTerm(t, b));
      return args.includes(null) ? null : { rel: rule.head.rel, neg: rule.head.negative, args };
    }
    // Every applicable rule instance's head, with the rules that have one: key -> {lit, rules}.
    applicable() {
      const out = new Map();
      this.pkg.rules.forEach((rule, r) => {
        for (const b of this.solve(rule, false)) {
          const h = Model.head(rule, b);
          if (!h) fail(null, "rule " + rule.id, "a head variable no premise binds");
          const k = key(h);
          if (!out.has(k)) out.set(k, { lit: h, rules: [] });
          const rules = out.get(k).rules;
          if (!rules.includes(r)) rules.push(r);
        }
      });
      return out;
    }
    // Every entry justified at a lower rank.
    sound(nodes, facts, applicable) {
      const pkg = this.pkg;
      for (const t of [D, S, C]) {
        this.tiers[t].forEach((e, i) => {
          const step = TIER[t] + "[" + i + "]", lit = e.lit;
          const at = (reason) => new Failure(litText(pkg, lit), step, reason);
          if (e.fact) {
            if (t === D && facts.has(key(lit))) return;
            throw at("claimed an input fact, but the case line does not state it");
          }
          const node = nodes[e.node];
          const premises = [];
          for (const r of e.refs) {
            const p = r.i < BigInt(this.tiers[r.t].length) ? this.tiers[r.t][Number(r.i)] : undefined;
            if (!p) throw at("premise " + TIER[r.t] + "[" + r.i + "] is not listed");
            if (p.rank >= e.rank) {
              throw at("premise " + litText(pkg, p.lit) + " (" + TIER[r.t] + "[" + r.i + "]) has rank " + p.rank + ", not below this entry's rank " + e.rank);
            }
            premises.push({ t: r.t, lit: p.lit });
          }
          if (node.closure !== undefined) {
            const c = pkg.closures[node.closure];
            const why = (w) => at("closure " + c.id + ": " + w);
            if (t !== D || !lit.neg || lit.rel !== c.predicate) throw why("it derives only the explicit negative of its predicate, as +D");
            const domain = key({ rel: c.domain, neg: false, args: lit.args });
            if (premises.length !== 1 || (premises[0].t !== D && premises[0].t !== C) || key(premises[0].lit) !== domain) {
              throw why("its one premise is the concluded domain tuple");
            }
            if (this.inSet(SUPPORTED, { rel: lit.rel, neg: false, args: lit.args })) throw why("the positive literal is supported");
          } else if (node.priority !== undefined) {
            throw at("a priority derives nothing");
          } else {
            const rule = pkg.rules[node.rule];
            const why = (w) => at("rule " + rule.id + ": " + w);
            const ok = t === D ? rule.strength === "strict" : rule.strength !== "defeater";
            if (!ok) throw why("a " + rule.strength[0].toUpperCase() + rule.strength.slice(1) + " rule does not derive " + TIER[t]);
            const wrong = this.instance(rule, t === D, lit, premises);
            if (wrong) throw why(wrong);
            if (t === C) {
              if (this.inD({ rel: lit.rel, neg: !lit.neg, args: lit.args })) throw why("its complement is +D");
              const unbeaten = this.beaten(nodes, lit, e.beats, applicable);
              if (unbeaten) throw at(unbeaten);
            } else if (e.beats.length) throw why("attacks are listed only on +d entries");
          }
        });
      }
    }
    // Matches the premises of an instance of `rule` for `head` against its body: null, or why
    // they are no instance.
    instance(rule, definite, head, premises) {
      if (rule.never) return "its body holds `false`";
      if (rule.head.rel !== head.rel || rule.head.negative !== head.neg) return "its head is of another relation or sign";
      const b = rule.vars.map(() => null);
      const n = Math.min(rule.head.args.length, head.args.length);
      for (let i = 0; i < n; i++) {
        const t = rule.head.args[i], a = head.args[i];
        if (t.v !== undefined && b[t.v] === null) b[t.v] = a;
        else if ((t.v !== undefined && b[t.v] !== a) || (t.val !== undefined && t.val !== a)) return "its head does not match the literal";
      }
      const lits = rule.body.filter((i) => i.literal);
      const fits = (supported, t) => definite ? t === D : t === D || (t === S ? supported : !supported);
      const used = premises.map(() => 0);
      let budget = MATCH_BUDGET;
      const bound = [];
      const run = (i) => {
        if (i === lits.length) return used.every((u) => u > 0);
        const { supported, lit: p } = lits[i];
        for (let j = 0; j < premises.length; j++) {
          if (budget === 0) return false;
          budget--;
          const { t, lit: l } = premises[j];
          if (l.rel !== p.rel || l.neg !== p.negative || !fits(supported, t)) continue;
          const mark = bound.length;
          if (unify(p, l.args, b, bound)) {
            used[j]++;
            if (run(i + 1)) return true;
            used[j]--;
          }
          undo(b, bound, mark);
        }
        return false;
      };
      if (!run(0)) {
        return budget === 0 ? "its premises could not be matched within the search budget"
          : "its premises are not an instance of its body (a premise or binding does not fit)";
      }
      const shown = rule.vars.map((v, i) => v + "=" + (b[i] === null ? "_" : String(b[i]))).join(", ");
      const h = Model.head(rule, b);
      if (!h || key(h) !== key(head)) return "with " + shown + " its head is not the literal";
      if (!this.itemsHold(rule, b)) return "with " + shown + " a comparison or negation of its body is false";
      return null;
    }
    // Every applicable rule for the complement of `lit` is beaten, as `beats` says: null, or
    // what is not.
    beaten(nodes, lit, beats, applicable) {
      const pkg = this.pkg;
      const forLit = (applicable.get(key(lit)) || { rules: [] }).rules;
      const attackers = (applicable.get(key({ rel: lit.rel, neg: !lit.neg, args: lit.args })) || { rules: [] }).rules;
      const shown = new Set();
      for (const [a, w, p] of beats) {
        const [s, t, q] = [nodes[a].rule, nodes[w].rule, nodes[p].priority];
        if (s === undefined || t === undefined || q === undefined) return "an attack names [attacking rule, beating rule, priority]";
        const prio = pkg.priorities[q];
        if (prio.higher !== t || prio.lower !== s) return "priority " + prio.id + " does not rank " + pkg.rules[t].id + " above " + pkg.rules[s].id;
        if (!attackers.includes(s)) return "rule " + pkg.rules[s].id + " is listed as an attack but does not apply";
        if (!forLit.includes(t) || pkg.rules[t].strength === "defeater") {
          return "rule " + pkg.rules[t].id + " beats no attack: it is no applicable strict or defeasible rule for the literal";
        }
        shown.add(s);
      }
      const s = attackers.find((x) => !shown.has(x));
      return s === undefined ? null : "the attack by rule " + pkg.rules[s].id + " applies and is not shown beaten";
    }
    // One step of every rule and closure over the layers derives nothing they do not list.
    fixpoint(facts, applicable) {
      const pkg = this.pkg;
      const missing = (l, layer, why) => new Failure(litText(pkg, l), "fixpoint", why + ", but the literal is not listed " + layer);
      for (const f of facts.values()) if (!this.inD(f)) throw missing(f, "in +D", "the case line states it");
      for (const rule of pkg.rules) {
        if (rule.strength !== "strict") continue;
        for (const b of this.solve(rule, true)) {
          const h = Model.head(rule, b);
          if (!h) throw lineFailure("a head variable no premise binds");
          if (!this.inD(h)) throw missing(h, "in +D", "strict rule " + rule.id + " applies over +D premises");
        }
      }
      const beats = (t, s) => pkg.priorities.some((p) => p.higher === t && p.lower === s);
      for (const { lit: h, rules } of applicable.values()) {
        const r = rules.find((x) => pkg.rules[x].strength !== "defeater");
        if (r === undefined) continue;
        if (!this.inSet(SUPPORTED, h)) throw missing(h, "in +S", "rule " + pkg.rules[r].id + " applies");
        const complement = { rel: h.rel, neg: !h.neg, args: h.args };
        if (this.inSet(CONCLUDED, h) || this.inD(complement)) continue;
        const winners = rules.filter((x) => pkg.rules[x].strength !== "defeater");
        const attackers = (applicable.get(key(complement)) || { rules: [] }).rules;
        if (attackers.every((s) => winners.some((t) => beats(t, s)))) {
          throw missing(h, "in +d", "rule " + pkg.rules[r].id + " applies and every attack on it is beaten");
        }
      }
      for (const c of pkg.closures) {
        const domain = (this.tuples.get(CONCLUDED + c.domain + "+") || []).slice().sort(cmpArgs);
        for (const t of domain) {
          const negative = { rel: c.predicate, neg: true, args: t };
          if (!this.inSet(SUPPORTED, { rel: c.predicate, neg: false, args: t }) && !this.inD(negative)) {
            throw missing(negative, "in +D", "closure " + c.id + " closes it");
          }
        }
      }
    }
    // The ruling's `concluded`, `definite` and `contradictions` are what the layers say.
    ruling(ruling, read) {
      const pkg = this.pkg;
      const listed = (k) => {
        const rels = ruling[k];
        if (!isObject(rels)) fail(null, "ruling", "the ruling has no object `" + k + "`");
        const out = new Map();
        for (const name of keysOf(rels)) {
          const tuples = rels[name];
          const bad = (why) => lineFailure("the ruling's `" + k + "`: " + why);
          if (!Array.isArray(tuples) || !tuples.length) throw bad("`" + name + "` is not a non-empty list of tuples");
          for (const t of tuples) {
            if (!Array.isArray(t)) throw bad("`" + name + "`: " + jsonText(t) + " is not a tuple");
            let l;
            try { l = readLiteral(pkg, [name].concat(t)); } catch (r) {
              if (typeof r !== "string") throw r;
              throw bad(r);
            }
            if (out.has(key(l))) throw bad(litText(pkg, l) + " is listed twice");
            out.set(key(l), l);
          }
        }
        return out;
      };
      let warnings = [];
      if (has(ruling, "warnings")) {
        const w = ruling.warnings;
        if (!Array.isArray(w) || !w.length) fail(null, "ruling", "`warnings` is not a non-empty list of strings");
        warnings = w.map((s) => typeof s === "string" ? s : "\u0000");
      }
      if (warnings.length !== read.warnings.length || warnings.some((s, i) => s !== read.warnings[i])) {
        fail(null, "ruling", "the ruling's warnings are " + debugList(warnings) + ", reading the case line gives " + debugList(read.warnings));
      }
      const institutional = (l) => pkg.relations[l.rel].institutional;
      const definite = new Map(), concluded = new Map();
      for (const e of this.tiers[D]) if (institutional(e.lit)) { definite.set(key(e.lit), e.lit); concluded.set(key(e.lit), e.lit); }
      for (const e of this.tiers[C]) if (institutional(e.lit)) concluded.set(key(e.lit), e.lit);
      const least = (a, b) => [...a].filter(([k]) => !b.has(k)).map(([, l]) => l).sort(cmpLit)[0];
      for (const [k, layer, mine] of [["concluded", "+d", concluded], ["definite", "+D", definite]]) {
        const theirs = listed(k);
        let l = least(theirs, mine);
        if (l) fail(litText(pkg, l), "ruling", "the ruling lists it as " + k + ", but the certificate has it not " + layer);
        l = least(mine, theirs);
        if (l) fail(litText(pkg, l), "ruling", "the certificate has it " + layer + ", but the ruling does not list it as " + k);
      }
      const contradictions = this.tiers[D].filter((e) => !e.lit.neg && this.inD({ rel: e.lit.rel, neg: true, args: e.lit.args }))
        .map((e) => litText(pkg, e.lit)).sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
      if (!Array.isArray(ruling.contradictions)) fail(null, "ruling", "the ruling has no list `contradictions`");
      const theirs = ruling.contradictions.map((s) => typeof s === "string" ? s : "");
      if (theirs.length !== contradictions.length || theirs.some((s, i) => s !== contradictions[i])) {
        fail(null, "ruling", "the contradictions are " + debugList(contradictions) + ", the ruling says " + debugList(theirs));
      }
    }
  }

  // ---- The case line (as `clir rule` reads it: FORMAT.md "Case lines") ----------------------

  // Unicode white space, as Rust's `trim` sees it (JavaScript's own trim also drops U+FEFF).
  const trimStart = (s) => s.replace(/^\p{White_Space}+/u, "");
  const trim = (s) => trimStart(s).replace(/\p{White_Space}+$/u, "");

  // The edit distance between two strings, by characters.
  function levenshtein(a, b) {
    const bs = [...b];
    const row = bs.map((_, j) => j + 1);
    row.unshift(0);
    [...a].forEach((ca, i) => {
      let prev = row[0];
      row[0] = i + 1;
      bs.forEach((cb, j) => {
        const next = Math.min(prev + (ca !== cb ? 1 : 0), row[j] + 1, row[j + 1] + 1);
        prev = row[j + 1];
        row[j + 1] = next;
      });
    });
    return row[bs.length];
  }
  const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  // The closest of `candidates` to `name`: one that differs only in ASCII case, else the first
  // nearest by edit distance, if at most a third of `name`'s length (at least 1).
  function closest(name, candidates) {
    const same = candidates.find((c) => c.length === name.length && asciiLower(c) === asciiLower(name));
    if (same !== undefined) return same;
    const limit = Math.max(1, Math.floor([...name].length / 3));
    let best = null;
    for (const c of candidates) {
      const d = levenshtein(name, c);
      if (d <= limit && (best === null || d < best[0])) best = [d, c];
    }
    return best === null ? null : best[1];
  }
  const didYouMean = (name, candidates) => {
    const c = closest(name, candidates);
    return c === null ? "" : " (did you mean `" + c + "`?)";
  };

  // A fact's argument as serde_json writes the JSON value it was read as: an Integer of 64
  // bits (`-0` is 0) as it is, objects with their keys sorted.
  function argJson(v, top) {
    if (isNum(v)) return top && v.int !== null && v.int >= I64_MIN && v.int <= I64_MAX ? v.int.toString() : numberText(v);
    if (Array.isArray(v)) return "[" + v.map((x) => argJson(x, false)).join(",") + "]";
    if (isObject(v)) return "{" + keysOf(v).slice().sort().map((k) => canonicalString(k) + ":" + argJson(v[k], false)).join(",") + "}";
    if (typeof v === "string") return canonicalString(v);
    return JSON.stringify(v);
  }

  // Reads a `why_not` literal as clir does (`name(a,b)`, `~name(a,b)`, a name bare or a JSON
  // string); throws clir's message for one it refuses.
  function readAsked(pkg, text) {
    const bad = (why) => "why_not: `" + text + "` is not a literal (" + why + ")";
    const t = text.startsWith("~") ? text.slice(1) : text;
    const known = (n) => pkg.byName.has(n);
    const opens = [];
    for (let i = t.indexOf("("); i >= 0; i = t.indexOf("(", i + 1)) opens.push(i);
    let open = [...opens].reverse().find((i) => known(t.slice(0, i)));
    if (open === undefined) open = opens[0];
    let name = t, inner = null;
    if (open !== undefined && !known(t)) {
      if (!t.endsWith(")") || t.length - 1 < open + 1) throw bad("no closing `)`");
      name = t.slice(0, open);
      inner = t.slice(open + 1, t.length - 1);
    }
    if (!known(name)) throw "why_not: unknown relation `" + name + "` in `" + text + "`" + didYouMean(name, pkg.relations.map((r) => r.name));
    const r = pkg.relations[pkg.byName.get(name)];
    const words = [];
    if (inner !== null && trim(inner) !== "") {
      let rest = inner;
      for (;;) {
        const s = trimStart(rest);
        let word, after, bare = true;
        if (s.startsWith('"')) {
          let end = 1;
          while (end < s.length && s[end] !== '"') end += s[end] === "\\" ? 2 : 1;
          try { word = parseJson(s.slice(0, end + 1)); } catch (e) {
            if (!(e instanceof JsonError)) throw e;
            throw bad("a quoted name is not a JSON string");
          }
          if (typeof word !== "string") throw bad("a quoted name is not a JSON string");
          after = s.slice(end + 1);
          bare = false;
        } else {
          const end = s.indexOf(",") < 0 ? s.length : s.indexOf(",");
          word = trim(s.slice(0, end));
          after = s.slice(end);
        }
        words.push({ word, bare });
        after = trimStart(after);
        if (after.startsWith(",")) rest = after.slice(1);
        else if (after === "") break;
        else throw bad("expected `,` or `)` after an argument");
      }
    }
    if (words.length !== r.params.length) {
      throw "why_not: relation `" + name + "` takes " + r.params.length + " argument" + (r.params.length === 1 ? "" : "s") + ", `" + text + "` gives " + words.length;
    }
    words.forEach(({ word, bare }, i) => {
      if (r.integer[i]) {
        const ok = bare && /^[+-]?[0-9]+$/.test(word) && BigInt(word) >= I64_MIN && BigInt(word) <= I64_MAX;
        if (!ok) throw "why_not: in `" + text + "`, argument `" + r.params[i].name + "` is an Integer, got `" + word + "`";
      } else if (word === "") throw bad("an empty argument");
      else if (bare && word === "_") {
        // In an answer a bare `_` is an argument no value binds; a question names every one.
        throw "why_not: in `" + text + "`, argument `" + r.params[i].name + "` is `_`, which stands for no value; the entity named `_` is written \"_\"";
      }
    });
  }

  // A JSON error of a case line, placed by its column only, as clir's error line says it.
  const caseJsonError = (e) => e.what + " (column " + e.column + ")";

  // The `case` value of a line that is JSON, as written (`"null"` when it has none, or twice).
  function caseValue(line) {
    try {
      const { caseText, caseTwice } = parseJson(line, true, "skim");
      return caseText !== undefined && !caseTwice ? caseText : "null";
    } catch (e) {
      if (!(e instanceof JsonError)) throw e;
      return "null";
    }
  }

  // Reads a case line as clir reads it (clir-check's case.rs): {case, facts, warnings,
  // whyNot}, or {error: the message clir's error line gives it, case: its `case` value}. Only
  // its four keys, `case` and `facts` present, no institutional fact, a judgment fact only
  // under its capability (`grants`), every tuple a list of arguments of its relation's types,
  // `why_not` at most 1,024 literals of the package, `as_of` a date the law is in force at.
  function readCase(pkg, line, grants) {
    const refused = (msg) => ({ error: msg, case: caseValue(line) });
    const col = (index) => byteColumn(line, index);
    // Where serde_json places an error once it has ended the object or list it is in: past
    // white space and a closing bracket.
    const settle = (pos, close) => {
      let j = pos;
      while (j < line.length && " \t\n\r".includes(line[j])) j++;
      return line[j] === close ? j + 1 : j;
    };
    class Refused { constructor(msg, at) { this.msg = msg + " (column " + col(at) + ")"; } }
    // An error of a value's type: at the value's first character when it is a list or an
    // object (serde_json does not read it), else after it.
    const invalid = (v, expected, from, to) => {
      const container = Array.isArray(v) || isObject(v);
      throw new Refused("invalid type: " + unexpected(v) + ", expected " + expected, container ? from : to);
    };
    const seen = new Set(), relations = new Set();
    const top = (path) => path.length === 1 ? path[0] : null;
    const hooks = {
      start(path, kinds, from) {
        const c = line[from], open = c === "[" ? [] : c === "{" ? Object.create(null) : undefined;
        if (open === undefined) return;
        const k = top(path);
        if (k === "facts" && c === "[") invalid(open, "an object of relation names to lists of tuples", from);
        if (k === "why_not" && c === "{") invalid(open, "a sequence", from);
        if (k === "as_of") invalid(open, "a string", from);
        if (path.length === 2 && path[0] === "why_not") invalid(open, "a string", from);
      },
      end(path, kinds, v, from, to) {
        const k = top(path);
        if (k === "facts" && !isObject(v)) invalid(v, "an object of relation names to lists of tuples", from, to);
        if (k === "why_not") {
          if (!Array.isArray(v)) invalid(v, "a sequence", from, to);
          if (v.length > MAX_WHY_NOT) throw new Refused("`why_not` asks about " + v.length + " literals; at most " + MAX_WHY_NOT + " are answered a case", settle(to, "}"));
        }
        if (path.length === 2 && path[0] === "why_not" && typeof v !== "string") invalid(v, "a string", from, to);
        if (k === "as_of") {
          if (typeof v !== "string") invalid(v, "a string", from, to);
          if (!isDate(v)) throw new Refused("`as_of` is a date written YYYY-MM-DD, got `" + v + "`", settle(to, "}"));
        }
      },
      key(path, kinds, k, keyEnd) {
        if (path.length === 0) {
          if (!CASE_KEYS.includes(k)) throw new Refused("unknown key `" + k + "` (a case has only `case`, `facts`, `why_not` and `as_of`)", settle(keyEnd, "}"));
          if (seen.has(k)) throw new Refused("duplicate key `" + k + "`", settle(keyEnd, "}"));
          seen.add(k);
        } else if (path.length === 1 && path[0] === "facts") {
          if (relations.has(k)) throw new Refused("duplicate key `" + k + "` in `facts`", settle(keyEnd, "}"));
          relations.add(k);
        }
      },
      // Inside `facts`, what is not a list of tuples or a tuple is read as a JSON value whose
      // objects hold no key twice (found once the value is read); an argument, as any value.
      dupLater: (path) => path[0] === "facts" && path.length >= 2,
      dup(path, k, to) { throw new Refused("duplicate key `" + k + "` in the `case` value", settle(to, "}")); },
      lenient: (path, kinds) => path[0] === "facts" && path.length >= 4 && kinds[2] === "arr" && kinds[3] === "arr",
      // The line's object read: its `case` and `facts` are there (placed after its `}`).
      close(path, o, to) {
        if (path.length) return;
        for (const k of ["case", "facts"]) if (!has(o, k)) throw new Refused("missing key `" + k + "`", to);
      },
    };
    let parsed;
    try { parsed = parseJson(line, true, false, CASE_OBJECT, hooks); } catch (e) {
      if (e instanceof Refused) return refused(e.msg);
      if (!(e instanceof JsonError)) throw e;
      // A `case` value is read whole, then again strictly: its error is placed at its end.
      if (e.dup !== undefined && e.path[0] === "case") return refused("duplicate key `" + e.dup + "` in the `case` value (column " + e.column + ")");
      return refused(caseJsonError(e));
    }
    const c = parsed.value;
    const caseText = parsed.caseText;
    const err = (msg) => ({ error: msg, case: caseText });
    const facts = [], warnings = [];
    let count = 0;
    for (const k of keysOf(c.facts)) if (Array.isArray(c.facts[k])) count += c.facts[k].length;
    if (count > MAX_FACTS) return err("the case has " + count + " facts; at most " + MAX_FACTS + " are accepted");
    if (has(c, "as_of")) {
      const date = c.as_of;
      if (pkg.inForce !== null && date < pkg.inForce) return err("the case is dated " + date + " (as_of), before " + pkg.law + " is in force (" + pkg.inForce + ")");
      if (pkg.until !== null && date >= pkg.until) return err("the case is dated " + date + " (as_of), when " + pkg.law + " is no longer in force (since " + pkg.until + ")");
    }
    for (const k of keysOf(c.facts)) {
      const neg = k.startsWith("~"), name = neg ? k.slice(1) : k;
      if (!pkg.byName.has(name)) return err("unknown relation `" + name + "`" + didYouMean(name, pkg.relations.map((r) => r.name)));
      const rel = pkg.byName.get(name), r = pkg.relations[rel], tuples = c.facts[k];
      if (r.kind === "institutional") return err("relation `" + name + "` is institutional: it is derived by rules and cannot be given as input");
      if (r.kind === "judgment" && !grants.includes(r.capability)) {
        return err("relation `" + name + "` is a judgment reserved to capability `" + r.capability + "`; it is accepted only with --grant " + r.capability);
      }
      const signature = () => r.params.map((p) => p.name + ": " + p.ty).join(", ");
      if (!Array.isArray(tuples)) return err("relation `" + k + "`: expected a list of tuples");
      for (const t of tuples) {
        if (!Array.isArray(t)) return err("relation `" + k + "`: each tuple must be a list of arguments, got " + argJson(t, false));
        if (t.length !== r.params.length) {
          return err("relation `" + name + "` takes " + r.params.length + " argument" + (r.params.length === 1 ? "" : "s") + " (" + signature() + "), got " + t.length);
        }
        const values = [];
        for (let i = 0; i < t.length; i++) {
          const a = t[i], p = r.params[i];
          if (r.integer[i]) {
            const v = int64(a);
            if (v === null) return err("relation `" + name + "`: argument `" + p.name + "` is an Integer, got " + argJson(a, true));
            values.push(v);
            continue;
          }
          if (typeof a !== "string") return err("relation `" + name + "`: argument `" + p.name + "` is a `" + p.ty + "` entity (a string), got " + argJson(a, true));
          const declared = pkg.constants.filter(([, ty]) => ty === p.ty).map(([n]) => n);
          if (declared.length && !declared.includes(a)) {
            const close = closest(a, declared);
            if (close !== null) {
              const note = "relation `" + name + "`: argument `" + p.name + "`: `" + a + "` is not a declared " + p.ty + " (did you mean `" + close
                + "`?) (declared: " + declared.join(", ") + "); it was read as a new " + p.ty;
              if (!warnings.includes(note)) warnings.push(note);
            }
          }
          values.push(a);
        }
        facts.push({ rel, neg, args: values });
      }
    }
    for (const text of c.why_not || []) {
      try { readAsked(pkg, text); } catch (why) {
        if (typeof why !== "string") throw why;
        return err(why);
      }
    }
    return { case: caseText, facts, warnings, whyNot: has(c, "why_not") };
  }

  async function check(pkg, caseLine, read, rulingLine, setAside) {
    let ruling, rulingCase;
    try { ({ value: ruling, caseText: rulingCase } = parseJson(rulingLine, true)); } catch (e) {
      if (!(e instanceof JsonError)) throw e;
      throw lineFailure("the ruling line is not JSON: " + e.message);
    }
    if (!isObject(ruling)) throw lineFailure("the ruling line is not an object");
    if (has(ruling, "error")) {
      return { outcome: "not_ruled", error: typeof ruling.error === "string" ? ruling.error : "" };
    }
    // A case clir refuses has no ruling: its error line is the only answer.
    if (read.error !== undefined) fail(null, "case_line", read.error);
    const unchecked = [];
    for (const k of keysOf(ruling)) {
      if (RULING_KEYS.includes(k)) continue;
      if (k === "why_not" || k === "explanations") {
        if (setAside.includes(k)) {
          unchecked.push(k);
          continue;
        }
        fail(null, "ruling", "the ruling line carries `" + k + "`, which no certificate proves: a certified ruling has only " + RULING_KEYS.join(", "));
      }
      fail(null, "ruling", "the ruling line carries the key `" + k + "`, which the checker does not check");
    }
    const cert = ruling.certificate;
    if (!isObject(cert)) fail(null, "certificate", "the ruling line has no certificate (rule with --certify)");
    const extra = keysOf(cert).find((k) => !CERTIFICATE_KEYS.includes(k));
    if (extra !== undefined) fail(null, "certificate", "the certificate carries the key `" + extra + "`, which the checker does not check");
    const field = (k) => typeof cert[k] === "string" ? cert[k] : "";
    if (field("format") !== FORMAT) fail(null, "certificate", "the format is not `" + FORMAT + "`");
    if (field("seal") !== pkg.seal) fail(null, "seal", "the certificate is of the package sealed " + field("seal") + ", not " + pkg.seal);
    const hash = await sha256(new TextEncoder().encode(caseLine));
    if (field("case") !== hash) fail(null, "case", "the certificate is of the case line hashed " + field("case") + ", not " + hash);
    if (rulingCase !== read.case) fail(null, "case", "the ruling's `case` is not the case line's");
    const facts = new Map(read.facts.map((l) => [key(l), l]));
    if (!Array.isArray(cert.nodes)) fail(null, "nodes", "no list of nodes");
    const ids = new Set();
    const nodes = cert.nodes.map((id) => {
      const node = typeof id === "string" ? pkg.nodes.get(id) : undefined;
      if (!node) fail(null, "nodes", (typeof id === "string" ? id : jsonText(id)) + " is no rule, closure or priority of the package");
      if (ids.has(id)) fail(null, "nodes", id + " is listed twice");
      ids.add(id);
      return node;
    });
    const m = new Model(pkg);
    const named = nodes.map(() => false);
    for (const [t, k] of [[D, "D"], [S, "S"], [C, "d"]]) {
      if (!Array.isArray(cert[k])) fail(null, TIER[t], "the certificate has no list `" + k + "`");
      cert[k].forEach((raw, i) => {
        let e;
        try { e = readEntry(pkg, raw, nodes.length); } catch (r) {
          if (typeof r !== "string") throw r;
          fail(null, TIER[t] + "[" + i + "]", r);
        }
        if (!e.fact) {
          named[e.node] = true;
          for (const b of e.beats) for (const n of b) named[n] = true;
        }
        const lk = key(e.lit);
        if (m.member[t].has(lk)) fail(litText(pkg, e.lit), TIER[t] + "[" + i + "]", "listed twice");
        m.member[t].set(lk, i);
        m.tiers[t].push(e);
      });
    }
    for (const t of [S, C]) {
      m.tiers[t].forEach((e, i) => {
        if (m.inD(e.lit)) fail(litText(pkg, e.lit), TIER[t] + "[" + i + "]", "listed in " + TIER[t] + " beyond +D, but it is +D");
      });
    }
    m.index();
    const applicable = m.applicable();
    m.sound(nodes, facts, applicable);
    m.fixpoint(facts, applicable);
    m.ruling(ruling, read);
    // Last, so that a certificate that lost an entry is rejected for what the entry held.
    const unnamed = named.indexOf(false);
    if (unnamed >= 0) fail(null, "nodes", cert.nodes[unnamed] + " is named by no entry");
    return unchecked.length ? { outcome: "certified", unchecked } : { outcome: "certified" };
  }

  // Checks the ruling line `rulingLine` of the case line `caseLine` (without its line break)
  // with the package `pkg` (from readPackage), under the capabilities `options.grants` (a
  // judgment fact without its grant is a case line clir refuses, as `clir rule` refuses it
  // without `--grant`): {case, outcome: "certified" | "not_ruled" | "rejected", and for a
  // rejection literal, step and reason, for an error line error}. `case` is the case line's
  // `case` value (numbers as JavaScript numbers: for showing), `caseJson` its JSON text as
  // written, less white space.
  //
  // No certificate proves a why-not answer or an explanation, so a ruling line carrying
  // `why_not` or `explanations` is rejected, as clir-check rejects it. A caller that shows them
  // for what they are, text no certificate proves, may set them aside
  // (`options.unproved: ["explanations", "why_not"]`): the rest of the line is checked, and a
  // certified verdict lists the keys set aside in `unchecked`.
  async function checkLine(pkg, caseLine, rulingLine, options) {
    const grants = options && Array.isArray(options.grants) ? options.grants : [];
    const setAside = options && Array.isArray(options.unproved) ? options.unproved : [];
    const read = readCase(pkg, caseLine, grants);
    const caseJson = read.case;
    // For showing: a lone surrogate an escape spells (a raw value is not decoded) as U+FFFD.
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
    const wellFormed = (v) => typeof v === "string" ? v.replace(lone, "\ufffd")
      : Array.isArray(v) ? v.map(wellFormed)
        : v !== null && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [wellFormed(k), wellFormed(x)])) : v;
    let plain = null;
    try { plain = wellFormed(JSON.parse(caseJson)); } catch (e) { plain = null; }
    try {
      const v = await check(pkg, caseLine, read, rulingLine, setAside);
      return Object.assign({ case: plain, caseJson }, v);
    } catch (f) {
      if (!(f instanceof Failure)) throw f;
      return { case: plain, caseJson, outcome: "rejected", literal: f.literal, step: f.step, reason: f.reason };
    }
  }

  return { FORMAT, sha256, readPackage, parsePackage, parseJson, checkLine };
})();
if (typeof module === "object" && module.exports) module.exports = ClirCheck;
