// Ouroboros (Winter et al., ICS'20): the index queue's ring (Alg. 1) under enqueues and
// dequeues, as `alloclab trace --allocator ouro-p-s` traces it, and the chunk queue's walk
// lengths from alloclab's model (model/ouro_walk.hpp). queueRun and ouroWalk run the core's step
// machines and the model in WebAssembly.
"use strict";
function ouDraw(run, i) {
  const s = run.steps[i], n = run.slots;
  let h = `<div>`;
  s.slots.forEach((v, k) => {
    const marks = (s.front % n === k ? "F" : "") + (s.back % n === k ? "B" : "");
    h += cellBox(v < 0 ? "free" : "used", v < 0 ? "·" : v, `slot ${k}${marks ? " (" + marks + ")" : ""}`);
  });
  h += `</div><div>${s.slots.map((_, k) => `<span class="cell plain">${(s.front % n === k ? "F" : "") + (s.back % n === k ? "B" : "")}</span>`).join("")}</div>`;
  h += `<p>${i === 0 ? "" : esc(s.what) + ": " + esc(s.outcome)}</p>`;
  h += table(["fill count", "front (ticket)", "back (ticket)", "front slot", "back slot", "wraps so far"],
             [[s.fill_count, s.front, s.back, s.front % n, s.back % n, Math.floor(s.back / n)]]);
  const w = JSON.parse(M.ouroWalk(num("ou-lanes"), num("ou-free"), num("ou-dead")));
  if (!w.error) {
    h += `<h3>The chunk queue: lanes walking together</h3><div>${w.entries.map((f, k) =>
      cellBox(f ? "taken" : "used", f, `entry ${k}: ${f} free pages`)).join("")}</div>`;
    h += table(["the model (model/ouro_walk.hpp)", "walk (queue positions a lane passes)"], [
      [`uniform: D + (f q (q - 1) / 2 + r q) / c, c = ${w.lanes}, f = ${w.free_per_chunk}, D = ${w.dead_ahead}`, Number(w.walk_uniform).toPrecision(6)],
      ["the same entries, the first c free pages' positions averaged", Number(w.walk_entries).toPrecision(6)],
      [`a refill of the ${w.entries.length - w.dead_ahead} chunks: (K - 1) / 2`, Number(w.walk_refill).toPrecision(6)]]);
  }
  return h;
}
function ouLoad() {
  const r = JSON.parse(M.queueRun(num("ou-slots"), val("ou-ops"), document.getElementById("ou-printed").checked));
  if (!r.error)
    r.steps = [{ what: "start: an empty ring", outcome: "", fill_count: 0, front: 0, back: 0,
                 slots: new Array(r.slots).fill(-1), stuck: false }].concat(r.steps);
  return r;
}
// Invariants after every operation: every live index in the ring once (no slot shared); indices
// enqueued minus dequeued equal the live slots and the fill count (conservation), back - front
// equals them; the live indices lie in the positions front .. back - 1 (mod the ring's size).
function ouInvariants(run) {
  const bad = [], n = run.slots;
  let enq = 0, deq = 0;
  run.steps.forEach((s, i) => {
    if (i === 0) return;
    if (s.what.startsWith("enqueue") && s.outcome.startsWith("at position")) ++enq;
    if (s.what === "dequeue" && s.outcome.startsWith("index")) ++deq;
    if (s.stuck) return;  // the printed check's extra enqueue: the erratum the trace shows
    const live = s.slots.filter(v => v >= 0);
    if (new Set(live).size !== live.length) bad.push(`step ${i}: an index twice in the ring`);
    if (live.length !== enq - deq) bad.push(`step ${i}: ${live.length} live slots, ${enq - deq} enqueued and not dequeued`);
    if (s.fill_count !== live.length || s.back - s.front !== live.length) bad.push(`step ${i}: fill ${s.fill_count}, back - front ${s.back - s.front}, live ${live.length}`);
    for (let p = s.front; p < s.back; ++p) if (s.slots[p % n] < 0) bad.push(`step ${i}: position ${p} holds no index`);
  });
  return bad;
}
function ouSetup() {
  makePart("queue", "Ouroboros: the index queue's ring and the chunk queue's walks",
    `Winter et al., "Ouroboros: virtualized queues for dynamic memory management on GPUs", ICS'20
     (doi:10.1145/3392717.3392742), §3.3 Alg. 1: enqueue and dequeue take tickets (positions that
     count for ever) and use slot position mod size: watch the ring wrap. With the printed full
     check (<code>old &gt; size</code>) the (size + 1)-th enqueue is admitted with no free slot (an
     erratum). Below, the model's walk of c lanes that start together at the chunk queue's front
     over chunks of f free pages (D dead entries ahead); green entries hold free pages.`,
    `${slider("ou-slots", "ring slots", 2, 16, 4)} <label for="ou-ops">operations</label>
     <input id="ou-ops" value="e,e,e,d,d,e,e,e,d,d,d,e" size="40" title="e: enqueue the next index, d: dequeue">
     <label><input type="checkbox" id="ou-printed"> printed full check</label><br>
     ${slider("ou-lanes", "c lanes", 1, 128, 32)}${slider("ou-free", "f free pages a chunk", 1, 32, 8)}${slider("ou-dead", "D dead entries", 0, 8, 0)}`,
    ouLoad, ouDraw);
}
