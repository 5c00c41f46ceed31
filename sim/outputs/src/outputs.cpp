#include "gpusim/sim/outputs.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unordered_map>

#include "gpusim/core/error.hpp"

namespace gpusim {

std::unique_ptr<OutputWriter> make_trace_writer();      // trace_writer.cpp
std::unique_ptr<OutputWriter> make_metrics_writer();    // metrics_writer.cpp
std::unique_ptr<OutputWriter> make_occupancy_writer();  // occupancy_writer.cpp

namespace {

// An output written from the run's result alone.
template <void (*Write)(std::ostream&, const Scenario&, const RunResult&, const Json&)>
class ResultWriter final : public OutputWriter {
 public:
  void write(std::ostream& out, const Scenario& s, const RunResult& r, const Json& summary) const override {
    Write(out, s, r, summary);
  }
  static std::unique_ptr<OutputWriter> make() { return std::make_unique<ResultWriter>(); }
};

void summary_json(std::ostream& o, const Scenario&, const RunResult&, const Json& summary) { o << summary.dump(2) << '\n'; }
void jobs_csv(std::ostream& o, const Scenario& s, const RunResult& r, const Json&) { write_jobs_csv(o, s, r); }
void timeseries_csv(std::ostream& o, const Scenario&, const RunResult& r, const Json&) { write_timeseries_csv(o, r); }
void pool_timeseries_csv(std::ostream& o, const Scenario&, const RunResult& r, const Json&) { write_pool_timeseries_csv(o, r); }
void gpus_csv(std::ostream& o, const Scenario&, const RunResult& r, const Json&) { write_gpus_csv(o, r); }
void cost_csv(std::ostream& o, const Scenario& s, const RunResult& r, const Json&) { write_cost_csv(o, s, r); }
void low_utilization_csv(std::ostream& o, const Scenario&, const RunResult& r, const Json&) { write_low_utilization_csv(o, r); }
void tenants_csv(std::ostream& o, const Scenario& s, const RunResult& r, const Json&) { write_tenants_csv(o, s, r); }
void services_csv(std::ostream& o, const Scenario&, const RunResult&, const Json& summary) { write_services_csv(o, summary); }
void replicas_csv(std::ostream& o, const Scenario& s, const RunResult& r, const Json&) { write_replicas_csv(o, s, r); }
// Asks the run to keep a row per request (WantsRequests).
class RequestsWriter final : public OutputWriter, public WantsRequests {
 public:
  void write(std::ostream& out, const Scenario& s, const RunResult& r, const Json&) const override {
    write_requests_csv(out, s, r);
  }
  static std::unique_ptr<OutputWriter> make() { return std::make_unique<RequestsWriter>(); }
};
void scenario_yaml(std::ostream& o, const Scenario& s, const RunResult&, const Json&) {
  YAML::Emitter e;
  e << s.resolved.yaml();
  o << "# The scenario as run, after --set overrides.\n" << e.c_str() << '\n';
}

}  // namespace

std::unique_ptr<OutputWriter> make_output_writer(const OutputSpec& o) {
  static const std::unordered_map<std::string_view, std::unique_ptr<OutputWriter> (*)()> writers{
#define GPUSIM_OUTPUT(name, file, description, by_default, writer) {name, &writer},
#include "gpusim/sim/outputs.def"
#undef GPUSIM_OUTPUT
  };
  return writers.at(o.name)();
}

RunOutputs::RunOutputs(const std::vector<std::string>& requested) {
  for (const OutputSpec& o : output_table()) {
    if (!o.by_default && std::find(requested.begin(), requested.end(), o.name) == requested.end()) continue;
    writers_.emplace_back(&o, make_output_writer(o));
    observers_.push_back(writers_.back().second.get());
  }
}

std::string RunOutputs::files() const {
  std::string out;
  for (const auto& [spec, writer] : writers_) out += fmt::format("{}{}", out.empty() ? "" : ", ", spec->file);
  return out;
}

std::vector<std::pair<std::string, std::string>> RunOutputs::texts(const Scenario& s, const RunResult& r, const Json& summary,
                                                                   const std::vector<std::string_view>& files) const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [spec, writer] : writers_) {
    if (std::find(files.begin(), files.end(), spec->file) == files.end()) continue;
    std::ostringstream text;
    writer->write(text, s, r, summary);
    out.emplace_back(std::string(spec->file), std::move(text).str());
  }
  return out;
}

