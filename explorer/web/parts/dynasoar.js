// DynaSOAr (Springer & Masuhara, ECOOP'19): the hierarchical bitmap of free slots, one memory
// operation a step: a claim's try_find_set reads one word a level top-down, its try_clear clears
// the bit and, when it cleared the container's last bit, the bit above (clear-last); a free sets
// the bit and, when it set the container's first bit, the bit above (set-first). bitmapRun runs
// the core's step machines in WebAssembly.
"use strict";
function dsDraw(run, i) {
  const s = run.steps[i];
  const touched = new Set(s.touched.map(t => `${t[0]}/${t[1]}`));
  let h = "";
  for (let l = s.levels.length - 1; l >= 0; --l) {
    h += `<div class="note">level ${l}: ${s.levels[l].length} word(s)</div>`;
    const levelBits = l === 0 ? run.bits : s.levels[l - 1].length;
    s.levels[l].forEach((hex, w) => {
      const bits = wordBits(hex).slice(0, Math.max(0, Math.min(64, levelBits - w * 64)));
      h += `<div class="bits${touched.has(`${l}/${w}`) ? " touched" : ""}" title="level ${l}, word ${w}">${
        bits.map(b => `<i class="${b ? "b1" : "b0"}"></i>`).join("")}</div>`;
    });
  }
  if (i > 0) {
    const c = s.counts;
    h += `<p>${s.kind} #${s.op}: ${esc(s.what)} (${c.loads} load, ${c.atomics} atomic)${s.done ?
      (s.kind === "claim" ? `: slot ${s.result}` : `: slot ${s.slot} free again`) +
      `, in all ${s.total.loads} loads, ${s.total.atomics} atomics over ${s.total.levels} levels` : ""}</p>`;
  }
  h += `<p class="note">${run.levels} level(s) for ${run.bits} slots: ceil(log64 N). Blue: set (free), red: clear; outlined: the word this step changed.</p>`;
  return h;
}
function dsLoad() {
  return JSON.parse(M.bitmapRun(num("ds-bits"), val("ds-ops"), document.getElementById("ds-rotate").checked, num("ds-seed")));
}
// Invariants after every step: the slots claimed and not freed never repeat (no slot handed out
// twice); free bits + live slots = N (conservation); at the end of each operation every bit of a
// level above is the OR of its container (Def. 1), recomputed here from the words.
function dsInvariants(run) {
  const bad = [], live = new Set();
  run.steps.forEach((s, i) => {
    if (s.done && s.kind === "claim" && s.result >= 0) {
      if (live.has(s.result)) bad.push(`step ${i}: slot ${s.result} claimed twice`);
      live.add(s.result);
    }
    if (s.done && s.kind === "free") live.delete(s.slot);
    const level0 = s.levels[0].map(wordBits).flat().slice(0, run.bits);
    const free = level0.reduce((a, b) => a + b, 0);
    if (i === 0 || s.done) {
      if (free + live.size !== run.bits) bad.push(`step ${i}: ${free} free + ${live.size} live != ${run.bits}`);
      for (const slot of live) if (level0[slot]) bad.push(`step ${i}: live slot ${slot} is marked free`);
      for (let l = 0; l + 1 < s.levels.length; ++l) {
        const up = s.levels[l + 1].map(wordBits).flat();
        s.levels[l].forEach((hex, w) => { if (up[w] !== (BigInt("0x" + hex) !== 0n ? 1 : 0)) bad.push(`step ${i}: level ${l + 1} bit ${w} against its container`); });
      }
      if (s.check) bad.push(`step ${i}: ${s.check}`);
    }
  });
  return bad;
}
function dsSetup() {
  makePart("dynasoar", "DynaSOAr: the hierarchical bitmap",
    `Springer &amp; Masuhara, "DynaSOAr: a parallel memory allocator for object-oriented programming
     on GPUs with efficient memory access", ECOOP'19 (doi:10.4230/LIPIcs.ECOOP.2019.17), §4.1-4.2:
     free slots as set bits, one level above every 64 (a bit says its container has a set bit).
     Operations: a (claim a free slot: allocate), fN (free slot N). Rotation (§4.2) starts each
     claim's search at bit (seed + warp) mod 64 of every word, so warps spread over the containers;
     off, every claim takes the first set bit (plain ffs) and they all meet on the same words.
     Warp coalescing is the next part.`,
    `${slider("ds-bits", "slots N", 1, 8192, 4096)} <label><input type="checkbox" id="ds-rotate" checked> rotation</label>
     ${slider("ds-seed", "seed", 0, 63, 0)} <label for="ds-ops">operations</label> <input id="ds-ops" value="a,a,a,a,f65,a" size="40">`,
    dsLoad, dsDraw);
}

