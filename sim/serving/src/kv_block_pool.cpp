#include "gpusim/sim/kv_block_pool.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "gpusim/core/random.hpp"

namespace gpusim {

namespace {
constexpr uint64_t kSegmentLabel = 0x5e9a11ab1e0f5e95ULL;  // any constant: a segment id's label is mix64(id, it)
}  // namespace

void kv_block_hashes(std::span<const PromptSegment> prompt, PromptSegment output, int32_t block_size,
                     std::vector<uint64_t>& out) {
  int64_t tokens = std::max(0, output.tokens);  // a segment of no tokens, or fewer, adds none
  for (const PromptSegment& seg : prompt) tokens += std::max(0, seg.tokens);
  out.resize(static_cast<std::size_t>(tokens / block_size));
  uint64_t* next = out.data();
  uint64_t h = 0;  // the chain so far: the hash of the last full block, then what the block under way adds
  int32_t filled = 0;
  const auto add = [&](const PromptSegment& seg) {
    // A piece (tokens [off, off + take) of the segment) is one mix of the chain before it, the segment's label
    // and (off, take): the label is worked out once a segment, not once a block (the hashing was a tenth of the
    // Mooncake hour).
    const uint64_t id = mix64(seg.id, kSegmentLabel);
    const auto piece = [id](uint64_t chain, int32_t off, int32_t take) {
      return mix64(chain ^ id, (static_cast<uint64_t>(off) << 32) | static_cast<uint32_t>(take));
    };
    int32_t off = 0;
    if (filled > 0 && seg.tokens > 0) {  // the block under way first
      off = std::min(seg.tokens, block_size - filled);
      h = piece(h, 0, off);
      filled += off;
      if (filled == block_size) {
        *next++ = h;
        filled = 0;
      }
    }
    // A segment's whole blocks chain the hash before them, not each other's: they are worked out side by
    // side, not one multiply chain after another (the trace's hashing cost the Mooncake hour 5 %).
    for (const uint64_t before = h; seg.tokens - off >= block_size; off += block_size)
      *next++ = h = piece(before, off, block_size);
    if (off < seg.tokens) {  // a block under way (filled is 0)
      h = piece(h, off, seg.tokens - off);
      filled = seg.tokens - off;
    }
  };
  for (const PromptSegment& seg : prompt) add(seg);
  add(output);
}

KvBlockPool::Table::Table() : slots_(16), mask_(15) {}

void KvBlockPool::Table::insert(uint64_t key, int32_t id) {
  if (2 * (used_ + 1) > slots_.size()) {  // grown as it fills: a small table stays in the caches
    std::vector<Slot> before(2 * slots_.size());
    before.swap(slots_);  // slots_ now twice the size, empty
    mask_ = slots_.size() - 1;
    for (const Slot& s : before)
      if (s.id != kNone) slots_[slot_of(s.key)] = s;
  }
  slots_[slot_of(key)] = {key, id};
  ++used_;
}

std::size_t KvBlockPool::Table::slot_of(uint64_t key) const {
  std::size_t i = key & mask_;
  while (slots_[i].id != kNone && slots_[i].key != key) i = (i + 1) & mask_;
  return i;
}

void KvBlockPool::Table::erase_at(std::size_t hole) {
  slots_[hole].id = kNone;
  --used_;
  // Later slots of the run move back into the hole unless their home lies (cyclically) after it.
  for (std::size_t i = (hole + 1) & mask_; slots_[i].id != kNone; i = (i + 1) & mask_) {
    if (((i - (slots_[i].key & mask_)) & mask_) >= ((i - hole) & mask_)) {
      slots_[hole] = slots_[i];
      slots_[i].id = kNone;
      hole = i;
    }
  }
}

KvBlockPool::KvBlockPool(int32_t blocks)
    : blocks_(static_cast<std::size_t>(blocks)),
      queue_(std::bit_ceil(2 * blocks_.size()), kNone),
      spilled_hash_(static_cast<std::size_t>(blocks)) {
  ring_mask_ = queue_.size() - 1;
  for (int32_t b = 0; b < blocks; ++b) {
    blocks_[static_cast<std::size_t>(b)].place = b;
    queue_[static_cast<std::size_t>(b)] = b;
  }
  queued_ = blocks_.size();
  free_count_ = blocks;
}

int32_t KvBlockPool::holding(const Group& g, std::size_t offset, uint64_t hash) const {
  if (g.first[offset] != kNone && g.hash[offset] == hash) return g.first[offset];
  return g.spilled > 0 ? spilled_.find(hash) : kNone;
}

void KvBlockPool::lookup(std::span<const uint64_t> hashes, int32_t max_blocks, std::vector<int32_t>& out) const {
  out.clear();
  const std::size_t n = std::min(hashes.size(), static_cast<std::size_t>(std::max(0, max_blocks)));
  const Group* g = nullptr;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t offset = k % kGroup;
    if (offset == 0) {
      if (k + kGroup < n) keys_.prefetch(hashes[k + kGroup]);
      const int32_t id = keys_.find(hashes[k]);
      if (id == kNone) return;
      g = &groups_[static_cast<std::size_t>(id)];
    }
    const int32_t block = holding(*g, offset, hashes[k]);
    if (block == kNone) return;
    out.push_back(block);
  }
}

