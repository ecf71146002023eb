// Ouroboros' variants P and C side by side on the same requests (ouroQueuesRun): P's queue of
// page indices per class (tickets on front and back, the ring wrapping) against C's queue of
// chunks per class (each chunk's free pages; a wholly free chunk flashed back for reuse).
"use strict";
function oqDraw(run, i) {
  const s = run.steps[i];
  let h = `<div style="display:flex; gap:2em"><div><h3>variant P: a queue of pages</h3>`;
  h += `<p>chunks: ${s.p_chunks.map((k, c) => cellBox(k < 0 ? "free" : "used", k < 0 ? "" : k, `chunk ${c}${k < 0 ? ": untyped" : ": class " + k}`)).join("")}</p>`;
  for (const q of s.p_queues) {
    const n = q.ring.length;
    h += `<p>class ${q.class} (${q.page_bytes} B): C = ${q.sem.C}, front ${q.front}, back ${q.back} (wrapped ${Math.floor(q.back / n)} times)</p><div>${
      q.ring.map((v, k) => cellBox(v < 0 ? "free" : (s.class === q.class && s.p_slot === k) ? "taken" : "used", v < 0 ? "·" : v,
        `slot ${k}${q.front % n === k ? " (front)" : ""}${q.back % n === k ? " (back)" : ""}`)).join("")}</div>`;
  }
  if (s.p_ticket !== undefined) h += `<p>ticket ${s.p_ticket} → slot ${s.p_slot}: page ${s.p_page} of chunk ${s.p_chunk}; ${s.p_ops} memory operations${s.p_grew ? ", grew the queue by a chunk" : ""}</p>`;
  h += `</div><div><h3>variant C: a queue of chunks</h3>`;
  h += `<p>chunks (free pages): ${s.c_chunks.map((c, k) => cellBox(c.class < 0 ? "free" : c.queued ? "wait" : c.free ? "earlier" : "used",
    c.class < 0 ? "" : c.free, `chunk ${k}${c.class < 0 ? ": untyped" : `: class ${c.class}, ${c.free} free${c.queued ? ", queued" : ""}`}`)).join("")}</p>`;
  for (const q of s.c_queues)
    h += `<p>class ${q.class}: C = ${q.sem.C}, front ${q.front}, back ${q.back}, entries (chunks) from front: ${q.entries.map(e => e < 0 ? "hole" : e).join(", ") || "none"}</p>`;
  if (s.c_chunk !== undefined) h += `<p>walked ${s.c_walk} positions to chunk ${s.c_chunk}, page ${s.c_page}; ${s.c_ops} memory operations${s.c_grew ? ", grew the queue by a chunk" : ""}</p>`;
  if (s.c_flashed) h += `<p>the free left its chunk wholly free: flashed back to the reuse queue</p>`;
  h += `</div></div>`;
  h += `<p class="note">P: orange cells hold page indices (chunk x pages a chunk + page), green the slot this request's ticket read. C: orange chunks are queued, grey flashed (all free, for reuse), red full.</p>`;
  return h;
}
function oqLoad() { return JSON.parse(M.ouroQueuesRun(num("oq-chunks"), val("oq-requests"))); }
// Invariants after every request. P, per class: the live ring entries are back - front, C at
// rest, distinct, and none held by a request (no overlap); ring + held = the pages of the chunks
// typed for the class (conservation). C: no page held twice; per chunk, free + held = its pages
// unless flashed (then none held); per class, C = the free pages of its queued chunks.
function oqInvariants(run) {
  const bad = [], held = new Map(), per = k => 8192 / (16 << k);
  run.steps.forEach((s, i) => {
    if (s.served) held.set(i - 1, { k: s.class, p: s.p_chunk * per(s.class) + s.p_page, c: s.c_chunk, cp: s.c_page });
    if (s.freed !== undefined) held.delete(s.freed);
    const hv = [...held.values()];
    for (const q of s.p_queues) {
      const live = q.ring.filter(v => v >= 0), mine = hv.filter(h => h.k === q.class).map(h => h.p);
      if (live.length !== q.back - q.front || live.length !== q.sem.C || q.sem.E || q.sem.R) bad.push(`step ${i}: P class ${q.class}: ${live.length} live, back - front ${q.back - q.front}, C ${q.sem.C}`);
      if (new Set(live.concat(mine)).size !== live.length + mine.length) bad.push(`step ${i}: P class ${q.class}: a page both queued and held, or twice`);
      const typed = s.p_chunks.filter(k => k === q.class).length;
      if (live.length + mine.length !== typed * per(q.class)) bad.push(`step ${i}: P class ${q.class}: ${live.length} + ${mine.length} pages of ${typed} chunks`);
    }
    const keys = hv.map(h => `${h.c}/${h.cp}`);
    if (new Set(keys).size !== keys.length) bad.push(`step ${i}: C: a page held twice`);
    s.c_chunks.forEach((c, k) => {
      if (c.class < 0) return;
      const n = hv.filter(h => h.c === k).length;
      const flashed = !c.queued && c.free === per(c.class);
      if (!flashed && c.free + n !== per(c.class)) bad.push(`step ${i}: C chunk ${k}: ${c.free} free + ${n} held`);
      if (flashed && n) bad.push(`step ${i}: C chunk ${k} flashed with ${n} held`);
    });
    for (const q of s.c_queues) {
      const free = s.c_chunks.reduce((a, c) => a + (c.class === q.class && c.queued ? c.free : 0), 0);
      if (q.sem.C !== free) bad.push(`step ${i}: C class ${q.class}: C = ${q.sem.C}, ${free} free pages queued`);
    }
  });
  return bad;
}
function oqSetup() {
  makePart("ouroqueues", "Ouroboros: a queue of pages against a queue of chunks",
    `The same requests (bytes; -i frees request i) served by variant P (Alg. 3: a request waits on
     the class's semaphore, takes a ticket on front and reads that slot; a free takes a ticket on
     back and writes its page there; the first request of an empty queue grows it by a chunk's
     pages) and by variant C (Alg. 4-5: the queue holds chunks of the class with a free page; a
     request walks from front to the first with one; a chunk whose pages are all free again is
     flashed back for reuse by any class). Pages are 16 B x 2^k; a chunk is 8 KiB. One request
     at a time walks 0 positions, the model's one-lane case; the walk above shows many lanes.`,
    `${slider("oq-chunks", "chunks in the pool", 1, 16, 3)} <label for="oq-requests">requests</label>
     <input id="oq-requests" value="2048,2048,2048,2048,2048,4096,-0,-1,2048,2048,-2,-3,-4,-5" size="60">`,
    oqLoad, oqDraw);
}
