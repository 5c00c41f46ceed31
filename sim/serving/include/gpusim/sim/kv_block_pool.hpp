#pragma once
// A replica's KV-cache blocks with automatic prefix caching, as vLLM V1 keeps them (docs/serving.md#prefix-caching;
// vllm/v1/core/block_pool.py and kv_cache_manager.py, v0.8): a full block is named by a hash chained over the
// blocks before it; a block whose last user frees it stays cached, at the tail of a free queue that hands out
// blocks from its head (least recently freed first), until it is handed out again and loses its hash; a
// request's longest run of cached leading blocks is reused instead of computed.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "gpusim/workloads/request_stream.hpp"

namespace gpusim {

// The hashes of the full `block_size`-token blocks of a request's tokens, its prompt then its output:
// block k's hash chains the hash of the blocks before it with the (segment id, offset, length) of each
// piece of a segment it holds (the blocks a segment fills whole chain the hash before the first of them,
// its offset naming each), so that two requests share block k's hash exactly when their first
// (k+1) x block_size tokens are the same segments at the same offsets. `out` is cleared first.
void kv_block_hashes(std::span<const PromptSegment> prompt, PromptSegment output, int32_t block_size, std::vector<uint64_t>& out);

class KvBlockPool {
 public:
  // `blocks` blocks, all free and none cached, queued in id order.
  explicit KvBlockPool(int32_t blocks);

  // Blocks in the free queue, cached or not: what allocate() can hand out.
  int32_t free_blocks() const { return free_count_; }
  int32_t size() const { return static_cast<int32_t>(blocks_.size()); }
  // The blocks holding hashes[0], hashes[1], ... (the request's block hashes from its first block) while
  // each is cached, at most `max_blocks` of them (vLLM's get_computed_blocks: a prompt all cached still
  // computes its last token, so the caller caps at (tokens - 1) / block_size); a hash cached in several
  // blocks is found in the first cached with it. `out` is cleared first.
  void lookup(std::span<const uint64_t> hashes, int32_t max_blocks, std::vector<int32_t>& out) const;
  // How many of `blocks` are in the free queue (cached, unused): taking them leaves fewer to allocate.
  int32_t evictable(std::span<const int32_t> blocks) const;
  // A request takes cached blocks: each gains a user, leaving the free queue if it had none.
  void touch(std::span<const int32_t> blocks);
  // `n` blocks from the head of the free queue (n <= free_blocks()), appended to `out`, each with one
  // user; a block that held a hash loses it (it is evicted).
  void allocate(int32_t n, std::vector<int32_t>& out);
  // blocks[i], just filled, holds chain[i] from now on, for i from `from` on, in order (vLLM's
  // cache_full_blocks): `blocks` are the request's blocks from its first, `chain` its block hashes, and
  // the blocks before `from` hold theirs (the request cached or found them).
  void cache(std::span<const int32_t> blocks, std::span<const uint64_t> chain, std::size_t from);
  // A request lets its blocks go, its last block first (vLLM frees in reverse, so a prefix's tail is
  // evicted before its head): a block left with no user joins the tail of the free queue, its hash kept.
  void free(std::span<const int32_t> blocks);
  // Blocks holding a hash (in use or free).
  int64_t cached_blocks() const { return static_cast<int64_t>(cached_count_); }

