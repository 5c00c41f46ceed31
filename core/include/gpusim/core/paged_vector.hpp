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
  PagedVector(const PagedVector& o) : fill_(o.fill_) {
    resize(o.size_);
    for (std::size_t p = 0; p < pages_.size(); ++p)
      if (o.pages_[p] != o.fill_page_.get()) std::copy_n(o.pages_[p], kPage, own(p));
  }
  PagedVector& operator=(const PagedVector& o) { return *this = PagedVector(o); }

  std::size_t size() const { return size_; }
  // Grows the index range; no page is allocated.
  void resize(std::size_t size) {
    if (!fill_page_) {
      fill_page_ = std::make_unique<T[]>(kPage);
      std::fill_n(fill_page_.get(), kPage, fill_);
    }
    size_ = size;
    pages_.resize((size + kPage - 1) >> PageBits, fill_page_.get());
  }

  // Reads cost one load more than a vector's, and no branch: pages never written point at one
  // shared page of fill values.
  const T& operator[](std::size_t i) const { return pages_[i >> PageBits][i & (kPage - 1)]; }
  // Allocates the element's page (filled) on first write.
  T& operator[](std::size_t i) {
    T*& page = pages_[i >> PageBits];
    if (page == fill_page_.get()) [[unlikely]]
      std::copy_n(fill_page_.get(), kPage, own(i >> PageBits));  // sets `page`
    return page[i & (kPage - 1)];
  }

  // Pages holding written elements: what it costs beyond its one page of fill values.
  std::size_t pages_allocated() const { return owned_.size(); }

 private:
  T* own(std::size_t p) {
    owned_.push_back(std::make_unique<T[]>(kPage));
    return pages_[p] = owned_.back().get();
  }
  std::size_t size_ = 0;
  T fill_{};
  std::unique_ptr<T[]> fill_page_;
  std::vector<T*> pages_;                    // each an owned page or the fill page
  std::vector<std::unique_ptr<T[]>> owned_;  // in the order they were written
};

}  // namespace gpusim