namespace {

namespace fs = std::filesystem;

// `dir` as the entry to replace: "out/" and "." name their directory, not an empty last component.
fs::path target_path(const std::string& dir) {
  fs::path p(dir);
  if (!p.has_filename() || p.filename() == "." || p.filename() == "..") p = fs::absolute(p).lexically_normal();
  while (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p;
}

// A name beside `target` for a temporary entry: ".NAME.KIND-PID-RANDOM", never a name gpusim writes.
fs::path temp_name(const fs::path& target, std::string_view kind) {
  static std::atomic<unsigned> counter{0};
  std::random_device random;
  return target.parent_path() /
         fmt::format(".{}.{}-{}-{:08x}", target.filename().string(), kind, ::getpid(), random() ^ counter++);
}

std::string errno_text() { return std::strerror(errno); }

// Removes a temporary entry when the write that made it fails (or, once replaced, the old directory).
struct RemoveOnExit {
  fs::path path;
  ~RemoveOnExit() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

}  // namespace

void RunOutputs::check_target(const std::string& dir, bool force) {
  const SourceLocation flag{"", std::nullopt, "--out"};
  const fs::path target = target_path(dir);
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(target, ec);
  switch (st.type()) {
    case fs::file_type::not_found: return;
    case fs::file_type::symlink: {
      const fs::path to = fs::read_symlink(target, ec);
      throw InputError(flag, fmt::format("'{}' is a symbolic link (to '{}'); give the directory itself: a run directory is "
                                         "never written through a link",
                                         dir, to.string()));
    }
    case fs::file_type::regular: throw InputError(flag, fmt::format("'{}' is a file, expected a directory", dir));
    case fs::file_type::directory: break;
    default:
      if (ec) throw InputError(flag, fmt::format("cannot inspect '{}': {}", dir, ec.message()));
      throw InputError(flag, fmt::format("'{}' is not a directory", dir));
  }
  if (fs::is_empty(target, ec)) return;
  if (!force) throw InputError({dir, std::nullopt, "--out"}, "directory exists and is not empty; pass --force to replace it");
  // --force replaces a run directory, never one that holds anything else (a typo'd --out ~).
  for (const fs::directory_entry& e : fs::directory_iterator(target, ec)) {
    const std::string name = e.path().filename().string();
    const bool output = std::any_of(output_table().begin(), output_table().end(),
                                    [&](const OutputSpec& o) { return o.file == name; });
    const fs::file_type type = e.symlink_status(ec).type();
    if (!output || (type != fs::file_type::regular && type != fs::file_type::symlink))
      throw InputError(flag, fmt::format("'{}' holds '{}', which is not a gpusim output; --force replaces only a run "
                                         "directory (move it away or choose another --out)",
                                         dir, name));
  }
  if (ec) throw InputError(flag, fmt::format("cannot list '{}': {}", dir, ec.message()));
}

void RunOutputs::write(const std::string& dir, bool force, const Scenario& s, const RunResult& r, const Json& summary) const {
  check_target(dir, force);
  const SourceLocation flag{"", std::nullopt, "--out"};
  const fs::path target = target_path(dir);
  std::error_code ec;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw InputError(flag, fmt::format("cannot create '{}': {}", target.parent_path().string(), ec.message()));
  }
  // Every file goes into a directory only this run knows (mode 0777 less the umask, as mkdir -p).
  fs::path tmp;
  for (int tries = 0;; ++tries) {
    tmp = temp_name(target, "tmp");
    if (::mkdir(tmp.c_str(), 0777) == 0) break;
    if (errno != EEXIST || tries == 100)
      throw InputError(flag, fmt::format("cannot create a directory beside '{}': {}", dir, errno_text()));
  }
  RemoveOnExit cleanup{tmp};
  for (const auto& [spec, writer] : writers_) {
    const fs::path shown = fs::path(dir) / spec->file;
    std::ofstream f(tmp / spec->file, std::ios::binary);
    if (!f) throw OutputError(shown.string(), "cannot write file");
    writer->write(f, s, r, summary);
    f.close();
    if (!f) throw OutputError(shown.string(), "cannot write file (disk full?)");
  }
  // Every file is complete: rename the directory into place. rename(2) replaces only a missing or
  // empty directory, so of two runs into one new directory the second fails here.
  if (force) check_target(dir, force);  // still a run directory, after the run
  const fs::file_status st = fs::symlink_status(target, ec);
  if (force && st.type() == fs::file_type::directory && !fs::is_empty(target, ec)) {
    const fs::path old = temp_name(target, "old");
    if (::rename(target.c_str(), old.c_str()) != 0)
      throw InputError(flag, fmt::format("cannot move the old '{}' aside: {}", dir, errno_text()));
    if (::rename(tmp.c_str(), target.c_str()) != 0) {
      const std::string why = errno_text();
      ::rename(old.c_str(), target.c_str());  // put the old run back
      throw InputError(flag, fmt::format("cannot rename the new run directory to '{}': {}", dir, why));
    }
    cleanup.path = old;
    return;
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    if (errno == ENOTEMPTY || errno == EEXIST)
      throw InputError(flag, fmt::format("'{}' was written by another run meanwhile; this run's files were not written", dir));
    throw InputError(flag, fmt::format("cannot rename the new run directory to '{}': {}", dir, errno_text()));
  }
  cleanup.path.clear();
}

void check_output_file(const std::string& path, const std::string& flag, bool force) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  const SourceLocation where{path, std::nullopt, flag};
  switch (st.type()) {
    case fs::file_type::not_found: return;
    case fs::file_type::symlink: {
      if (!force)
        throw InputError(where, "is a symbolic link; pass --force to replace the link by the file (its target is left alone)");
      const fs::file_type to = fs::status(path, ec).type();
      if (to != fs::file_type::regular && to != fs::file_type::not_found)
        throw InputError(where, "is a symbolic link to something other than a file");
      return;
    }
    case fs::file_type::regular:
      if (!force) throw InputError(where, "file exists; pass --force to overwrite it");
      return;
    case fs::file_type::directory: throw InputError(where, "is a directory, expected a file");
    default:
      if (ec) throw InputError(where, fmt::format("cannot inspect: {}", ec.message()));
      throw InputError(where, "is not a regular file");
  }
}

void write_output_file(const std::string& path, const std::string& text) {
  write_output_file(path, [&](std::ostream& out) { out << text; });
}

void write_output_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const SourceLocation where{path, std::nullopt, ""};
  fs::path tmp;
  int fd = -1;
  for (int tries = 0; fd < 0; ++tries) {
    tmp = temp_name(fs::path(path), "tmp");
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || tries == 100))
      throw InputError(where, fmt::format("cannot write the file: {}", errno_text()));
  }
  ::close(fd);  // the name is this write's alone now; a stream writes it
  RemoveOnExit cleanup{tmp};
  std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
  if (!f) throw OutputError(path, "cannot write the file");
  write(f);
  f.close();
  if (!f) throw OutputError(path, "cannot write the file (disk full?)");
  // rename(2) replaces the entry at `path`: a symlink there is replaced, its target left alone.
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw OutputError(path, fmt::format("cannot write the file: {}", errno_text()));
  cleanup.path.clear();
}

}  // namespace gpusim
