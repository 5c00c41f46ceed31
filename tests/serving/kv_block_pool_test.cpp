// Prefix caching's blocks (sim/kv_block_pool.hpp): the hash chain over segments worked by hand, vLLM's
// free queue and eviction order on a pool of four blocks, and the pool against a brute-force one
// (every block scanned for every question) over random requests.
#include "gpusim/sim/kv_block_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <set>
#include <span>

using namespace gpusim;

namespace {

std::vector<uint64_t> hashes(std::vector<PromptSegment> prompt, PromptSegment output, int32_t block = 16) {
  std::vector<uint64_t> out;
  kv_block_hashes(prompt, output, block, out);
  return out;
}

}  // namespace

// Blocks of 16: [a: 20 tokens][b: 12] then 16 output tokens make three full blocks: a[0,16), a[16,20) +
// b[0,12), the output. Same segments at the same offsets, same hashes; the chain makes a block's hash
// depend on every block before it.
TEST(KvBlockHashes, NameFullBlocksByTheSegmentsBeforeAndIn) {
  const auto one = hashes({{1, 20}, {2, 12}}, {9, 16});
  ASSERT_EQ(one.size(), 3u);
  // The same first 16 tokens, then a different segment: block 0 shared, the rest not.
  const auto two = hashes({{1, 16}, {3, 4}, {2, 12}}, {9, 16});
  ASSERT_EQ(two.size(), 3u);
  EXPECT_EQ(one[0], two[0]);
  EXPECT_NE(one[1], two[1]);
  EXPECT_NE(one[2], two[2]);  // the output block is the same tokens, after a different prefix
  // A next turn repeating the conversation (prompt and output) then a new message: its first three
  // blocks are the first request's.
  const auto next = hashes({{1, 20}, {2, 12}, {9, 16}, {4, 40}}, {10, 5});
  ASSERT_EQ(next.size(), 5u);  // 93 tokens
  EXPECT_TRUE(std::equal(one.begin(), one.end(), next.begin()));
  // A partial last block has no hash; offsets count: the same segment split differently is not the same.
  EXPECT_EQ(hashes({{1, 15}}, {9, 0}).size(), 0u);
  EXPECT_NE(hashes({{1, 16}}, {9, 0})[0], hashes({{1, 8}, {1, 8}}, {9, 0})[0]);
  // The blocks a segment fills whole, named side by side: [a: 48] and [a: 16][a: 32] share block 0 only
  // (the second a's blocks are a[0,16), a[16,32) again), and after another prefix none of a's blocks match.
  const auto whole = hashes({{1, 48}}, {9, 0}), split = hashes({{1, 16}, {1, 32}}, {9, 0});
  const auto after = hashes({{5, 16}, {1, 48}}, {9, 0});
  ASSERT_EQ(whole.size(), 3u);
  EXPECT_EQ(whole[0], split[0]);
  EXPECT_NE(whole[1], split[1]);
  EXPECT_NE(whole[2], split[2]);
  EXPECT_EQ(split[1], hashes({{1, 16}, {1, 16}}, {9, 0})[1]);
  EXPECT_EQ(std::set<uint64_t>(whole.begin(), whole.end()).size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NE(whole[k], after[k + 1]);
}

// Four blocks, queued 0 1 2 3. A request takes two and fills them (hashes x, y), then frees them:
// last block first, so the queue is 2 3 1 0. Its prefix is found whole; three new blocks come from the
// head, 2, 3 and then 1, which loses y: only x is found after that.
TEST(KvBlockPool, FreesInReverseAndEvictsFromTheHead) {
  KvBlockPool pool(4);
  std::vector<int32_t> a;
  pool.allocate(2, a);
  EXPECT_EQ(a, (std::vector<int32_t>{0, 1}));
  pool.cache(a, std::vector<uint64_t>{100, 200}, 0);
  EXPECT_EQ(pool.free_blocks(), 2);
  pool.free(a);
  EXPECT_EQ(pool.free_blocks(), 4);
  std::vector<int32_t> found;
  const std::vector<uint64_t> prefix{100, 200, 300};
  pool.lookup(prefix, 3, found);
  EXPECT_EQ(found, (std::vector<int32_t>{0, 1}));
  pool.lookup(prefix, 1, found);  // capped
  EXPECT_EQ(found, (std::vector<int32_t>{0}));
  pool.lookup(prefix, 3, found);
  EXPECT_EQ(pool.evictable(found), 2);  // both are free: taking them leaves 2 to allocate
  std::vector<int32_t> b;
  pool.allocate(3, b);
  EXPECT_EQ(b, (std::vector<int32_t>{2, 3, 1}));
  pool.lookup(prefix, 3, found);
  EXPECT_EQ(found, (std::vector<int32_t>{0}));
  EXPECT_EQ(pool.cached_blocks(), 1);
  // Taking the cached block takes it off the queue; a second user keeps it off after the first frees it.
  pool.touch(found);
  pool.touch(found);
  EXPECT_EQ(pool.free_blocks(), 0);
  pool.free(found);
  EXPECT_EQ(pool.free_blocks(), 0);
  pool.free(found);
  EXPECT_EQ(pool.free_blocks(), 1);
}

// A prefix computed twice (two requests scheduled before either was cached) is cached twice; lookups
// find the first copy, then the second once the first is evicted.
TEST(KvBlockPool, FindsASecondCopyOnceTheFirstIsEvicted) {
  KvBlockPool pool(3);
  std::vector<int32_t> a, b;
  pool.allocate(1, a);
  pool.allocate(1, b);
  pool.cache(a, std::vector<uint64_t>{7}, 0);
  pool.cache(b, std::vector<uint64_t>{7}, 0);
  std::vector<int32_t> found;
  pool.lookup(std::vector<uint64_t>{7}, 1, found);
  EXPECT_EQ(found, a);
  pool.free(a);  // queue: 2 0
  pool.free(b);  // queue: 2 0 1
  std::vector<int32_t> c;
  pool.allocate(2, c);  // 2, then 0 (evicted)
  EXPECT_EQ(c, (std::vector<int32_t>{2, 0}));
  pool.lookup(std::vector<uint64_t>{7}, 1, found);
  EXPECT_EQ(found, b);
}

namespace {

// The same rules with nothing clever: a list for the free queue, a scan of every block for a hash.
struct BrutePool {
  struct Block {
    bool hashed = false;
    uint64_t hash = 0;
    int32_t users = 0;
    uint64_t cached_at = 0;  // order of caching, for the first copy
  };
  std::vector<Block> blocks;
  std::deque<int32_t> queue;
  uint64_t clock = 0;
  explicit BrutePool(int32_t n) : blocks(static_cast<std::size_t>(n)) {
    for (int32_t b = 0; b < n; ++b) queue.push_back(b);
  }
  int32_t find(uint64_t h) const {
    int32_t best = -1;
    for (int32_t b = 0; b < static_cast<int32_t>(blocks.size()); ++b) {
      const Block& k = blocks[static_cast<std::size_t>(b)];
      if (k.hashed && k.hash == h && (best < 0 || k.cached_at < blocks[static_cast<std::size_t>(best)].cached_at)) best = b;
    }
    return best;
  }
  std::vector<int32_t> lookup(const std::vector<uint64_t>& hs, int32_t max) const {
    std::vector<int32_t> out;
    for (int32_t k = 0; k < std::min<int32_t>(max, static_cast<int32_t>(hs.size())); ++k) {
      const int32_t b = find(hs[static_cast<std::size_t>(k)]);
      if (b < 0) break;
      out.push_back(b);
    }
    return out;
  }
  void touch(const std::vector<int32_t>& bs) {
    for (int32_t b : bs)
      if (blocks[static_cast<std::size_t>(b)].users++ == 0) queue.erase(std::find(queue.begin(), queue.end(), b));
  }
  void allocate(int32_t n, std::vector<int32_t>& out) {
    for (int32_t i = 0; i < n; ++i) {
      const int32_t b = queue.front();
      queue.pop_front();
      blocks[static_cast<std::size_t>(b)] = Block{false, 0, 1, 0};
      out.push_back(b);
    }
  }
  void cache(int32_t b, uint64_t h) {
    blocks[static_cast<std::size_t>(b)] = Block{true, h, blocks[static_cast<std::size_t>(b)].users, ++clock};
  }
  void free(const std::vector<int32_t>& bs) {
    for (auto it = bs.rbegin(); it != bs.rend(); ++it)
      if (--blocks[static_cast<std::size_t>(*it)].users == 0) queue.push_back(*it);
  }
};

}  // namespace

// Requests over a few shared prefixes, each taking its cached prefix and new blocks, caching them,
// sometimes computing a prefix a second time, and freeing in random order: every lookup and every
// block handed out agree with the brute-force pool. The chains run over several of the index's groups
// of 16 blocks and part within one (their hashes spilled); each request caches its blocks in two steps, as a prompt's chunks
// and its decodes do.
TEST(KvBlockPool, AgreesWithABruteForcePool) {
  std::mt19937_64 rng(5);
  const int32_t n = 256;
  KvBlockPool pool(n);
  BrutePool brute(n);
  std::vector<std::vector<int32_t>> running;
  std::vector<int32_t> found;
  for (int step = 0; step < 20000; ++step) {
    if (!running.empty() && (rng() % 3 == 0 || pool.free_blocks() < 40)) {
      const std::size_t k = rng() % running.size();
      if (running[k].size() > 1 && rng() % 2 == 0) {
        // One block let go alone: a group can then empty while hashes of its key are spilled (requests, which
        // free their whole lists last block first, never do this).
        const auto one = running[k].begin() + static_cast<std::ptrdiff_t>(rng() % running[k].size());
        pool.free(std::span(one, 1));
        brute.free({*one});
        running[k].erase(one);
        continue;
      }
      pool.free(running[k]);
      brute.free(running[k]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      continue;
    }
    // A request: one of 6 prefixes, 0-60 tokens of it, then one of 3 continuations; blocks of 2 tokens.
    const auto hs = hashes(
        {{rng() % 6, static_cast<int32_t>(rng() % 61)}, {10 + rng() % 3, 1 + static_cast<int32_t>(rng() % 20)}}, {20, 0}, 2);
    const auto len = static_cast<int32_t>(hs.size());
    const bool again = rng() % 10 == 0;  // computed without looking (a second copy)
    if (again) found.clear();
    else pool.lookup(hs, len, found);
    ASSERT_EQ(found, again ? std::vector<int32_t>{} : brute.lookup(hs, len)) << "step " << step;
    const int32_t want = len - static_cast<int32_t>(found.size());
    if (want > pool.free_blocks() - pool.evictable(found)) continue;
    pool.touch(found);
    brute.touch(found);
    std::vector<int32_t> held = found, fresh, brute_fresh;
    pool.allocate(want, fresh);
    brute.allocate(want, brute_fresh);
    ASSERT_EQ(fresh, brute_fresh) << "step " << step;
    held.insert(held.end(), fresh.begin(), fresh.end());
    // Cached in two steps, as a request's prompt chunks and decodes fill them.
    const std::size_t part = found.size() + rng() % (fresh.size() + 1);
    pool.cache(std::span(held).first(part), hs, found.size());
    pool.cache(held, hs, part);
    for (std::size_t i = 0; i < fresh.size(); ++i) brute.cache(fresh[i], hs[found.size() + i]);
    running.push_back(std::move(held));
    ASSERT_EQ(pool.free_blocks(), static_cast<int32_t>(brute.queue.size()));
    ASSERT_EQ(pool.cached_blocks(),
              std::count_if(brute.blocks.begin(), brute.blocks.end(), [](const auto& b) { return b.hashed; }));
  }
}

// Cache hits on free blocks leave holes in the free queue's ring, and their frees append behind them: with few
// allocations to sweep the holes, the ring fills and is compacted, many times over. The order blocks are handed out
// in stays the brute-force pool's, and each block is in the queue once.
TEST(KvBlockPool, KeepsTheFreeQueuesOrderThroughCompaction) {
  std::mt19937_64 rng(11);
  const int32_t n = 12;
  KvBlockPool pool(n);
  BrutePool brute(n);
  std::vector<int32_t> blocks, brute_blocks;
  pool.allocate(n, blocks);
  brute.allocate(n, brute_blocks);
  ASSERT_EQ(blocks, brute_blocks);
  std::vector<uint64_t> chain;  // one block each: the chain's k-th hash is block k's
  for (int32_t k = 0; k < n; ++k) chain.push_back(hashes({{static_cast<uint64_t>(k), 2}}, {0, 0}, 2)[0]);
  for (int32_t k = 0; k < n; ++k) {
    pool.cache(std::span(blocks).subspan(static_cast<std::size_t>(k), 1),
               std::span(chain).subspan(static_cast<std::size_t>(k), 1), 0);
    brute.cache(blocks[static_cast<std::size_t>(k)], chain[static_cast<std::size_t>(k)]);
  }
  pool.free(blocks);
  brute.free(blocks);
  std::vector<int32_t> found;
  for (int step = 0; step < 2000; ++step) {
    const auto k = static_cast<std::size_t>(rng() % static_cast<uint64_t>(n));
    pool.lookup(std::span(chain).subspan(k, 1), 1, found);
    ASSERT_EQ(found, brute.lookup({chain[k]}, 1)) << "step " << step;
    if (found.empty()) continue;  // evicted below
    pool.touch(found);
    brute.touch(found);
    pool.free(found);
    brute.free(found);
    if (step % 97 == 0) {  // now and then one handed out and given back uncached: the head moves past holes
      std::vector<int32_t> one, brute_one;
      pool.allocate(1, one);
      brute.allocate(1, brute_one);
      ASSERT_EQ(one, brute_one) << "step " << step;
      pool.free(one);
      brute.free(brute_one);
    }
    ASSERT_EQ(pool.free_blocks(), n);
  }
  std::vector<int32_t> all, brute_all;
  pool.allocate(n, all);
  brute.allocate(n, brute_all);
  EXPECT_EQ(all, brute_all);
  EXPECT_EQ(std::set<int32_t>(all.begin(), all.end()).size(), static_cast<std::size_t>(n));
}
