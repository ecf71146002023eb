#include "alloclab/check/families.hpp"

#include <stdexcept>

namespace alloclab::check {

const std::vector<FamilyInfo>& families() {
  static const std::vector<FamilyInfo> f{
      {"gg-bulk-semaphore", "units",
       "Alg. 1's spin rule `while C < N and R < C + E` (SpinExit::printed)",
       "Gelado & Garland's bulk semaphore (BulkWait, bulk_signal, bulk_grow_delivered/failed) "
       "over a pool of units grown in batches of 2; one checker thread = one GPU thread"},
      {"gg-counting-semaphore", "units", "",
       "Gelado & Garland's counting semaphore (CountingWait, counting_signal, "
       "counting_grow_delivered/failed), batches of 2; one checker thread = one GPU thread"},
      {"gg-tbuddy", "pages",
       "the printed merge rule: a merger whose try-wait finds sem[n] empty falls back "
       "(TBuddyFree with wait_for_buddy = false); a failure at order H is final (no "
       "frees-in-flight word)",
       "Gelado & Garland's TBuddy (TBuddyAlloc, TBuddyFree, their node locks and per-order bulk "
       "semaphores); one checker thread = one GPU thread"},
      {"ouro-index-queue", "pages (alloc:1 only)",
       "Alg. 1's full check `old > size` (FullCheck::printed)",
       "Ouroboros' index queue (EnqueueOp, DequeueOp), the queue of every ouro-*-s and ouro-*-v* "
       "page and chunk queue; one checker thread = one GPU thread"},
      {"bitmap-alloc", "slots (alloc:1 only)", "",
       "DynaSOAr's BitmapAlloc (BitmapAllocOp: try_find_set then try_clear; BitOp set on free) "
       "over the hierarchical bitmap; one checker thread = one GPU thread"},
      {"gg-ualloc", "8 B units (one size class a case)", "",
       "Gelado & Garland's UAlloc (UAllocAlloc: bulk wait, SRCU read side, list walk, bitmap; "
       "growth from the chunk's free bins; UAllocFree: relink, retire, SRCU barrier, reclaim) "
       "over one chunk whose free slots of the class are the pool; one checker thread = one GPU "
       "thread"},
      {"gallatin", "16 B slices (alloc:1 only)", "",
       "Gallatin (malloc_team for a team of one: buffer slot, malloc counter, slot swap, "
       "get_block, get_segment over the vEB trees; free_slices: free counter, block back to its "
       "ring, segment back to the segment tree) with blocks of 2 slices, a segment a block; one "
       "checker thread = one GPU team of one lane"},
      {"dynasoar", "pages (a type of N pages; one block = 64 pages)", "",
       "DynaSOAr's allocator (AllocOp: active[T] lookups, the claim on free, block "
       "initialisation, the reservation's atomicOr, the type re-read and rollback; DeallocOp: "
       "FIRST, invalidation, deletion) over a heap of --pool pages; one checker thread = one GPU "
       "thread"},
      {"ouro-page-queue", "8 KB pages (alloc:1 only)", "",
       "Ouroboros' page queue of variant P (PageReserveOp: the bulk semaphore's wait, a grower "
       "taking a chunk and writing its page; SlotRead; PageReleaseOp, SlotWrite) for 8 KB pages, "
       "one a chunk, a ring and a pool of --pool; one checker thread = one GPU thread"},
  };
  return f;
}

const std::vector<std::pair<std::string, std::string>>& not_covered() {
  static const std::vector<std::pair<std::string, std::string>> n{
      {"queue, rw, rwbm, corw, rwmalloc, corw-lockmap",
       "paper 000's allocators are written in cpu_sim/ and gpu/ as lockstep rounds, not as step "
       "machines over an Atomics policy in core/: not checked (no copy of the algorithm here)"},
      {"ouro-p-s, ouro-c-s, ouro-*-va, ouro-*-vl",
       "the checker covers their index queue and ouro-p-s's page queue (8 KB class, standard "
       "ring); the chunk queues (ChunkQueue) and the virtualized queues are not wired in"},
      {"dynasoar-nocoal, dynasoar-norot",
       "variants of dynasoar: the checker's dynasoar runs one request a thread (no warp to "
       "coalesce) with the rotation on; plain ffs (AllocConfig::rotate = false) is not checked"},
      {"gg-malloc, cudamalloc", "the CUDA device heap: no algorithm of ours to check"},
  };
  return n;
}

std::unique_ptr<ScriptProgram> make_program(const CheckCase& c) {
  if (c.threads < 1 || c.threads > 16)
    throw std::invalid_argument("--N: 1 .. 16 checker threads; got " + std::to_string(c.threads));
  if (c.ops.empty()) throw std::invalid_argument("--ops: an empty script");
  if (c.allocator == "gg-bulk-semaphore") return make_bulk_semaphore(c);
  if (c.allocator == "gg-counting-semaphore") return make_counting_semaphore(c);
  if (c.allocator == "gg-tbuddy") return make_tbuddy(c);
  if (c.allocator == "ouro-index-queue") return make_index_queue(c);
  if (c.allocator == "bitmap-alloc") return make_bitmap_alloc(c);
  if (c.allocator == "gg-ualloc") return make_ualloc(c);
  if (c.allocator == "gallatin") return make_gallatin(c);
  if (c.allocator == "dynasoar") return make_dynasoar(c);
  if (c.allocator == "ouro-page-queue") return make_page_queue(c);
  std::string known;
  for (const auto& f : families()) {
    if (!known.empty()) known += ", ";
    known += f.name;
  }
  throw std::invalid_argument("--allocator: '" + c.allocator + "' is not checked (" + known + ")");
}

}  // namespace alloclab::check