// DynaSOAr's heap with warp coalescing (heapRun): warps of L lanes allocating objects of n
// pages (a block holds 64 / n); with coalescing the leader reserves its lanes' slots of one block
// in one atomicOr (Alg. 6), without it every lane runs Alg. 1 alone.
function dhDraw(run, i) {
  const s = run.steps[i];
  const mine = new Set((s.slots || []).map(x => `${x.block}/${x.slot}`));
  let h = s.blocks.map((b, k) => {
    const bits = wordBits(b.bitmap);
    return `<div><span class="note">block ${k}: ${b.free ? "free" : `type ${b.type} (${b.valid} slots)${b.active ? ", active" : ", full"}`}</span><br>${
      b.free ? "" : `<span class="bits">${bits.slice(0, b.valid).map((x, j) => `<i class="${mine.has(`${k}/${j}`) ? "b2" : x ? "b0" : "b1"}"></i>`).join("")}</span>`}</div>`;
  }).join("");
  if (i > 0)
    h += `<p>${esc(s.what)}: ${s.slots.length} slots, ${s.failed} failed; ${s.reserves} atomicOr on block bitmaps (Alg. 6),
      ${s.bitmap_atomics} on the block bitmaps free / allocated / active, ${s.lookups} lookups, ${s.blocks_initialised} blocks initialised</p>`;
  h += `<p class="note">slots: blue free, red taken, green taken by this warp. Check: ${s.check ? esc(s.check) : "consistent"}</p>`;
  return h;
}
function dhLoad() {
  return JSON.parse(M.heapRun(num("dh-blocks"), val("dh-warps"), document.getElementById("dh-coalesce").checked,
                              document.getElementById("dh-rotate").checked));
}
// Invariants after every warp: no slot held twice (no overlap); each block's taken valid slots
// equal the slots the warps hold in it and a free block holds none (conservation); with
// coalescing one atomicOr per block a warp's slots lie in, without it one per lane.
function dhInvariants(run) {
  const bad = [], held = new Set();
  run.steps.forEach((s, i) => {
    if (s.check) bad.push(`step ${i}: ${s.check}`);
    for (const x of s.slots || []) {
      const key = `${x.block}/${x.slot}`;
      if (held.has(key)) bad.push(`step ${i}: slot ${key} taken twice`);
      held.add(key);
    }
    s.blocks.forEach((b, k) => {
      const n = [...held].filter(key => key.startsWith(`${k}/`)).length;
      const taken = b.free ? 0 : wordBits(b.bitmap).slice(0, b.valid).reduce((a, x) => a + x, 0);
      if (taken !== n) bad.push(`step ${i}: block ${k}: ${taken} slots taken, ${n} held`);
    });
    if (i > 0) {
      const blocks = new Set(s.slots.map(x => x.block)).size;
      const want = run.coalesce ? blocks : s.lanes;
      if (s.reserves !== want) bad.push(`step ${i}: ${s.reserves} atomicOr, expected ${want}`);
    }
  });
  return bad;
}
function dhSetup() {
  makePart("dynasoarheap", "DynaSOAr: warp coalescing",
    `DynaSOAr's allocate (Alg. 1) and Block::reserve (Alg. 6) on a heap of blocks of 64 slots:
     warps nxL (L lanes asking objects of n pages; a block of type n holds 64 / n). With
     coalescing (§4.2) the warp's leader takes its lanes' slots of one block in one atomicOr;
     without it every lane allocates alone: as many atomicOr as lanes.`,
    `${slider("dh-blocks", "blocks", 1, 64, 4)} <label><input type="checkbox" id="dh-coalesce" checked> coalescing</label>
     <label><input type="checkbox" id="dh-rotate" checked> rotation</label> <label for="dh-warps">warps</label>
     <input id="dh-warps" value="1x8,2x8,1x32,1x32" size="40">`,
    dhLoad, dhDraw);
}
