// Compares the explorer page's self-test (the <pre id="selftest"> of the DOM Chromium dumped)
// with alloclab run natively: the model at each point (relative 1e-9: the same C++ code, only
// libm may differ in the last bits), Figure 3's trace probe for probe (the same random streams),
// and the animation's conservation; the other studies' parts in compare_parts.js. Usage: node compare.js DOM ALLOCLAB
"use strict";
const fs = require("fs");
const { execFileSync } = require("child_process");
const [dom, alloclab] = process.argv.slice(2);
const html = fs.readFileSync(dom, "utf8");
const m = html.match(/<pre id="selftest">([^<]*)<\/pre>/);
if (!m || !m[1]) { console.error("the page wrote no self-test (did the module load?)"); process.exit(1); }
const t = JSON.parse(m[1].replace(/&quot;/g, '"').replace(/&amp;/g, "&"));
let bad = 0;
const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.abs(b);
for (const p of t.points) {
  const args = ["model", "--allocator", p.algo, "--N", String(p.N), "--A", String(p.A), "--T", String(p.T),
                "--w", String(p.w), "--format", "json"];
  const native = JSON.parse(execFileSync(alloclab, args, { encoding: "utf8" }))[0];
  for (const k of ["tas", "was"]) {
    if (!close(Number(p[k]), native[k])) { console.error(`${p.algo} N=${p.N} A=${p.A} T=${p.T} w=${p.w}: ${k} page ${p[k]}, alloclab model ${native[k]}`); ++bad; }
  }
  if (p.tas_rounds !== "") {
    const r = JSON.parse(execFileSync(alloclab, args.concat(["--schedule", "rounds"]), { encoding: "utf8" }))[0];
    for (const k of ["tas", "was"]) {
      if (!close(Number(p[k + "_rounds"]), r[k])) { console.error(`${p.algo} N=${p.N}: ${k} rounds page ${p[k + "_rounds"]}, alloclab ${r[k]}`); ++bad; }
    }
  }
}
const native = JSON.parse(execFileSync(alloclab, ["trace", "--allocator", "rw", "--N", "7", "--A", "9", "--T", "16", "--format", "json"], { encoding: "utf8" }));
const same = JSON.stringify(native.rounds.map(r => r.probes.map(p => [p.thread, p.target, p.won]))) ===
             JSON.stringify(t.figure3.rounds.map(r => r.probes.map(p => [p.thread, p.target, p.won])));
if (!same) { console.error("Figure 3's trace differs between the page and alloclab trace"); ++bad; }
if (!t.conserved || t.rounds_checked === 0) { console.error(`the animation lost or gained pages (${t.rounds_checked} rounds checked)`); ++bad; }
bad += require("./compare_parts.js")(t.parts, alloclab);
if (bad) process.exit(1);
console.log(`explorer page: ${t.points.length} points equal alloclab model's, Figure 3's trace equals alloclab trace's, ${t.rounds_checked} animation rounds conserve pages; the other studies' parts: see above`);
