#pragma once
// A replica's KV-cache blocks with automatic prefix caching, as vLLM V1 keeps them (docs/serving.md#prefix-caching;
// vllm/v1/core/block_pool.py and kv_cache_manager.py, v0.8): a full block is named by a hash chained over the
// blocks before it; a block whose last user frees it stays cached, at the tail of a free queue that hands out
// blocks from its head (least recently freed first), until it is handed out again and loses its hash; a
// request's longest run of cached leading blocks is reused instead of computed.
#include <cstdint>
#include <span>
#include <vector>

#include "gpusim/workloads/request_stream.hpp"

namespace gpusim {

// The hashes of the full `block_size`-token blocks of a request's tokens, its prompt then its output:
// block k's hash chains block k-1's with the (segment id, offset, length) of each piece of a segment
// it holds, so that two requests share block k's hash exactly when their first (k+1) x block_size
// tokens are the same segments at the same offsets. `out` is cleared first.
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
  // blocks[i], just filled, holds chain[from + i] from now on, in order (vLLM's cache_full_blocks):
  // `chain` is the request's block hashes from its first block.
  void cache(std::span<const int32_t> blocks, std::span<const uint64_t> chain, std::size_t from);
  // A request lets its blocks go, its last block first (vLLM frees in reverse, so a prefix's tail is
  // evicted before its head): a block left with no user joins the tail of the free queue, its hash kept.
  void free(std::span<const int32_t> blocks);
  // Blocks holding a hash (in use or free).
  int64_t cached_blocks() const { return static_cast<int64_t>(cached_count_); }

 private:
  static constexpr int32_t kNone = -1;
  struct Block {
    uint64_t hash = 0;
    int32_t users = 0;
    int32_t prev = kNone, next = kNone;  // in the free queue
    int32_t same = kNone;                // the next block cached with the same hash, in caching order
    uint32_t home = 0;                   // its hash's home slot in the index
    bool hashed = false;
  };
  void unlink(int32_t b);
  void append(int32_t b);
  void evict(int32_t b);
  static constexpr int kAhead = 8;  // blocks fetched ahead of the one at hand
  // A hash -> the first block cached with it: open addressing with linear probing, at most a quarter
  // full (there are never more hashes than blocks), deletion by shifting back. A day of Mooncake's
  // conversation trace evicts a block hundreds of millions of times; std::unordered_map spent most of
  // that run finding the node to unlink in its bucket (docs/design/performance.md).
  // The hashes of a chain's blocks kGroup x j ... kGroup x j + kGroup - 1 have neighbouring homes (the
  // first one's hash, plus the offset): a request caches, finds and evicts its blocks in runs, whose
  // probes then share cache lines instead of each missing one. A home is still a function of the hash
  // alone, since a block's hash names every block before it. Runs of neighbouring homes make longer
  // probe sequences, hence the quarter.
  class Index {
   public:
    static constexpr std::size_t kGroup = 16;
    explicit Index(int32_t blocks);
    uint32_t home(std::span<const uint64_t> chain, std::size_t k) const {
      return static_cast<uint32_t>((chain[k & ~(kGroup - 1)] + (k & (kGroup - 1))) & mask_);
    }
    int32_t find(uint64_t hash, uint32_t home) const { return slots_[slot_of(hash, home)].block; }  // kNone: absent
    // The block already there (kNone: `block` was put in).
    int32_t insert(uint64_t hash, uint32_t home, int32_t block);
    // `hash`'s slot, `hash` present: its first block, to read, replace or erase with one probe.
    std::size_t slot_of(uint64_t hash, uint32_t home) const;  // its slot, or the empty one ending its probe
    int32_t block_at(std::size_t slot) const { return slots_[slot].block; }
    void set_at(std::size_t slot, int32_t block) { slots_[slot].block = block; }
    void erase_at(std::size_t slot);
    // Asks for a home slot to be fetched: the pool's loops know the hashes they will look up next, and
    // a probe is a cache miss (16 replicas' tables are 32 MB); fetched ahead, the misses overlap.
    void prefetch(uint32_t home) const { __builtin_prefetch(&slots_[home]); }

   private:
    struct Slot {
      uint64_t hash = 0;
      int32_t block = kNone;
      uint32_t home = 0;
    };
    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
  };
  std::vector<Block> blocks_;
  int32_t head_ = kNone, tail_ = kNone, free_count_ = 0;
  std::size_t cached_count_ = 0;
  Index first_;
};

}  // namespace gpusim
