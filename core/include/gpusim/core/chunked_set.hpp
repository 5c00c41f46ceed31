#pragma once
// A sorted set of ids that is large and changes at every event (the running jobs, the nodes of an
// index bucket). A sorted vector (boost flat_set) moves half the set on each insert and erase: at
// 100,000 GPUs with 61,000 jobs running that memmove was a quarter of the run (issue 22). Here the
// elements sit in sorted chunks of at most kChunk, so an insert or erase moves at most one chunk,
// plus the short list of chunks when one splits or merges. Iteration is in ascending order, as a
// flat_set's, so code that walks it sees the same order.
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <iterator>
#include <vector>

namespace gpusim {

template <class T, std::size_t kChunk = 256>
class ChunkedSet {
  static_assert(kChunk >= 4);

 public:
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;

    const_iterator() = default;
    reference operator*() const { return (*chunks_)[chunk_][at_]; }
    pointer operator->() const { return &**this; }
    const_iterator& operator++() {
      if (++at_ == (*chunks_)[chunk_].size()) {
        ++chunk_;
        at_ = 0;
      }
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const const_iterator& o) const { return chunk_ == o.chunk_ && at_ == o.at_; }

   private:
    friend class ChunkedSet;
    const_iterator(const std::vector<std::vector<T>>* chunks, std::size_t chunk, std::size_t at)
        : chunks_(chunks), chunk_(chunk), at_(at) {}
    const std::vector<std::vector<T>>* chunks_ = nullptr;
    std::size_t chunk_ = 0, at_ = 0;
  };

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const_iterator begin() const { return {&chunks_, 0, 0}; }
  const_iterator end() const { return {&chunks_, chunks_.size(), 0}; }
  const T& front() const { return chunks_.front().front(); }  // the smallest; the set is not empty
  // The k-th smallest (from 0), k < size(): walks the chunks, not the elements.
  const T& nth(std::size_t k) const {
    assert(k < size_);
    for (const std::vector<T>& c : chunks_) {
      if (k < c.size()) return c[k];
      k -= c.size();
    }
    return chunks_.back().back();  // unreachable: k < size()
  }

  bool contains(const T& v) const {
    const std::size_t i = chunk_of(v);
    return i < chunks_.size() && std::binary_search(chunks_[i].begin(), chunks_[i].end(), v);
  }

  // False if it was already in.
  bool insert(const T& v) {
    if (chunks_.empty()) {
      chunks_.emplace_back(1, v);
      ++size_;
      return true;
    }
    const std::size_t i = std::min(chunk_of(v), chunks_.size() - 1);
    std::vector<T>& c = chunks_[i];
    const auto at = std::lower_bound(c.begin(), c.end(), v);
    if (at != c.end() && !(v < *at)) return false;
    c.insert(at, v);
    ++size_;
    if (c.size() > kChunk) {  // split in halves
      std::vector<T> upper(c.begin() + static_cast<std::ptrdiff_t>(c.size() / 2), c.end());
      c.resize(c.size() / 2);
      chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(i + 1), std::move(upper));
    }
    return true;
  }

  // False if it was not in.
  bool erase(const T& v) {
    const std::size_t i = chunk_of(v);
    if (i == chunks_.size()) return false;
    std::vector<T>& c = chunks_[i];
    const auto at = std::lower_bound(c.begin(), c.end(), v);
    if (at == c.end() || v < *at) return false;
    c.erase(at);
    --size_;
    if (c.empty()) {
      chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (c.size() < kChunk / 4) {
      // Merge a small chunk into a neighbour it fits beside, so chunks stay few (nth and the chunk
      // list's moves cost the number of chunks).
      if (i + 1 < chunks_.size() && c.size() + chunks_[i + 1].size() <= kChunk) merge_next(i);
      else if (i > 0 && chunks_[i - 1].size() + c.size() <= kChunk) merge_next(i - 1);
    }
    return true;
  }

 private:
  // The first chunk whose largest element is not below v (chunks_.size() if none).
  std::size_t chunk_of(const T& v) const {
    return static_cast<std::size_t>(
        std::partition_point(chunks_.begin(), chunks_.end(), [&](const std::vector<T>& c) { return c.back() < v; }) -
        chunks_.begin());
  }
  void merge_next(std::size_t i) {
    chunks_[i].insert(chunks_[i].end(), chunks_[i + 1].begin(), chunks_[i + 1].end());
    chunks_.erase(chunks_.begin() + static_cast<std::ptrdiff_t>(i + 1));
  }

  std::vector<std::vector<T>> chunks_;  // each sorted and non-empty; every element below those of the next
  std::size_t size_ = 0;
};

}  // namespace gpusim
