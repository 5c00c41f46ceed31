#include "gpusim/sim/kv_block_pool.hpp"

#include <stdexcept>

#include "gpusim/core/random.hpp"

namespace gpusim {

void kv_block_hashes(std::span<const PromptSegment> prompt, PromptSegment output, int32_t block_size,
                     std::vector<uint64_t>& out) {
  out.clear();
  uint64_t h = 0;  // the chain so far: the hash of the last full block, then what the block under way adds
  int32_t filled = 0;
  const auto add = [&](const PromptSegment& seg) {
    for (int32_t off = 0; off < seg.tokens;) {
      const int32_t take = std::min(seg.tokens - off, block_size - filled);
      h = mix64(mix64(h, seg.id), (static_cast<uint64_t>(off) << 32) | static_cast<uint32_t>(take));
      off += take;
      filled += take;
      if (filled == block_size) {
        out.push_back(h);
        filled = 0;
      }
    }
  };
  for (const PromptSegment& seg : prompt) add(seg);
  add(output);
}

KvBlockPool::Index::Index(int32_t blocks) {
  std::size_t n = 16;
  while (n < 4 * static_cast<std::size_t>(std::max(blocks, 1))) n *= 2;
  slots_.resize(n);
  mask_ = n - 1;
}

std::size_t KvBlockPool::Index::slot_of(uint64_t hash, uint32_t home) const {
  std::size_t i = home;
  while (slots_[i].block != kNone && slots_[i].hash != hash) i = (i + 1) & mask_;
  return i;
}

int32_t KvBlockPool::Index::insert(uint64_t hash, uint32_t home, int32_t block) {
  Slot& s = slots_[slot_of(hash, home)];
  if (s.block != kNone) return s.block;
  s = {hash, block, home};
  return kNone;
}

void KvBlockPool::Index::erase_at(std::size_t hole) {
  slots_[hole].block = kNone;
  // Later slots of the run move back into the hole unless their home lies (cyclically) after it.
  for (std::size_t i = (hole + 1) & mask_; slots_[i].block != kNone; i = (i + 1) & mask_) {
    if (((i - slots_[i].home) & mask_) >= ((i - hole) & mask_)) {
      slots_[hole] = slots_[i];
      slots_[i].block = kNone;
      hole = i;
    }
  }
}

KvBlockPool::KvBlockPool(int32_t blocks) : blocks_(static_cast<std::size_t>(blocks)), first_(blocks) {
  for (int32_t b = 0; b < blocks; ++b) append(b);
}

void KvBlockPool::lookup(std::span<const uint64_t> hashes, int32_t max_blocks, std::vector<int32_t>& out) const {
  out.clear();
  const std::size_t n = std::min(hashes.size(), static_cast<std::size_t>(std::max(0, max_blocks)));
  for (std::size_t k = 0; k < std::min<std::size_t>(n, kAhead); ++k) first_.prefetch(first_.home(hashes, k));
  for (std::size_t k = 0; k < n; ++k) {
    if (k + kAhead < n) first_.prefetch(first_.home(hashes, k + kAhead));
    const int32_t b = first_.find(hashes[k], first_.home(hashes, k));
    if (b == kNone) return;
    out.push_back(b);
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

void KvBlockPool::allocate(int32_t n, std::vector<int32_t>& out) {
  if (n > free_count_) throw std::logic_error("KvBlockPool::allocate: more blocks than are free");
  // The blocks to be evicted are the queue's next ones: their hashes' slots are fetched kAhead blocks early.
  int32_t ahead = head_;
  const auto fetch_next = [&] {
    if (ahead == kNone) return;
    const Block& k = blocks_[static_cast<std::size_t>(ahead)];
    if (k.hashed) first_.prefetch(k.home);
    ahead = k.next;
  };
  for (int32_t i = 0; i < std::min(n, kAhead); ++i) fetch_next();
  for (int32_t i = 0; i < n; ++i) {
    if (i + kAhead < n) fetch_next();
    const int32_t b = head_;
    unlink(b);
    evict(b);
    blocks_[static_cast<std::size_t>(b)].users = 1;
    out.push_back(b);
  }
}

void KvBlockPool::cache(std::span<const int32_t> blocks, std::span<const uint64_t> chain, std::size_t from) {
  for (std::size_t k = 0; k < std::min<std::size_t>(blocks.size(), kAhead); ++k) first_.prefetch(first_.home(chain, from + k));
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    if (k + kAhead < blocks.size()) first_.prefetch(first_.home(chain, from + k + kAhead));
    const int32_t block = blocks[k];
    Block& b = blocks_[static_cast<std::size_t>(block)];
    b.hash = chain[from + k];
    b.home = first_.home(chain, from + k);
    b.hashed = true;
    b.same = kNone;
    ++cached_count_;
    int32_t last = first_.insert(b.hash, b.home, block);
    if (last == kNone) continue;
    // A copy computed again: found once the ones cached before it are evicted.
    while (blocks_[static_cast<std::size_t>(last)].same != kNone) last = blocks_[static_cast<std::size_t>(last)].same;
    blocks_[static_cast<std::size_t>(last)].same = block;
  }
}

void KvBlockPool::free(std::span<const int32_t> blocks) {
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it)
    if (--blocks_[static_cast<std::size_t>(*it)].users == 0) append(*it);
}

void KvBlockPool::unlink(int32_t b) {
  Block& k = blocks_[static_cast<std::size_t>(b)];
  (k.prev == kNone ? head_ : blocks_[static_cast<std::size_t>(k.prev)].next) = k.next;
  (k.next == kNone ? tail_ : blocks_[static_cast<std::size_t>(k.next)].prev) = k.prev;
  k.prev = k.next = kNone;
  --free_count_;
}

void KvBlockPool::append(int32_t b) {
  Block& k = blocks_[static_cast<std::size_t>(b)];
  k.prev = tail_;
  k.next = kNone;
  (tail_ == kNone ? head_ : blocks_[static_cast<std::size_t>(tail_)].next) = b;
  tail_ = b;
  ++free_count_;
}

void KvBlockPool::evict(int32_t b) {
  Block& k = blocks_[static_cast<std::size_t>(b)];
  if (!k.hashed) return;
  k.hashed = false;
  --cached_count_;
  const std::size_t at = first_.slot_of(k.hash, k.home);
  const int32_t head = first_.block_at(at);
  if (head == b) {
    if (k.same == kNone) first_.erase_at(at);
    else first_.set_at(at, k.same);
  } else {
    int32_t before = head;
    while (blocks_[static_cast<std::size_t>(before)].same != b) before = blocks_[static_cast<std::size_t>(before)].same;
    blocks_[static_cast<std::size_t>(before)].same = k.same;
  }
  k.same = kNone;
}

}  // namespace gpusim