 private:
  static constexpr int32_t kNone = -1;
  static constexpr std::size_t kGroup = 16;
  static constexpr uint32_t kHeld = 2 * kGroup;
  struct Block {
    int32_t users = 0;
    int32_t place = kNone;  // its place in `queue_` while in the free queue
    int32_t same = kNone;   // the next block cached with the same hash, in caching order
    // The group of its hash's key x kHeld + the hash's place in it (+ kGroup: the hash is in `spilled_`
    // instead); kNone: it holds no hash. (One field, not two: a record of 16 bytes never straddles two
    // cache lines, and each block allocation, caching and freeing reads one record at random.)
    int32_t held = kNone;
    int32_t group() const { return static_cast<int32_t>(static_cast<uint32_t>(held) / kHeld); }  // (held != kNone)
    std::size_t offset() const { return static_cast<uint32_t>(held) % kHeld; }
    void hold(int32_t group, std::size_t offset) { held = static_cast<int32_t>(static_cast<uint32_t>(group) * kHeld + offset); }
  };
  static_assert(sizeof(Block) == 16);
  // The hashes cached of a chain's blocks kGroup x j ... kGroup x j + kGroup - 1, keyed by the first
  // one's hash, each with the first block cached with it. A request caches, finds and evicts its blocks
  // in runs: a group is found once for up to kGroup of them, and a block names its group, so eviction
  // finds nothing. (A hash table per block hash cost the Mooncake hour most of its time;
  // docs/design/performance.md.) A hash whose place in its key's group holds another chain's hash (two
  // chains part within the group) is spilled to a table by block hash: a shared system prompt ends within a
  // group and every request's chain parts there, and further groups per key cost each lookup a walk of all
  // of them. A group stays while it holds a hash or any of its key's are spilled.
  struct Group {
    uint64_t key = 0;
    int32_t count = 0;    // hashes it holds
    int32_t spilled = 0;  // blocks whose hashes of its key are spilled: while any are, lookups ask `spilled_`
    std::array<uint64_t, kGroup> hash{};
    std::array<int32_t, kGroup> first{};  // kNone: none at that offset
  };
  // A 64-bit hash -> an id (a group key -> its group; a spilled block hash -> the first block with it): open
  // addressing with linear probing from the hash's low bits, doubled when it would be over half full,
  // deletion by shifting back.
  class Table {
   public:
    Table();
    void insert(uint64_t key, int32_t id);                                // `key` absent
    std::size_t slot_of(uint64_t key) const;                              // its slot, or the empty one ending its probe
    int32_t find(uint64_t key) const { return slots_[slot_of(key)].id; }  // kNone: absent
    int32_t id_at(std::size_t slot) const { return slots_[slot].id; }
    void set_at(std::size_t slot, int32_t id) { slots_[slot].id = id; }
    void erase_at(std::size_t slot);
    void prefetch(uint64_t key) const { __builtin_prefetch(&slots_[key & mask_]); }

   private:
    struct Slot {
      uint64_t key = 0;
      int32_t id = kNone;
    };
    std::vector<Slot> slots_;
    std::size_t mask_ = 0, used_ = 0;
  };
  static constexpr int kAhead = 64;  // how far ahead allocate() and free() fetch the blocks they will reach
  // The first block cached with `hash` at `offset` of group `g`, in it or spilled (kNone: none).
  int32_t holding(const Group& g, std::size_t offset, uint64_t hash) const;
  // Block `block` joins the blocks cached with a hash, after `first` and those after it.
  void append_same(int32_t first, int32_t block);
  // Block `b` leaves the blocks cached with a hash, `first` (not `b`) the first of them.
  void unlink_same(int32_t first, int32_t b);
  int32_t new_group(uint64_t key);
  // Caches blocks[from ...] (from a multiple of kGroup; chain[from] a key no group has) in a new group, up to its
  // end or the blocks' end, which it returns.
  std::size_t cache_in_new_group(std::span<const int32_t> blocks, std::span<const uint64_t> chain, std::size_t from);
  void drop_group(int32_t g);
  void unlink(int32_t b);
  void evict(int32_t b);
  void compact();
  std::vector<Block> blocks_;
  // The free queue in order, from head_: a ring, not links, so that allocation knows the blocks it will evict ahead
  // and fetches them together (walking links, each was a cache miss once the order was no longer the blocks' order:
  // most of a day of prefix-cached serving). A block that leaves from within it (a cache hit) leaves kNone in its
  // place; compact() drops those when a free() would overrun the ring (at least twice the blocks). Its places past the
  // queue hold block ids or kNone too, so fetching ahead needs no bound.
  std::vector<int32_t> queue_;
  std::size_t ring_mask_ = 0;
  std::size_t head_ = 0;
  std::size_t queued_ = 0;  // places from head_ the queue spans, holes included
  int32_t free_count_ = 0;
  std::size_t cached_count_ = 0;
  std::vector<Group> groups_;
  std::vector<int32_t> spare_groups_;
  Table keys_;                          // a group key -> its group
  Table spilled_;                       // a spilled hash -> the first block with it
  std::vector<uint64_t> spilled_hash_;  // a spilled block's hash, by block (read to find it in `spilled_`)
};

}  // namespace gpusim
