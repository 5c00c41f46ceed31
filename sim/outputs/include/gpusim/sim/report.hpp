#pragma once
// What a run writes (docs/reference/outputs.md): summary.json (every figure, units in the key names), jobs.csv (one
// row per job), timeseries.csv, and the resolved scenario. All of it is deterministic text.
#include <initializer_list>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "gpusim/core/json.hpp"
#include "gpusim/sim/run.hpp"
#include "gpusim/sim/scenario.hpp"

namespace gpusim {

inline constexpr const char* kVersion = "0.1.0";
inline constexpr double kHoursPerMonth = 730.0;  // monthly figures use 730 h (docs/hardware.md#prices-and-spot-behaviour)

// Nearest-rank percentile (the smallest value with at least p% of values at or below it).
double percentile(std::vector<double> values, double p);
// A figure as the summary prints it: rounded to `digits` decimals (0 to 9), never "-0".
double round_to(double v, int digits);
// num / den, 0 when den is not positive (a share of nothing).
double ratio(double num, double den);

Json summarize(const Scenario& scenario, const RunResult& result);

// The summary's numbers, one per dotted path ("jct_s.p99", "cost.by_market_usd.spot"), in the
// summary's order: one sweep row, and what `check` compares. Nulls (no value) are left out, and so
// are arrays, unless `arrays_by_name`: then an array's objects are keyed by their "name"
// ("pools.a100.cost_usd"), as the figures over seeds are.
std::vector<std::pair<std::string, double>> flatten_summary(const Json& summary, bool arrays_by_name = false);

// The result tables (jobs.csv, timeseries.csv, ...) cell by cell: the CSV writers print them and the
// Python module fills DataFrame columns from them, without text in between.
class TableSink {
 public:
  virtual ~TableSink() = default;
  virtual void header(std::span<const std::string_view> columns) = 0;
  void header(std::initializer_list<std::string_view> columns) { header(std::span(columns.begin(), columns.size())); }
  virtual void reserve(std::size_t /*rows*/) {}  // the rows to come, when known
  virtual void cell(int64_t v) = 0;
  virtual void cell(double v) = 0;    // printed shortest round-trip ("4", "0.25")
  virtual void cell(Duration v) = 0;  // seconds, printed by format_seconds
  virtual void cell(std::string_view v) = 0;
  virtual void empty() = 0;  // a field that does not apply to the row
  virtual void end_row() = 0;
  void cell(uint32_t v) { cell(static_cast<int64_t>(v)); }
  void cell(int32_t v) { cell(static_cast<int64_t>(v)); }
  void cell(Time t) { cell(t - Time()); }
  void cell(const std::string& v) { cell(std::string_view(v)); }
  void cell(const char* v) { cell(std::string_view(v)); }
};

// Prints a table as CSV (fields unquoted, as the tables' texts never hold commas).
class CsvSink final : public TableSink {
 public:
  explicit CsvSink(std::ostream& out) : out_(out) {}
  ~CsvSink() override { flush(); }
  CsvSink(const CsvSink&) = delete;
  CsvSink& operator=(const CsvSink&) = delete;
  void header(std::span<const std::string_view> columns) override;
  using TableSink::header;
  void cell(int64_t v) override;
  void cell(double v) override;
  void cell(Duration v) override;
  void cell(std::string_view v) override;
  void empty() override;
  void end_row() override;
  using TableSink::cell;

 private:
  void separate();
  void flush();
  std::ostream& out_;
  std::string buffer_;
  bool first_ = true;  // no comma before the row's first field
};

void jobs_table(TableSink& sink, const Scenario& scenario, const RunResult& result);
void timeseries_table(TableSink& sink, const RunResult& result);
void pool_timeseries_table(TableSink& sink, const RunResult& result);
void gpus_table(TableSink& sink, const RunResult& result);
void cost_table(TableSink& sink, const Scenario& scenario, const RunResult& result);
// One row per namespace (tenant_ledger.hpp): waits, what it held against its fair share, preemptions
// and rejections with their reasons, cost. Only the header when the run kept no tenant figures.
void tenants_table(TableSink& sink, const Scenario& scenario, const RunResult& result);

void write_jobs_csv(std::ostream& out, const Scenario& scenario, const RunResult& result);
void write_timeseries_csv(std::ostream& out, const RunResult& result);
// The same samples per pool, one row per (time, pool): what per-pool plots draw.
void write_pool_timeseries_csv(std::ostream& out, const RunResult& result);
// One row per GPU: its final MIG layout and its effective utilization over the run, as DCGM would show.
void write_gpus_csv(std::ostream& out, const RunResult& result);

// Cost per pool, market and in total (billed, held by jobs, used by their SMs, idle, waste), then
// the jobs' held cost rolled up by tenant, job kind and GPU model.
void write_cost_csv(std::ostream& out, const Scenario& scenario, const RunResult& result);
// Every stretch in which a pool's effective utilization stayed under the alert threshold.
void write_low_utilization_csv(std::ostream& out, const RunResult& result);
void write_tenants_csv(std::ostream& out, const Scenario& scenario, const RunResult& result);
// summary.json's `serving` (every service's requests together) and `services` (one each), when the
// scenario has services.
void add_services_summary(Json& summary, const Scenario& scenario, const RunResult& result);
// services.csv: summary.json's services, flattened, one row each.
void services_table(TableSink& sink, const Json& summary);
void write_services_csv(std::ostream& out, const Json& summary);
// requests.csv: one row per request of the services.
void requests_table(TableSink& sink, const Scenario& scenario, const RunResult& result);
void write_requests_csv(std::ostream& out, const Scenario& scenario, const RunResult& result);
// replicas.csv: each change of a service's desired, created and ready replica counts.
void replicas_table(TableSink& sink, const Scenario& scenario, const RunResult& result);
void write_replicas_csv(std::ostream& out, const Scenario& scenario, const RunResult& result);

}  // namespace gpusim
