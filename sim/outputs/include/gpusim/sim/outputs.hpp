#pragma once
// The writers of a run directory's files, one per entry of the output catalog (output_spec.hpp,
// made with them from sim/spec/include/gpusim/sim/outputs.def). A writer is an observer of one run, so an output that
// needs the run's history (the Perfetto trace) sees every state change; the others write from the
// result at the end. Adding an output is one writer file plus one line of outputs.def.
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/sim/output_spec.hpp"
#include "gpusim/sim/report.hpp"
#include "gpusim/sim/run.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim {

class OutputWriter : public Observer {
 public:
  virtual void write(std::ostream& out, const Scenario& s, const RunResult& r, const Json& summary) const = 0;
};

// A fresh writer of the output `o`.
std::unique_ptr<OutputWriter> make_output_writer(const OutputSpec& o);

// The writers of one run: every default output plus the on-request ones named (the scenario's
// `outputs:` and the flags). Attach observers() to the run, then write() its directory.
class RunOutputs {
 public:
  explicit RunOutputs(const std::vector<std::string>& requested);
  const std::vector<Observer*>& observers() const { return observers_; }
  // Writes every file into a fresh temporary directory beside `dir` (same parent, `.NAME.tmp-...`)
  // and renames it to `dir` once all are complete; on any failure the temporary directory is
  // removed and `dir` is untouched. `dir` must not exist or be an empty directory (replaced). With
  // `force`, an existing run directory (only files named as outputs) is replaced: the old one is
  // renamed aside, the new one renamed in, the old one removed. Refused (InputError): `dir` a file or
  // a symlink, a non-empty directory without `force`, a directory holding other files even with
  // `force`, and a directory that another run filled meanwhile (two runs into one new directory:
  // one of them wins whole, the other fails).
  void write(const std::string& dir, bool force, const Scenario& s, const RunResult& r, const Json& summary) const;
  // The checks of write() on `dir` alone, for a caller that wants to fail before a run, not after.
  static void check_target(const std::string& dir, bool force);
  // The files written, comma-separated.
  std::string files() const;
  // The name and text of each of this run's files named in `files`, in the table's order: what
  // write() puts on disk, kept in memory (the HTML report's inputs, cli/html_report.hpp).
  std::vector<std::pair<std::string, std::string>> texts(const Scenario& s, const RunResult& r, const Json& summary,
                                                         const std::vector<std::string_view>& files) const;

 private:
  std::vector<std::pair<const OutputSpec*, std::unique_ptr<OutputWriter>>> writers_;
  std::vector<Observer*> observers_;
};

// A single output file (check --junit/--markdown, sweep --out, packing --csv). check_output_file
// refuses, before any run, an existing file or symlink unless `force`, and a directory always.
// write_output_file writes a temporary file beside `path` and renames it onto `path`: a symlink
// there is replaced by the file, never written through; a failed write leaves `path` as it was.
void check_output_file(const std::string& path, const std::string& flag, bool force);
void write_output_file(const std::string& path, const std::string& text);
// The same, the file's text written by `write` (a big file never held in memory whole).
void write_output_file(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace gpusim
