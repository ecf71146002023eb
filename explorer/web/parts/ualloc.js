// Gelado & Garland's UAlloc (PPoPP'19 §4.2): one arena on a small TBuddy pool; each request's
// class (8 B .. 1 KB), the chunk a grower takes from TBuddy, the 4 KB bins it initialises (a bin
// is a batch of its class's bulk semaphore), and the bins filling. uallocRun runs the core's
// step machines in WebAssembly and checks the arena after every request.
"use strict";
function uaDraw(run, i) {
  const s = run.steps[i];
  let h = "";
  s.chunks.forEach((c, ci) => {
    if (!c.taken) { h += `<p>chunk ${ci}: free in TBuddy</p>`; return; }
    h += `<div>chunk ${ci}: ${c.bins.map(b => {
      if (!b.used) return cellBox("free", "", `bin ${b.bin}: free`);
      if (b.class === undefined) return cellBox("earlier", "h", `bin ${b.bin}: the chunk header and tails`);
      const mine = s.bin === b.bin && s.chunk === ci;
      return cellBox(mine ? "taken" : b.free === 0 ? "used" : "wait", b.class,
        `bin ${b.bin}: class ${b.class} (${8 << b.class} B), ${b.slots - b.free} of ${b.slots} slots used${b.listed ? ", on the free list" : ""}`);
    }).join("")}</div>`;
  });
  h += table(["class", "object bytes", "C (free slots listed)", "E", "R", "free list (bins)"],
    s.classes.map((c, k) => [k, 8 << k, c.C, c.E, c.R, c.list.join(" → ") || "empty"]).filter(r => r[2] || r[5] !== "empty"));
  if (s.stats) {
    const t = s.stats;
    h += `<p>${esc(s.what)}${s.offset !== undefined && s.offset !== null ? `: offset ${s.offset} (chunk ${s.chunk}, bin ${s.bin}, slot ${s.slot})` : ""}:
      ${t.memory_ops} memory operations, ${t.list_nodes} list nodes, ${t.bitmap_probes} bitmap words,
      ${t.refills} bins initialised, ${t.chunk_refills} chunks from TBuddy, ${t.unlinks} unlinked</p>`;
  }
  h += `<p class="note">bins: h chunk header and tails; orange with room, red full, green this request's; the number is the class. Check: ${s.check ? esc(s.check) : "consistent"}</p>`;
  return h;
}
function uaLoad() { return JSON.parse(M.uallocRun(num("ua-height"), val("ua-requests"))); }
// Invariants after every request: live objects never overlap and each lies in its bin's slots
// (no overlap); each bin's used slots (slots - free) equal the live objects in it, and each
// class's C equals the free slots of the bins on its list, E = R = 0 at rest (conservation).
function uaInvariants(run) {
  const bad = [], live = new Map();
  run.steps.forEach((s, i) => {
    if (s.check) bad.push(`step ${i}: ${s.check}`);
    if (s.offset !== undefined && s.offset !== null) live.set(i - 1, { off: s.offset, bytes: s.class_bytes, chunk: s.chunk, bin: s.bin });
    if (s.freed !== undefined) live.delete(s.freed);
    const objs = [...live.values()].sort((a, b) => a.off - b.off);
    objs.forEach((o, k) => { if (k && objs[k - 1].off + objs[k - 1].bytes > o.off) bad.push(`step ${i}: objects at ${objs[k - 1].off} and ${o.off} overlap`); });
    s.chunks.forEach((c, ci) => c.bins.forEach(b => {
      if (b.class === undefined) return;
      const n = objs.filter(o => o.chunk === ci && o.bin === b.bin).length;
      if (b.slots - b.free !== n) bad.push(`step ${i}: chunk ${ci} bin ${b.bin}: ${b.slots - b.free} used, ${n} live`);
    }));
    s.classes.forEach((c, k) => {
      let free = 0;
      s.chunks.forEach((ch, ci) => ch.bins.forEach(b => { if (b.class === k && c.list.includes(ci * 64 + b.bin)) free += b.free; }));
      if (c.C !== free || c.E !== 0 || c.R !== 0) bad.push(`step ${i}: class ${k}: (C, E, R) = (${c.C}, ${c.E}, ${c.R}), ${free} free slots listed`);
    });
  });
  return bad;
}
function uaSetup() {
  makePart("ualloc", "Gelado &amp; Garland: UAlloc's arena, chunks and bins",
    `UAlloc (§4.2): a request of b bytes is an object of the power of two above (8 B .. 1 KB, class
     k); the class's bulk semaphore counts the free slots of the bins on its free list. A wait that
     grows takes a bin from the arena's chunk (a 256 KB TBuddy block, taken when none has a bin
     left), initialises it (its slots are the batch) and links it. Requests: bytes; -i frees
     request i.`,
    `${slider("ua-height", "pool: 2^h pages of 4 KB, h", 6, 8, 7)} <label for="ua-requests">requests</label>
     <input id="ua-requests" value="8,8,100,1000,-0,8,1024,1024,1024,1024,-7" size="50">`,
    uaLoad, uaDraw);
}
