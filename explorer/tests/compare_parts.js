// The explorer's other studies' parts (issue 39), from the page's self-test: every part's steps
// passed its family's invariants in the page (conservation, no overlap: web/parts/*.js), and
// each part's preset equals an independent reference: `alloclab trace` run natively on the same
// case (TBuddy and Ouroboros' ring step for step; the bulk semaphore's Fig. 1(a) and 1(b) state
// by state; UAlloc's offsets; Gallatin's lanes; DynaSOAr's atomicOr per warp), and values worked
// by hand below from the papers' prose and the algorithms, each with its reason.
"use strict";
const { execFileSync } = require("child_process");

module.exports = function compareParts(parts, alloclab) {
  let bad = 0;
  const fail = msg => { console.error(msg); ++bad; };
  const eq = (what, got, want) => {
    if (JSON.stringify(got) !== JSON.stringify(want)) fail(`${what}: page ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  };
  if (!parts) { fail("the page ran no parts' self-test"); return bad; }
  let checked = 0;
  for (const [name, r] of Object.entries(parts)) {
    if (name === "walk" || name === "semaphore") continue;
    if (!r.run || r.bad.length) fail(`${name}: ${r.error || r.bad.slice(0, 5).join("; ")}`);
    checked += r.steps || 0;
  }
  for (const [name, r] of Object.entries(parts.semaphore || {})) {
    if (!r.run || r.bad.length) fail(`semaphore ${name}: ${r.error || r.bad.slice(0, 5).join("; ")}`);
    checked += r.steps || 0;
  }

  // Gelado & Garland's Fig. 1(b) (§3.3's prose, Alg. 1-2; core/tests/gelado_figure1_test.cpp
  // works the same by hand): T0 grows (0, 3, 0); T1-T3 reserve (0, 3, 3); T4 grows while T0 still
  // grows (0, 6, 3); T5-T7 reserve (0, 6, 6); T0's batch: signal(3, 3) gives (3, 3, 6); T1-T3
  // take, T4's batch gives (3, 0, 3); T5-T7 take: (0, 0, 0), 2 growers = 8 / 4.
  const b = parts.semaphore.fig1b.run.steps, cer = s => [s.C, s.E, s.R];
  eq("Fig. 1(b) after T0", cer(b[2]), [0, 3, 0]);
  eq("Fig. 1(b) after T1-T3 reserve", cer(b[11]), [0, 3, 3]);
  eq("Fig. 1(b) after T4", cer(b[13]), [0, 6, 3]);
  eq("Fig. 1(b) after T5-T7 reserve", cer(b[22]), [0, 6, 6]);
  eq("Fig. 1(b) after T0's batch", cer(b[23]), [3, 3, 6]);
  eq("Fig. 1(b) at the end", cer(b[b.length - 1]), [0, 0, 0]);
  eq("Fig. 1(b) roles", b[b.length - 1].threads.map(t => t.state), ["grown", "took", "took", "took", "grown", "took", "took", "took"]);
  // Fig. 1(a) (§3.2's prose): T0 sets S = -1, T1-T7 block; signal(4) gives S = 3; T1-T3 take,
  // T4 finds 0 and grows (S = -1); its batch: S = 3; T5-T7 take: S = 0; the same 2 growers, but
  // T4's growth only starts after T0's batch (serialised).
  const a = parts.semaphore.fig1a.run.steps;
  eq("Fig. 1(a) S step by step", a.map(s => s.S),
     [0, 0, -1, -1, -1, -1, -1, -1, -1, -1, 3, 3, 2, 2, 1, 1, 0, 0, -1, -1, -1, -1, 3, 3, 2, 2, 1, 1, 0]);
  eq("Fig. 1(a) roles", a[a.length - 1].threads.map(t => t.state), ["grown", "took", "took", "took", "grown", "took", "took", "took"]);
  // Both presets against `alloclab trace --figure 1a|1b` run natively: the same sequence of
  // semaphore states (consecutive repeats dropped: the page may show a state the trace folds into
  // one event) and as many growers.
  const dedupe = xs => xs.filter((x, i) => i === 0 || JSON.stringify(x) !== JSON.stringify(xs[i - 1]));
  for (const [fig, steps, state] of [["1a", a, s => s.S], ["1b", b, cer]]) {
    const native = JSON.parse(execFileSync(alloclab, ["trace", "--figure", fig, "--format", "json"], { encoding: "utf8" }));
    const nativeStates = [fig === "1a" ? 0 : [0, 0, 0]].concat(native.events.map(e => fig === "1a" ? e.S : [e.C, e.E, e.R]));
    eq(`Fig. ${fig} states equal alloclab trace`, dedupe(steps.map(state)), dedupe(nativeStates));
    eq(`Fig. ${fig} growers equal alloclab trace`, steps[steps.length - 1].threads.filter(t => t.state === "grown").length, native.growers);
  }
  // Free play, 7 waits of N = 2 with batches of 5 (14 units): every wait ends, the bulk
  // semaphore with at least ceil(14 / 5) = 3 growers; every unit a batch brought is held or in C.
  for (const kind of ["bulk", "counting"]) {
    const f = parts.semaphore["free_" + kind].run.steps, last = f[f.length - 1];
    if (last.threads.some(t => !["took", "grown"].includes(t.state))) fail(`free play (${kind}): a wait did not end`);
    const growers = last.threads.filter(t => t.state === "grown").length;
    if (growers < 3) fail(`free play (${kind}): ${growers} growers for 14 units in batches of 5`);
  }

  // UAlloc, one arena, 2 chunks of 64 bins (by hand from §4.2 and the layout: bins 0 and 1 hold
  // the chunk header and the 62 tails, a bin's objects start after its 128 B header): 8 B grows
  // (a chunk from TBuddy, bin 2, 3968 / 8 + 128 / 8 = 512 slots, C = 511) at 2 x 4096 + 128 =
  // 8320; the next 8 B takes slot 1 (8328); 100 B is class 4 (128 B): bin 3 at 12416, 31 + 1
  // slots; 1000 B is class 7 (1 KB): bin 4 at 16512, 3 slots, no tail; freeing request 0 and
  // asking 8 B again gives slot 0 back (8320); four 1 KB requests fill bin 4 (17536, 18560), then
  // grow bin 5 (20608, 21632); freeing request 7 (bin 4, slot 2) links bin 4 again: C = 2.
  const u = parts.ualloc.run.steps;
  eq("UAlloc offsets", u.slice(1).map(s => s.offset === undefined ? "free" : s.offset),
     [8320, 8328, 12416, 16512, "free", 8320, 17536, 18560, 20608, 21632, "free"]);
  eq("UAlloc chunks from TBuddy, bins initialised", u.slice(1).map(s => s.stats.chunk_refills + "/" + s.stats.refills).join(" "),
     "1/1 0/0 0/1 0/1 0/0 0/0 0/0 0/0 0/1 0/0 0/0");
  eq("UAlloc class 7 at the end (C, list)", [u[11].classes[7].C, u[11].classes[7].list], [2, [4, 5]]);
  eq("UAlloc bin 2's slots (8 B)", u[1].chunks[0].bins[2].slots, 512);
  // The same requests through `alloclab trace --allocator gg-ualloc` on 512 KiB (its fI frees the
  // I-th allocation: the page's -7 is the 7th allocation, f6): every allocation's offset.
  {
    const native = JSON.parse(execFileSync(alloclab, ["trace", "--allocator", "gg-ualloc", "--pool", "512KiB", "--ops",
      "a8,a8,a100,a1000,f0,a8,a1024,a1024,a1024,a1024,f6", "--format", "json"], { encoding: "utf8" }));
    eq("UAlloc: every allocation's offset equals alloclab trace", u.slice(1).filter(s => s.offset !== undefined).map(s => s.offset),
       native.steps.filter(st => st.op.startsWith("a")).map(st => st.offset));
  }

  // TBuddy: the page's run equals `alloclab trace --allocator gg-tbuddy` step for step.
  const keys = ["what", "node", "first_page", "pages", "splits", "merges", "levels", "sem_counts"];
  const pick = s => keys.map(k => s[k]);
  for (const [name, T, req] of [["tbuddy", 16, "1,2,1,4"], ["tbuddy_full", 8, "1,1,1,1,1,1,1,1,2"]]) {
    const native = JSON.parse(execFileSync(alloclab, ["trace", "--allocator", "gg-tbuddy", "--T", String(T), "--requests", req, "--format", "json"], { encoding: "utf8" }));
    const page = parts[name].run;
    eq(`${name}: the tree before`, page.steps[0].levels, native.levels_before);
    eq(`${name}: every operation against alloclab trace`, page.steps.slice(1).map(pick), native.steps.map(pick));
  }
  // Ouroboros' ring: equals `alloclab trace --allocator ouro-p-s` (both full checks).
  for (const [name, ops, printed] of [["queue", "e,e,e,d,d,e,e,e,d,d,d,e", false], ["queue_printed", "e,e,e,e,e,d", true]]) {
    const args = ["trace", "--allocator", "ouro-p-s", "--slots", "4", "--ops", ops, "--format", "json"];
    const native = JSON.parse(execFileSync(alloclab, printed ? args.concat(["--printed-check"]) : args, { encoding: "utf8" }));
    const k2 = ["what", "outcome", "fill_count", "front", "back", "slots", "stuck"];
    eq(`${name}: every operation against alloclab trace`, parts[name].run.steps.slice(1).map(s => k2.map(k => s[k])),
       native.steps.map(s => k2.map(k => s[k])));
  }
  // Variants P and C on the same requests, 3 chunks of 8 KiB (by hand from Alg. 3-5): 2048 B is
  // class 7, 4 pages a chunk. P: the first request grows the queue by chunk 0 (indices 0-3 on
  // back positions 0-3) and takes ticket 0; tickets 1-3 take pages 1-3; the fifth grows chunk 1
  // (indices 4-7) and takes ticket 4. 4096 B is class 8 (2 pages): chunk 2, ticket 0 of its own
  // queue. Freeing requests 0 and 1 writes indices 0 and 1 at back positions 8 and 9; the next two
  // tickets, 5 and 6, read indices 5 and 6 (first in, first out), chunk 1's pages 1 and 2. The
  // frees of requests 2, 3 and 4 take back positions 10, 11 and 12: 12 is slot 0 of the 12-slot
  // ring (it wrapped). C: pages 0-3 of chunk 0, then chunk 1's page 0; chunk 0 re-queued by the
  // first free, behind chunk 1, so the next two take chunk 1's pages 1 and 2; freeing request 3
  // leaves chunk 0 wholly free: flashed; freeing request 5 flashes chunk 2.
  const oq = parts.ouroqueues.run.steps, req = oq.slice(1);
  eq("P: tickets", req.filter(s => s.served).map(s => s.p_ticket), [0, 1, 2, 3, 4, 0, 5, 6]);
  eq("P: pages (chunk, page)", req.filter(s => s.served).map(s => [s.p_chunk, s.p_page]),
     [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [2, 0], [1, 1], [1, 2]]);
  eq("P: chunks typed", oq[6].p_chunks, [7, 7, 8]);
  eq("P: the frees' back positions", req.filter(s => s.freed !== undefined && s.freed !== 5).map(s => s.p_position), [8, 9, 10, 11, 12]);
  eq("P: position 12 wrapped to slot 0", oq[13].p_queues[0].ring[0], 4);
  eq("C: pages (chunk, page)", req.filter(s => s.served).map(s => [s.c_chunk, s.c_page]),
     [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [2, 0], [1, 1], [1, 2]]);
  eq("C: the queue of class 7 after the first two frees", oq[8].c_queues[0].entries, [1, 0]);
  eq("C: flashes", req.filter(s => s.c_flashed).map(s => s.freed), [3, 5]);

  // The walk model's uniform case by hand: c = 32 lanes, f = 8, D = 2: q = 4, r = 0, walk =
  // 2 + (8 x 4 x 3 / 2) / 32 = 3.5; a refill of the 4 chunks: (4 - 1) / 2 = 1.5.
  eq("Ouroboros walk (c 32, f 8, D 2)", [parts.walk.walk_uniform, parts.walk.walk_entries, parts.walk.walk_refill], [3.5, 3.5, 1.5]);

  // Gallatin on 4 empty segments of 32 KiB, 8 slices a block (by hand from Alg. 1-4): 4 lanes of
  // 16 B format segment 0 (the segment tree's first) for class 0 and take block 0's slices 0-3;
  // 8 lanes take slices 4-7 of block 0 (its last: the team swaps the slot) and 0-3 of block 1, in
  // two attempts (one atomicAdd each); 100 B is class 3 (128 B): segment 1, block 0, slice 0;
  // 4096 B is class 8: segment 2, whose one block is the segment.
  const g = parts.gallatin.run.steps, path = s => s.path.map(p => [p.segment, p.block, p.slice]);
  eq("Gallatin request 0", path(g[1]), [[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3]]);
  eq("Gallatin request 1", path(g[2]), [[0, 0, 4], [0, 0, 5], [0, 0, 6], [0, 0, 7], [0, 1, 0], [0, 1, 1], [0, 1, 2], [0, 1, 3]]);
  eq("Gallatin request 1: attempts (one atomicAdd each), segments formatted", [g[2].counts.attempts, g[2].counts.segments_formatted], [2, 0]);
  eq("Gallatin request 2 (100 B)", [g[3].class, path(g[3])], [3, [[1, 0, 0]]]);
  eq("Gallatin request 5 (4096 B)", [g[6].class, path(g[6])], [8, [[2, 0, 0]]]);
  // The same requests through `alloclab trace --allocator gallatin` (the same geometry: 32 KiB
  // segments, 8 slices a block; its fI frees the I-th allocation, here the I-th request): every
  // allocation's lanes land on the same (segment, block, slice).
  {
    const native = JSON.parse(execFileSync(alloclab, ["trace", "--allocator", "gallatin", "--pool", "128KiB", "--ops",
      "a16x4,a16x8,a100,a16x8,f0,a4096,f3,f1", "--format", "json"], { encoding: "utf8" }));
    const allocs = native.steps.filter(st => st.op.startsWith("a"));
    const pageAllocs = g.slice(1).filter((st, i) => !"16x4,16x8,100,16x8,-0,4096,-3,-1".split(",")[i].startsWith("-"));
    eq("Gallatin: every allocation's lanes equal alloclab trace", pageAllocs.map(path),
       allocs.map(st => st.lanes.map(l => [l.segment, l.block, l.slice])));
  }
  // Two segments; class 8's block (8 slices of 4 KiB) is a whole segment. A team of 8 lanes
  // takes segment 0's block whole and, having taken its last slice, swaps the slot for segment
  // 1's (formatted then); the next team of 8 takes that one and finds no segment left for the
  // swap (the slot empties); a third request finds neither a block nor a free segment: served 0.
  // Freeing the first team's 8 slices gives the block back and, all its blocks back, segment 0
  // goes back to the segment tree; the next request formats it again: segment 0, block 0, slice 0.
  const gf = parts.gallatin_full.run.steps;
  eq("Gallatin out of memory, then reuse", [gf[1].served, gf[2].served, gf[3].served, path(gf[5]), gf[5].counts.segments_formatted],
     [8, 8, 0, [[0, 0, 0]], 1]);
  eq("Gallatin: the segment tree after the free", gf[4].segments.map(g => g.free), [true, false]);
  // DynaSOAr, 4096 slots (2 levels: 64 words, 1 word). Rotation on, seed 0: claim j (warp j)
  // starts at bit j of each word: container j, slot j: 64 j + j = 0, 65, 130, 195; after f65 the
  // next claim (warp 5) takes 64 x 5 + 5 = 325. Each claim: 2 loads (one a level), 1 fetch_and.
  const dr = parts.dynasoar_rotate.run.steps.filter(s => s.done && s.kind === "claim");
  eq("DynaSOAr rotation: claimed slots", dr.map(s => s.result), [0, 65, 130, 195, 325]);
  eq("DynaSOAr rotation: a claim's loads, atomics", [dr[0].total.loads, dr[0].total.atomics], [2, 1]);
  // Rotation off: 64 claims take slots 0..63 (plain ffs); the 64th clears word 0's last bit, so
  // the clear propagates (clear-last): 2 fetch_and, level 1's bit 0 cleared. f5 sets word 0's
  // first bit again: set-first propagates (2 fetch_or). The next claim takes 5.
  const df = parts.dynasoar_ffs.run.steps, claims = df.filter(s => s.done && s.kind === "claim");
  eq("DynaSOAr ffs: claimed slots", claims.map(s => s.result), [...Array(64).keys()].concat([5]));
  eq("DynaSOAr ffs: the 64th claim's fetch_and (clear-last)", claims[63].total.atomics, 2);
  const free5 = df.find(s => s.done && s.kind === "free");
  eq("DynaSOAr ffs: f5's fetch_or (set-first)", free5.total.atomics, 2);
  eq("DynaSOAr ffs: level 1 after the 64th claim", claims[63].levels[1][0].slice(-1), "e");
  // 8192 slots: 3 levels (128 words, 2 words, 1 word); the top word has bits 0 and 1. The warp
  // is the operation's index (a, a, f0, a, a: warps 0, 1, 3, 4). Warp 1 starts at bit 1
  // everywhere: level 1 word 1, its bit 1 (container 65), slot 65 x 64 + 1 = 4161. Warp 3 wraps
  // round the top word to bit 0, then bit 3 twice: 3 x 64 + 3 = 195; warp 4: 260. Each claim:
  // 3 loads.
  eq("DynaSOAr 8192 slots: words per level", parts.dynasoar_3.run.steps[0].levels.map(l => l.length), [128, 2, 1]);
  const d3 = parts.dynasoar_3.run.steps.filter(s => s.done && s.kind === "claim");
  eq("DynaSOAr 8192 slots: claimed slots, a claim's loads", [d3.map(s => s.result), d3[0].total.loads], [[0, 4161, 195, 260], 3]);

  // Warp coalescing (§4.2), 4 free blocks, warps 1x8, 2x8, 1x32, 1x32 (by hand from Alg. 1 and
  // 6): coalesced, each warp issues one atomicOr per block its slots lie in: the first three fit
  // one block each (block 0 for type 1, block 1 for type 2, block 0's 56 free slots for 32), the
  // fourth takes block 0's last 24 and 8 of a new block (block 2): 1, 1, 1, 2. Each lane alone:
  // 8, 8, 32, 32. The same slots are taken either way: 8 + 8 + 32 + 32 = 80.
  for (const [name, want] of [["heap_coalesced", [1, 1, 1, 2]], ["heap_alone", [8, 8, 32, 32]]]) {
    const hs = parts[name].run.steps.slice(1);
    eq(`DynaSOAr ${name}: atomicOr per warp`, hs.map(s => s.reserves), want);
    eq(`DynaSOAr ${name}: slots per warp, blocks used`, [hs.map(s => s.slots.length), hs[3].blocks.map(b => b.type)], [[8, 8, 32, 32], [1, 2, 1, 0]]);
    // The same warps through `alloclab trace` on a heap of 4 blocks (256 pages): as many atomicOr.
    const algo = name === "heap_coalesced" ? "dynasoar" : "dynasoar-nocoal";
    const native = JSON.parse(execFileSync(alloclab, ["trace", "--allocator", algo, "--T", "256", "--ops", "a1x8,a2x8,a1x32,a1x32", "--format", "json"], { encoding: "utf8" }));
    eq(`DynaSOAr ${name}: atomicOr per warp equal alloclab trace --allocator ${algo}`, hs.map(s => s.reserves), native.steps.map(st => st.reserves));
  }

  if (!bad) console.log(`explorer parts: ${checked} animation steps keep their invariants; TBuddy, Ouroboros' ring, Fig. 1(a), 1(b), UAlloc's offsets, Gallatin's paths and DynaSOAr's coalescing equal alloclab trace; Ouroboros' P and C, Fig. 1(a), 1(b), UAlloc's bins, Gallatin's path, DynaSOAr's levels and coalescing equal the hand-worked values`);
  return bad;
};
