// Runs the review page's checker (src/cli/serve/check.js) over pairs of lines, for the Rust
// tests (tests/js_checker_*.rs): `node driver.js CHECK_JS PACKAGE_FILE [GRANTS_JSON [OPTIONS_JSON]]`
// (checkLine's options, the grants among them), then one
// `{"case":LINE,"ruling":LINE}` a line on stdin; one verdict a line on stdout, as checkLine
// gives it. A package check.js refuses is one line `{"package_error":MESSAGE}`.
"use strict";
const fs = require("fs");
const ClirCheck = require(process.argv[2]);
(async () => {
  let pkg;
  try { pkg = await ClirCheck.readPackage(fs.readFileSync(process.argv[3])); } catch (e) {
    process.stdout.write(JSON.stringify({ package_error: e.message }) + "\n");
    return;
  }
  const grants = process.argv[4] ? JSON.parse(process.argv[4]) : [];
  const options = Object.assign(process.argv[5] ? JSON.parse(process.argv[5]) : {}, { grants });
  const pairs = fs.readFileSync(0, "utf8").split("\n").filter((l) => l);
  const out = [JSON.stringify({ package: { name: pkg.name, version: pkg.version, seal: pkg.seal } })];
  for (const p of pairs) {
    const { case: c, ruling } = JSON.parse(p);
    out.push(JSON.stringify(await ClirCheck.checkLine(pkg, c, ruling, options)));
  }
  process.stdout.write(out.join("\n") + "\n");
})().catch((e) => { console.error(e && e.stack || e); process.exit(2); });
