#pragma once
// A value that many objects share, such as a job's list of allowed GPU models or its device-plugin
// resource: kept once per process, each holder keeping a pointer to it (8 bytes, where a vector
// costs 24 and a string 32 per job). Values are never freed; a run has few distinct ones.
#include <mutex>
#include <set>

namespace gpusim {

template <class T>
class Interned {
 public:
  Interned() : value_(&empty()) {}
  Interned(const T& value) : value_(&intern(value)) {}  // implicit: a drop-in for T
  const T& get() const { return *value_; }
  operator const T&() const { return *value_; }
  const T& operator*() const { return *value_; }
  const T* operator->() const { return value_; }
  // Equal values share one address.
  bool operator==(const Interned& other) const { return value_ == other.value_; }

 private:
  static const T& empty() {
    static const T value{};
    return value;
  }
  static const T& intern(const T& value) {
    if (value == T{}) return empty();
    static std::mutex mutex;
    // A node's address does not move; never destroyed, as holders may outlive static destruction.
    static auto& values = *new std::set<T>;
    const std::lock_guard lock(mutex);
    return *values.insert(value).first;
  }

  const T* value_;
};

}  // namespace gpusim
