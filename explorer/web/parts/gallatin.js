// Gallatin (McCoy & Pandey, PPoPP'24): each request's path from the segment tree through a block
// tree to a block's slices (Alg. 1-4), on a pool of a few 32 KiB segments with 8 slices a block.
// gallatinRun runs the core's Ops in WebAssembly and checks the structure after every request.
"use strict";
function gaDraw(run, i) {
  const s = run.steps[i];
  const here = new Set((s.path || []).map(p => `${p.segment}/${p.block}`));
  let h = `<p>segment tree (free segments): ${s.segments.map((g, k) => cellBox(g.free ? "free" : "used", k, `segment ${k}`)).join("")}</p>`;
  h += `<p>block trees (a segment with blocks of class k to hand out): ${
    [...Array(9).keys()].map(k => { const m = s.segments.map((g, j) => g.block_trees.includes(k) ? j : null).filter(x => x !== null);
      return m.length ? `class ${k}: {${m.join(", ")}}` : ""; }).filter(x => x).join(" · ") || "none"}</p>`;
  s.segments.forEach((g, k) => {
    if (g.class < 0) return;
    h += `<div>segment ${k}, class ${g.class} (${16 << g.class} B slices), ${g.available} blocks in its ring: `;
    h += g.blocks.map((b, j) => cellBox(here.has(`${k}/${j}`) ? "taken" : b.handed < 0 ? "free" : b.live > 0 ? "used" : "earlier",
      b.handed < 0 ? "" : b.live, `block ${j}: ${b.handed < 0 ? "in the ring" : `${b.handed} slices handed out, ${b.freed} freed, ${b.live} live`}`)).join("");
    h += `</div>`;
  });
  if (s.path) {
    h += `<p>${esc(s.what)}: ${s.served} of ${s.lanes} served: ${s.path.map(p => `seg ${p.segment} / block ${p.block} / slice ${p.slice}`).join(", ")}</p>`;
  }
  if (s.counts) {
    const c = s.counts;
    h += table(["this request", "value"], [
      ["atomics on the memory table (malloc counter, rings, counts)", c.atomics],
      ["the team's one atomicAdd (Alg. 3): attempts on a slot", c.attempts],
      ["vEB loads, levels touched, atomics", `${c.veb_loads}, ${c.veb_levels}, ${c.veb_atomics}`],
      ["blocks taken from a segment, segments formatted", `${c.block_refills}, ${c.segments_formatted}`],
      ["blocks, segments given back", `${c.blocks_returned}, ${c.segments_returned}`],
      ["lost races", c.restarts]]);
  }
  h += `<p class="note">each vEB tree has ${run.veb_levels} level(s) of 64-bit words for ${run.segments} segments; structure check: ${s.check ? esc(s.check) : "consistent"}</p>`;
  return h;
}
function gaLoad() { return JSON.parse(M.gallatinRun(num("ga-segments"), val("ga-requests"))); }
// Invariants after every request: the structure check (every tree consistent, counters equal to
// the slices handed out); no two live slices overlap and each lies in the pool (no overlap);
// the live slices the requests hold equal the live counts the blocks show (conservation).
function gaInvariants(run) {
  const bad = [], pool = run.segments * run.segment_bytes, live = new Map();
  run.steps.forEach((s, i) => {
    if (s.check) bad.push(`step ${i}: ${s.check}`);
    if (s.path) live.set(i - 1, s.path.map(p => [p.offset, s.slice_bytes]));
    if (s.freed !== undefined) live.delete(s.freed);
    const spans = [...live.values()].flat().sort((a, b) => a[0] - b[0]);
    spans.forEach((p, k) => {
      if (p[0] + p[1] > pool) bad.push(`step ${i}: a slice past the pool`);
      if (k && spans[k - 1][0] + spans[k - 1][1] > p[0]) bad.push(`step ${i}: slices at ${spans[k - 1][0]} and ${p[0]} overlap`);
    });
    const shown = s.segments.reduce((a, g) => a + g.blocks.reduce((b, x) => b + x.live, 0), 0);
    if (shown !== spans.length) bad.push(`step ${i}: ${spans.length} slices held, the blocks count ${shown}`);
  });
  return bad;
}
function gaSetup() {
  makePart("gallatin", "Gallatin: a request's path",
    `McCoy &amp; Pandey, "Gallatin: a general-purpose GPU memory manager", PPoPP'24
     (doi:10.1145/3627535.3638499): a request of b bytes is served from class k (16 B &lt;&lt; k slices) by
     its SM's block buffer slot: the team of lanes does one atomicAdd on the block's malloc counter;
     an empty slot takes a block from the first segment in block tree k (a vEB tree), and with none,
     a segment from the segment tree is formatted for k. Requests: bytes, or bytes x lanes (a warp
     team); -i frees request i. Green: blocks this request used.`,
    `${slider("ga-segments", "segments (32 KiB each)", 1, 16, 4)} <label for="ga-requests">requests</label>
     <input id="ga-requests" value="16x4,16x8,100,16x8,-0,4096,-3,-1" size="40">`,
    gaLoad, gaDraw);
}