int32_t KvBlockPool::evictable(std::span<const int32_t> blocks) const {
  int32_t n = 0;
  for (int32_t b : blocks) n += blocks_[static_cast<std::size_t>(b)].users == 0;
  return n;
}

void KvBlockPool::touch(std::span<const int32_t> blocks) {
  for (int32_t b : blocks) {
    if (blocks_[static_cast<std::size_t>(b)].users == 0) unlink(b);
    ++blocks_[static_cast<std::size_t>(b)].users;
  }
}

// (Inlined into allocate, its one caller.)
inline void KvBlockPool::evict(int32_t b) {
  Block& k = blocks_[static_cast<std::size_t>(b)];
  if (k.held == kNone) return;
  --cached_count_;
  Group& g = groups_[static_cast<std::size_t>(k.group())];
  const std::size_t offset = k.offset();
  if (offset >= kGroup) {  // spilled
    const std::size_t slot = spilled_.slot_of(spilled_hash_[static_cast<std::size_t>(b)]);
    const int32_t first = spilled_.id_at(slot);
    if (first != b) unlink_same(first, b);
    else if (k.same == kNone) spilled_.erase_at(slot);
    else spilled_.set_at(slot, k.same);
    if (--g.spilled == 0 && g.count == 0) drop_group(k.group());
  } else if (g.first[offset] == b) {
    g.first[offset] = k.same;
    // (Not one test of both counts after either changes: loading the two together right after storing one
    // stalled each eviction, the store not forwarded to the wider load.)
    if (k.same == kNone && --g.count == 0 && g.spilled == 0) drop_group(k.group());
  } else {
    unlink_same(g.first[offset], b);
  }
  k.held = kNone;
  k.same = kNone;
}

void KvBlockPool::unlink_same(int32_t first, int32_t b) {
  int32_t before = first;
  while (blocks_[static_cast<std::size_t>(before)].same != b) before = blocks_[static_cast<std::size_t>(before)].same;
  blocks_[static_cast<std::size_t>(before)].same = blocks_[static_cast<std::size_t>(b)].same;
}

void KvBlockPool::allocate(int32_t n, std::vector<int32_t>& out) {
  if (n > free_count_) throw std::logic_error("KvBlockPool::allocate: more blocks than are free");
  const std::size_t at = out.size();
  out.resize(at + static_cast<std::size_t>(n));
  int32_t* to = out.data() + at;
  std::size_t place = head_;  // not wrapped, in a register (the loop's stores could otherwise alias head_)
  for (int32_t i = 0; i < n; ++place) {
    // The blocks to be evicted are the queue's next ones: the record of the one kAhead places on is fetched, then (by
    // then in the cache) the group of the one kAhead / 2 on. (Not in lambdas: GCC 12 took one that only prefetches
    // for a call without effects and dropped it. Fetching the key of a group the block will empty too measured
    // slower.)
    if (const int32_t ahead = queue_[(place + kAhead) & ring_mask_]; ahead != kNone)
      __builtin_prefetch(&blocks_[static_cast<std::size_t>(ahead)]);
    if (const int32_t ahead = queue_[(place + kAhead / 2) & ring_mask_]; ahead != kNone) {
      const Block& k = blocks_[static_cast<std::size_t>(ahead)];
      if (k.held != kNone) {  // its count, and its first block with the hash (if not spilled)
        const Group& g = groups_[static_cast<std::size_t>(k.group())];
        __builtin_prefetch(&g.count);
        __builtin_prefetch(&g.first[k.offset() % kGroup]);
      }
    }
    const int32_t b = queue_[place & ring_mask_];
    if (b == kNone) continue;  // it left from within the queue
    Block& k = blocks_[static_cast<std::size_t>(b)];
    k.place = kNone;
    evict(b);
    k.users = 1;
    to[i++] = b;
  }
  queued_ -= place - head_;
  head_ = place & ring_mask_;
  free_count_ -= n;
}

int32_t KvBlockPool::new_group(uint64_t key) {
  int32_t g = kNone;
  if (spare_groups_.empty()) {
    g = static_cast<int32_t>(groups_.size());
    groups_.emplace_back();
  } else {
    g = spare_groups_.back();
    spare_groups_.pop_back();
  }
  Group& k = groups_[static_cast<std::size_t>(g)];
  k.key = key;
  k.count = 0;
  k.spilled = 0;
  k.first.fill(kNone);
  keys_.insert(key, g);
  return g;
}

