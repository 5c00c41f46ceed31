#pragma once
// A vector indexed by ids of which few may ever be used: an autoscaled pool reserves node and GPU
// ids up to its maximum (a million nodes, say), but only the nodes it provisions should cost memory.
// Elements live in fixed pages allocated on first write; an element never written reads as the
// fill value, so it behaves as std::vector<T>(size, fill) would. Pages never move: references to
// written elements stay valid while it grows.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace gpusim {

template <class T, std::size_t PageBits = 8>
class PagedVector {
 public:
  static constexpr std::size_t kPage = std::size_t{1} << PageBits;

  PagedVector() = default;
  explicit PagedVector(std::size_t size, T fill = T{}) : fill_(std::move(fill)) { resize(size); }
  PagedVector(PagedVector&&) noexcept = default;
  PagedVector& operator=(PagedVector&&) noexcept = default;
  PagedVector(const PagedVector& o) : size_(o.size_), fill_(o.fill_), pages_(o.pages_.size()) {
    for (std::size_t p = 0; p < pages_.size(); ++p)
      if (o.pages_[p]) std::copy_n(o.pages_[p].get(), kPage, allocate(pages_[p]));
  }
  PagedVector& operator=(const PagedVector& o) { return *this = PagedVector(o); }

  std::size_t size() const { return size_; }
  // Grows (or shrinks) the index range; no page is allocated.
  void resize(std::size_t size) {
    size_ = size;
    pages_.resize((size + kPage - 1) >> PageBits);
  }

  const T& operator[](std::size_t i) const {
    const T* page = pages_[i >> PageBits].get();
    return page ? page[i & (kPage - 1)] : fill_;
  }
  // Allocates the element's page (filled) on first use.
  T& operator[](std::size_t i) {
    std::unique_ptr<T[]>& page = pages_[i >> PageBits];
    if (!page) std::fill_n(allocate(page), kPage, fill_);
    return page[i & (kPage - 1)];
  }

  // Pages holding elements: what it costs (the fill value reads cost none).
  std::size_t pages_allocated() const {
    std::size_t n = 0;
    for (const auto& p : pages_) n += p != nullptr;
    return n;
  }

 private:
  static T* allocate(std::unique_ptr<T[]>& page) {
    page = std::make_unique<T[]>(kPage);
    return page.get();
  }
  std::size_t size_ = 0;
  T fill_{};
  std::vector<std::unique_ptr<T[]>> pages_;
};

}  // namespace gpusim
