// Ouroboros variant C over virtualized queues (Winter et al., ICS'20, §5): the entries of a
// class's chunk queue live on Queue-Chunks of 1024 eight-byte entries (chunk_queue.hpp's
// ChunkQueueChunks), found through a short ring of references (VA, §5.1: ChunkArray,
// chunk_queue_array.hpp) or by walking linked Queue-Chunks from a front or back pointer (VL, §5.2:
// ChunkLinked, chunk_queue_linked.hpp); what they share is in chunk_queue_chunks.hpp. These are the
// layout policies of variant C's step machines (chunk_queue.hpp, chunk_page.hpp), as StaticRing,
// VirtualArray and VirtualLinked are variant P's (page_queue.hpp).
//
// How C uses its queue differs from P's, and the layouts follow it: an entry is written once (a
// publish), read any number of times by walking lanes (a load, Alg. 4 l.7), possibly turned into
// a hole by a flasher, and taken out once, by the thread that moves front past it (an exchange).
// Front never passes a position that was not written (a walker passes those, it does not remove
// them). So a Queue-Chunk is used up when all its 1024 entries have been taken out from front:
// only the removals are counted (one atomic on the chunk's count word each).
//
// Decisions (studies/ouroboros/variant-c.md, "C over VA and VL"; each tested):
//  * A Queue-Chunk is drawn when a queue needs it (the paper's on-demand allocation): from the
//    class's spare stack, else a fresh chunk of the pool, whose entries are set to empty first
//    (1024 stores, counted). So that one is always there, a class's first grow commits in the
//    pool (ChunkSourceWords::committed) the most its queue can hold at once: enough for the
//    ring's capacity (ouro-c-s's, twice the pool's chunks), ceil(capacity / 1024) + 2, and VL's
//    trail t; a grow that would commit more than the pool has fails as out of memory, and so does
//    one whose fresh page chunk would. A queue spans more than its capacity only where ouro-c-s's
//    ring would wait for a slot (a lap onto an entry not taken out); then the draw waits (counted
//    spins) and the caller's bound ends the wait, as for that slot. Without the reserve a publish
//    (a free's, after the pool ran out) could wait for a Queue-Chunk no one will give back.
//  * A used-up Queue-Chunk goes to its class's spare stack (a Treiber stack through the chunks'
//    next words, its head tagged against ABA), never back to pages and never to another class.
//    Then every Queue-Chunk a walker may still hold carries only its own class's entries, and
//    an entry names its own position (chunk_state.hpp), so a walker that reads a reused chunk
//    sees entries of other positions, i.e. none for its own: walks need no check beyond the
//    entry's, and a flasher's CAS of its exact entry cannot hit another.
//  * Publishes and front removers check the chunk's start (its first position) where the
//    position's chunk must be the one they find (a reference or pointer of an earlier lap or a
//    reused chunk is waited for or walked past).
//  * VA: the write at item 0 of a Queue-Chunk prepares the next one (the write at position 0
//    prepares chunks 0 and 1), as §5.1 and P's VA; the remover that uses a chunk up empties its
//    reference and puts the chunk on the spare stack.
//  * VL: static words front, back and old (chunk ids) and the trail count; the write at item 0 of
//    a chunk links the next one and moves back to its own chunk; a walk starts from front (a
//    walker, a remover, a flasher) or back (a publish; from front if back has moved past it); the
//    remover that uses a chunk up moves front on (sweeping past chunks used up meanwhile, whose
//    removers lost that race); every move of front adds one to the trail, and past t (kVlTrail)
//    the mover gives the chunk at old to the spare stack and moves old on (§5.2's deferred
//    reclamation; here not needed for safety, see above, but kept as the paper builds it).
#pragma once

#include "alloclab/core/ouroboros/chunk_queue_array.hpp"
#include "alloclab/core/ouroboros/chunk_queue_chunks.hpp"
#include "alloclab/core/ouroboros/chunk_queue_linked.hpp"