void KvBlockPool::cache(std::span<const int32_t> blocks, std::span<const uint64_t> chain, std::size_t from) {
  // A group's key is found once for its run of blocks; the next groups' keys are fetched ahead. A run
  // starting within a group finds it from the block before, held by the same request.
  int32_t g = from % kGroup != 0 ? blocks_[static_cast<std::size_t>(blocks[from - 1])].group() : kNone;
  for (std::size_t at = from; at < blocks.size(); ++at) {
    const std::size_t offset = at % kGroup;
    if (offset == 0) {
      if (at + kGroup < blocks.size()) keys_.prefetch(chain[at + kGroup]);
      g = keys_.find(chain[at]);
      if (g == kNone) {  // most runs: a key no group has yet, whose blocks fill a new group
        at = cache_in_new_group(blocks, chain, at) - 1;
        continue;
      }
    }
    const int32_t block = blocks[at];
    const uint64_t hash = chain[at];
    Block& b = blocks_[static_cast<std::size_t>(block)];
    b.same = kNone;
    ++cached_count_;
    Group& into = groups_[static_cast<std::size_t>(g)];
    // A copy computed again (found once the ones cached before it are evicted), wherever the first is; else the
    // group's place for the hash, else (another chain's hash holds it) spilled.
    if (const int32_t first = holding(into, offset, hash); first != kNone) {
      b.held = blocks_[static_cast<std::size_t>(first)].held;
      append_same(first, block);
    } else if (into.first[offset] == kNone) {
      b.hold(g, offset);
      into.hash[offset] = hash;
      into.first[offset] = block;
      ++into.count;
    } else {
      b.hold(g, offset + kGroup);
      spilled_.insert(hash, block);
    }
    if (b.offset() >= kGroup) {
      spilled_hash_[static_cast<std::size_t>(block)] = hash;
      ++into.spilled;
    }
  }
}

void KvBlockPool::append_same(int32_t first, int32_t block) {
  int32_t tail = first;
  while (blocks_[static_cast<std::size_t>(tail)].same != kNone) tail = blocks_[static_cast<std::size_t>(tail)].same;
  blocks_[static_cast<std::size_t>(tail)].same = block;
}

std::size_t KvBlockPool::cache_in_new_group(std::span<const int32_t> blocks, std::span<const uint64_t> chain, std::size_t from) {
  const int32_t g = new_group(chain[from]);
  Group& into = groups_[static_cast<std::size_t>(g)];
  const std::size_t end = std::min(from + kGroup, blocks.size());
  for (std::size_t at = from; at < end; ++at) {
    const std::size_t offset = at - from;
    const int32_t block = blocks[at];
    Block& b = blocks_[static_cast<std::size_t>(block)];
    b.hold(g, offset);
    b.same = kNone;
    into.hash[offset] = chain[at];
    into.first[offset] = block;
  }
  into.count = static_cast<int32_t>(end - from);
  cached_count_ += end - from;
  return end;
}

void KvBlockPool::free(std::span<const int32_t> blocks) {
  if (queued_ + blocks.size() > queue_.size()) compact();  // then at least blocks_.size() places are open
  std::size_t tail = (head_ + queued_) & ring_mask_;
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    // The records of a request's blocks were last read when it took them: fetched ahead.
    if (blocks.rend() - it > kAhead) __builtin_prefetch(&blocks_[static_cast<std::size_t>(it[kAhead])]);
    Block& k = blocks_[static_cast<std::size_t>(*it)];
    if (--k.users != 0) continue;
    k.place = static_cast<int32_t>(tail);
    queue_[tail] = *it;
    tail = (tail + 1) & ring_mask_;
    ++queued_;
    ++free_count_;
  }
}

void KvBlockPool::unlink(int32_t b) {
  Block& k = blocks_[static_cast<std::size_t>(b)];
  queue_[static_cast<std::size_t>(k.place)] = kNone;
  k.place = kNone;
  --free_count_;
}

// The queue's blocks still in it, in order, together from the head. At most blocks_.size() of them: the ring, at
// least twice that, is at least half open after.
void KvBlockPool::compact() {
  std::size_t to = head_, kept = 0;
  for (std::size_t k = 0; k < queued_; ++k)
    if (const int32_t b = queue_[(head_ + k) & ring_mask_]; b != kNone) {
      blocks_[static_cast<std::size_t>(b)].place = static_cast<int32_t>(to);
      queue_[to] = b;
      to = (to + 1) & ring_mask_;
      ++kept;
    }
  queued_ = kept;
}

// An emptied group (none of its key's hashes cached, none spilled) leaves the key table for reuse.
void KvBlockPool::drop_group(int32_t g) {
  keys_.erase_at(keys_.slot_of(groups_[static_cast<std::size_t>(g)].key));
  spare_groups_.push_back(g);
}

}  // namespace gpusim
