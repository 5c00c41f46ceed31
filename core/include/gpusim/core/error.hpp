#pragma once
// The error policy: bad user input throws InputError, which names the file, the line or
// field path, and what was expected; the CLI turns it into exit code 2 and Python into an exception.
// Programmer errors are assertions; expected failures (a job that does not fit) are return values.
#include <optional>
#include <stdexcept>
#include <string>

namespace gpusim {

struct SourceLocation {
  std::string file;           // may be empty for input that did not come from a file
  std::optional<int> line;    // 1-based
  std::string field;          // dotted path such as "cluster.pools[0].count"
};

// "FILE:line N: FIELD: what", as errors and warnings about input name their place.
std::string located(const SourceLocation& where, const std::string& what);

class InputError : public std::runtime_error {
 public:
  InputError(const SourceLocation& where, const std::string& what);
  const SourceLocation& where() const { return where_; }
  const std::string& reason() const { return reason_; }

 private:
  SourceLocation where_;
  std::string reason_;
};

// An output that was being written could not be stored (a full disk, an I/O error): the run failed
// (exit 1) though its input was good. A path the user gave that cannot be written is an InputError.
class OutputError : public std::runtime_error {
 public:
  OutputError(const std::string& path, const std::string& what) : std::runtime_error(path + ": " + what) {}
};

// A scheduling policy asked the engine for something impossible; the run stops loudly.
class PolicyError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace gpusim
