// The certificate checker of the review page (docs/CERTIFICATES.md): a second implementation,
// in plain JavaScript, of the checks of clir-check/src/check.rs, sharing no code with clir or
// clir-check. `clir serve` puts this file into the page's one script (src/cli/serve/mod.rs);
// tests/js_checker_agrees.rs runs it under node over the certificates and mutations the Rust
// checker is tested on and requires the same verdicts. It reads the package file's bytes, a
// case line and its certified ruling line, and says `certified`, `not_ruled` or `rejected`
// with the literal, the step and the reason. Hashes through WebCrypto (`crypto.subtle`), which
// browsers and node (>= 19, `globalThis.crypto`) both have.
//
// Integers are read by JSON.parse, as doubles: an Integer beyond +-2^53 cannot be read exactly
// and is refused as not an Integer (a rejection, never a wrong acceptance); a whole number
// spelt with a fraction or exponent (`1.0`, `1e2`) is read as that number (DECISIONS 53).
"use strict";
const ClirCheck = (() => {
  const FORMAT = "clir.certificate/1";
  const MATCH_BUDGET = 100000;
  const INTEGER = "urn:law:std#Integer";
  const STRING = "urn:law:std#String";
  // Layers: +D, +S beyond +D, +d beyond +D (clir-check's `Tier`).
  const D = 0, S = 1, C = 2;
  const TIER = ["+D", "+S", "+d"];
  // Sets a body literal is looked up in (clir-check's `Set`).
  const DEFINITE = "D", SUPPORTED = "S", CONCLUDED = "d";

  class Failure {
    constructor(literal, step, reason) { this.literal = literal; this.step = step; this.reason = reason; }
  }
  const fail = (literal, step, reason) => { throw new Failure(literal, step, reason); };
  const lineFailure = (reason) => new Failure(null, "line", reason);

  async function sha256(bytes) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    return "sha256:" + Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
  const json = (v) => JSON.stringify(v);

  // ---- The package (clir-check/src/package.rs) ----------------------------------------------

  function field(o, key, at) {
    if (!Object.prototype.hasOwnProperty.call(o, key)) throw new Error(at + ": no `" + key + "`");
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

  // Reads a package document (its text) sealed `seal`; throws an Error saying what part of it
  // could not be read.
  function parsePackage(source, seal) {
    let doc;
    try { doc = JSON.parse(source); } catch (e) { throw new Error("the package is not JSON: " + e.message); }
    const nodes = list(object(doc, "the package"), "nodes", "the package");
    const relations = [], relIds = new Map(), constants = new Map();
    for (const raw of nodes) {
      const n = object(raw, "a node");
      if (n.kind !== "symbol_decl") continue;
      const id = text(n, "id", "a symbol_decl");
      const kind = text(n, "symbolKind", id);
      if (kind === "constant") constants.set(id, text(n, "name", id));
      if (kind === "relation") {
        const integer = list(n, "parameters", id).map((p) => text(object(field(object(p, id), "type", id), id), "name", id) === INTEGER);
        relIds.set(id, relations.length);
        relations.push({ name: text(n, "name", id), integer, institutional: n.relationKind === "institutional" });
      }
    }
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
          if (!Number.isSafeInteger(v)) throw new Error(at + ": not an Integer");
          return { val: v === 0 ? 0 : v };
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
    return { seal, relations, byName, rules, priorities, closures, nodes: nodeIx };
  }

  // Reads the package file's bytes (a Uint8Array or ArrayBuffer): its seal is their sha256.
  async function readPackage(bytes) {
    const seal = await sha256(bytes);
    let source;
    try { source = new TextDecoder("utf-8", { fatal: true }).decode(bytes); } catch (e) { throw new Error("the package is not UTF-8"); }
    return parsePackage(source, seal);
  }

  // ---- Literals ---------------------------------------------------------------------------

  // A literal: relation index, strong negation, values (a number for an Integer, a string for
  // a name); its key identifies it in maps and sets.
  const key = (l) => l.rel + (l.neg ? "~" : "+") + json(l.args);
  const cmpValue = (a, b) => {
    const ta = typeof a === "number", tb = typeof b === "number";
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
    const args = l.args.map((a) => typeof a === "number" ? String(a) : (a !== "" && !QUOTED.test(a) ? a : json(a)));
    return (l.neg ? "~" : "") + pkg.relations[l.rel].name + "(" + args.join(",") + ")";
  }

  // A tuple of relation `rel` from JSON arguments; throws a reason string.
  function tuple(pkg, rel, args) {
    const r = pkg.relations[rel];
    if (args.length !== r.integer.length) throw "`" + r.name + "` takes " + r.integer.length + " arguments, got " + args.length;
    return r.integer.map((int, i) => {
      const a = args[i];
      if (int && Number.isSafeInteger(a)) return a === 0 ? 0 : a;
      if (!int && typeof a === "string") return a;
      throw "`" + r.name + "`: argument " + json(a) + " is not of its parameter's type";
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

  const isWhole = (v) => typeof v === "number" && Number.isInteger(v) && v >= 0;
  function readRef(v) {
    if (typeof v !== "string") throw "a premise is a string such as \"D3\"";
    const t = { D, S, d: C }[v[0]];
    if (t === undefined) throw "premise `" + v + "` names no layer";
    const digits = v.slice(1);
    if (!/^\+?[0-9]+$/.test(digits) || BigInt(digits) > 18446744073709551615n) throw "premise `" + v + "` has no index";
    return { t, i: Number(digits) };
  }

  function readEntry(pkg, v, nodes) {
    if (!Array.isArray(v)) throw "an entry is a list [rank, literal, how]";
    if (v.length < 3 || v.length > 4) throw "an entry is a list [rank, literal, how] or [rank, literal, how, attacks]";
    // 2^64 itself reads as the double of 2^64 - 1: accepted, as the largest rank is.
    if (!isWhole(v[0]) || v[0] > 2 ** 64) throw "a rank is a whole number below 2^64";
    const rank = v[0], lit = readLiteral(pkg, v[1]);
    const nodeIx = (x) => {
      if (!isWhole(x) || x >= nodes) throw "a node index out of the node list";
      return x;
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
    if (typeof x !== "number" || typeof y !== "number") return null;
    const [bx, by] = [BigInt(x), BigInt(y)];
    const r = Number(BigInt.asIntN(64, t.op === "+" ? bx + by : t.op === "-" ? bx - by : bx * by));
    return r === 0 ? 0 : r;
  }

  function compare(op, l, r) {
    if (op === "eq") return l === r;
    if (op === "ne") return l !== r;
    if (typeof l !== "number" || typeof r !== "number") return false;
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
      const ik = k + json(cols);
      let ix = this.indices.get(ik);
      if (!ix) {
        ix = new Map();
        all.forEach((t, i) => {
          const kk = json(cols.map((c) => t[c]));
          if (!ix.has(kk)) ix.set(kk, []);
          ix.get(kk).push(i);
        });
        this.indices.set(ik, ix);
      }
      return (ix.get(json(vals)) || []).map((i) => all[i]);
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
    // (`definite`) or as their status asks, its comparisons and negations true.
    solve(rule, definite) {
      const found = [];
      if (rule.never) return found;
      const lits = rule.body.filter((i) => i.literal).map((i) => [definite ? DEFINITE : i.supported ? SUPPORTED : CONCLUDED, i.lit]);
      const order = [], known = rule.vars.map(() => false);
      while (order.length < lits.length) {
        let best = -1, bestScore = -1;
        lits.forEach(([, p], i) => {
          if (order.includes(i)) return;
          const score = p.args.filter((t) => !(t.v !== undefined && !known[t.v])).length;
          if (score > bestScore) { best = i; bestScore = score; }
        });
        for (const t of lits[best][1].args) if (t.v !== undefined) known[t.v] = true;
        order.push(best);
      }
      const b = rule.vars.map(() => null);
      const join = (depth) => {
        if (depth === order.length) {
          if (this.itemsHold(rule, b)) found.push(b.slice());
          return;
        }
        const [set, p] = lits[order[depth]];
        const [cols, vals] = this.bound(p, b);
        const bound = [];
        for (const t of this.lookup(set, p.rel, p.negative, cols, vals)) {
          if (unify(p, t, b, bound)) join(depth + 1);
          undo(b, bound, 0);
        }
      };
      join(0);
      return found;
    }
    itemsHold(rule, b) {
      return rule.body.every((i) => {
        if (i.literal) return true;
        if (i.compare) {
          const l = evalTerm(i.l, b), r = evalTerm(i.r, b);
          return l !== null && r !== null && compare(i.compare, l, r);
        }
        const [cols, vals] = this.bound(i.not, b);
        return this.lookup(CONCLUDED, i.not.rel, i.not.negative, cols, vals).length === 0;
      });
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
            const p = this.tiers[r.t][r.i];
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
    ruling(ruling) {
      const pkg = this.pkg;
      const listed = (k) => {
        const rels = ruling[k];
        if (!isObject(rels)) fail(null, "ruling", "the ruling has no object `" + k + "`");
        const out = new Map();
        for (const [name, tuples] of Object.entries(rels)) {
          for (const t of Array.isArray(tuples) ? tuples : []) {
            try {
              const l = readLiteral(pkg, [name].concat(Array.isArray(t) ? t : []));
              out.set(key(l), l);
            } catch (r) {
              if (typeof r !== "string") throw r;
              throw lineFailure("the ruling's `" + k + "`: " + r);
            }
          }
        }
        return out;
      };
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
      if (json(theirs) !== json(contradictions)) {
        const show = (xs) => "[" + xs.map(json).join(", ") + "]";
        fail(null, "ruling", "the contradictions are " + show(contradictions) + ", the ruling says " + show(theirs));
      }
    }
  }

  // Deep equality of two JSON values.
  function same(a, b) {
    if (a === b) return true;
    if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
    if (isObject(a) && isObject(b)) {
      const ka = Object.keys(a), kb = Object.keys(b);
      return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && same(a[k], b[k]));
    }
    return false;
  }

  function readFacts(pkg, c) {
    const bad = (why) => lineFailure("the case line's facts cannot be read: " + why);
    if (!isObject(c) || !isObject(c.facts)) throw bad("no object `facts`");
    const out = new Map();
    for (const k of Object.keys(c.facts).sort()) {
      const neg = k.startsWith("~"), name = neg ? k.slice(1) : k;
      if (!pkg.byName.has(name)) throw bad("unknown relation `" + name + "`");
      const rel = pkg.byName.get(name), tuples = c.facts[k];
      if (!Array.isArray(tuples)) throw bad("`" + k + "` is not a list");
      for (const t of tuples) {
        let args;
        try { args = tuple(pkg, rel, Array.isArray(t) ? t : []); } catch (r) { throw bad(r); }
        const l = { rel, neg, args };
        out.set(key(l), l);
      }
    }
    return out;
  }

  async function check(pkg, caseLine, parsedCase, rulingLine) {
    let ruling;
    try { ruling = JSON.parse(rulingLine); } catch (e) { throw lineFailure("the ruling line is not JSON: " + e.message); }
    if (!isObject(ruling)) throw lineFailure("the ruling line is not an object");
    if (Object.prototype.hasOwnProperty.call(ruling, "error")) {
      return { outcome: "not_ruled", error: typeof ruling.error === "string" ? ruling.error : "" };
    }
    const cert = ruling.certificate;
    if (!isObject(cert)) fail(null, "certificate", "the ruling line has no certificate (rule with --certify)");
    const str = (k) => typeof cert[k] === "string" ? cert[k] : "";
    if (str("format") !== FORMAT) fail(null, "certificate", "the format is not `" + FORMAT + "`");
    if (str("seal") !== pkg.seal) fail(null, "seal", "the certificate is of the package sealed " + str("seal") + ", not " + pkg.seal);
    const hash = await sha256(new TextEncoder().encode(caseLine));
    if (str("case") !== hash) fail(null, "case", "the certificate is of the case line hashed " + str("case") + ", not " + hash);
    if (parsedCase.error !== undefined) throw lineFailure("the case line is not JSON: " + parsedCase.error);
    const c = parsedCase.value;
    const caseOf = (v) => isObject(v) && Object.prototype.hasOwnProperty.call(v, "case") ? v.case : undefined;
    if (!same(caseOf(c), caseOf(ruling))) fail(null, "case", "the ruling's `case` is not the case line's");
    const facts = readFacts(pkg, c);
    if (!Array.isArray(cert.nodes)) fail(null, "nodes", "no list of nodes");
    const nodes = cert.nodes.map((id) => {
      const node = typeof id === "string" ? pkg.nodes.get(id) : undefined;
      if (!node) fail(null, "nodes", (typeof id === "string" ? id : json(id)) + " is no rule, closure or priority of the package");
      return node;
    });
    const m = new Model(pkg);
    for (const [t, k] of [[D, "D"], [S, "S"], [C, "d"]]) {
      if (!Array.isArray(cert[k])) fail(null, TIER[t], "the certificate has no list `" + k + "`");
      cert[k].forEach((raw, i) => {
        let e;
        try { e = readEntry(pkg, raw, nodes.length); } catch (r) {
          if (typeof r !== "string") throw r;
          fail(null, TIER[t] + "[" + i + "]", r);
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
    m.ruling(ruling);
    return { outcome: "certified" };
  }

  // Checks the ruling line `rulingLine` of the case line `caseLine` (without its line break)
  // with the package `pkg` (from readPackage): {case, outcome: "certified" | "not_ruled" |
  // "rejected", and for a rejection literal, step and reason, for an error line error}.
  async function checkLine(pkg, caseLine, rulingLine) {
    let parsed;
    try { parsed = { value: JSON.parse(caseLine) }; } catch (e) { parsed = { error: e.message }; }
    const caseValue = isObject(parsed.value) && Object.prototype.hasOwnProperty.call(parsed.value, "case") ? parsed.value.case : null;
    try {
      return Object.assign({ case: caseValue }, await check(pkg, caseLine, parsed, rulingLine));
    } catch (f) {
      if (!(f instanceof Failure)) throw f;
      return { case: caseValue, outcome: "rejected", literal: f.literal, step: f.step, reason: f.reason };
    }
  }

  return { FORMAT, sha256, readPackage, parsePackage, checkLine };
})();
if (typeof module === "object" && module.exports) module.exports = ClirCheck;
