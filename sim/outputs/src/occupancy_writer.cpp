// occupancy.json, on request (`--occupancy`; `--report` implies it): what the default outputs lack for
// the HTML report's heat map and event plots. The nodes of each pool are grouped into at most about
// 128 rows (consecutive slots, in proportion to the pools' slots) and time into at most 200 columns
// (the timeseries step, doubled whenever the run outgrows 200), so the file stays small whatever
// the fleet and the run's length (synthetic-1m: 2,048 nodes, 1 M jobs). Per cell: the share of the
// row's GPUs that were up (ready or draining) and allocated, averaged over the column. Per pool and
// column: spot reclaim notices, nodes that became ready and nodes that went away.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gpusim/sim/outputs.hpp"

namespace gpusim {

namespace {

constexpr uint32_t kMaxRows = 128;
constexpr std::size_t kMaxColumns = 200;

class OccupancyWriter final : public OutputWriter {
 public:
  void started(const RunState& run) override {
    const Cluster& c = run.cluster();
    step_ = std::max<int64_t>(run.scenario().timeseries_step.us(), 1);
    uint64_t slots_total = 0;
    for (const Pool& p : c.pools()) slots_total += p.node_count;
    for (PoolId pi{0}; pi < c.pools().size(); ++pi) {
      const Pool& p = c.pool(pi);
      if (p.node_count == 0) continue;
      const auto share = static_cast<uint32_t>(uint64_t{kMaxRows} * p.node_count / std::max<uint64_t>(slots_total, 1));
      const uint32_t rows = std::clamp<uint32_t>(share, 1, p.node_count);
      PoolRows pr{pi, static_cast<uint32_t>(rows_.size()), (p.node_count + rows - 1) / rows};
      for (uint32_t first = 0; first < p.node_count; first += pr.group) {
        Row r;
        r.pool = pi;
        r.first_slot = first;
        r.last_slot = std::min(first + pr.group, p.node_count) - 1;
        // A node list's slots may differ in GPUs; a template pool's slots are all alike.
        if (p.one_per_slot())
          for (uint32_t i = r.first_slot; i <= r.last_slot; ++i) r.gpus += p.shape(i).gpus;
        else r.gpus = static_cast<uint64_t>(p.shape(0).gpus) * (r.last_slot - r.first_slot + 1);
        rows_.push_back(std::move(r));
      }
      pools_.push_back(pr);
    }
    events_.assign(c.pools().size(), {});
    c.for_each_node([&](NodeId n) {
      if (has_capacity(c.node(n).state)) row(c, n).up_gpus += c.node(n).gpu_count;
    });
  }

  void job_started(const RunState& run, JobId id) override { claim(run, id, +1); }
  void job_stopping(const RunState& run, JobId id, StopCause) override { claim(run, id, -1); }

  void node_state(const RunState& run, NodeId n, NodeState from) override {
    const Cluster& c = run.cluster();
    const Node& node = c.node(n);
    if (has_capacity(from) != has_capacity(node.state)) {
      Row& r = row(c, n);
      advance(r, run.now());
      r.up_gpus += has_capacity(node.state) ? node.gpu_count : -static_cast<int64_t>(node.gpu_count);
    }
    const std::size_t col = column(run.now());
    PoolEvents& e = events_[node.pool];
    if (node.state == NodeState::draining) ++at(e.reclaims, col);
    else if (node.state == NodeState::ready && from != NodeState::draining) ++at(e.ready, col);
    else if (node.state == NodeState::off && from != NodeState::provisioning) ++at(e.gone, col);
  }

  void finished(const RunState& run) override {
    end_ = run.now();
    column(end_);
    for (Row& r : rows_) advance(r, end_);
  }

  void write(std::ostream& out, const Scenario&, const RunResult& r, const Json&) const override {
    const int64_t end_us = end_.us();
    const std::size_t columns = std::max<std::size_t>(1, static_cast<std::size_t>((end_us + width_ - 1) / width_));
    // A cell's shares over the part of its column the run lasted (the last column may be cut short).
    const auto span_us = [&](std::size_t col) {
      const int64_t start = static_cast<int64_t>(col) * width_;
      return static_cast<double>(std::max<int64_t>(std::min(start + width_, end_us) - start, 1));
    };
    const auto shares = [&](const std::vector<double>& milli_us, uint64_t gpus) {
      Json a = Json::array();
      for (std::size_t col = 0; col < columns; ++col) {
        const double v = col < milli_us.size() && gpus ? milli_us[col] / (1000.0 * static_cast<double>(gpus) * span_us(col))
                                                       : 0.0;
        a.push_back(std::round(v * 1000.0) / 1000.0);
      }
      return a;
    };
    const auto counts = [&](const std::vector<uint32_t>& v) {
      Json a = Json::array();
      for (std::size_t col = 0; col < columns; ++col) a.push_back(col < v.size() ? v[col] : 0);
      return a;
    };
    const Cluster& c = r.cluster;
    Json rows = Json::array();
    for (const Row& row : rows_) {
      const Pool& p = c.pool(row.pool);
      rows.push_back({{"pool", p.name},
                      {"first_node", p.node(row.first_slot).name},
                      {"last_node", p.node(row.last_slot).name},
                      {"nodes", row.last_slot - row.first_slot + 1},
                      {"gpus", row.gpus},
                      {"up", shares(row.up_milli_us, row.gpus)},
                      {"allocated", shares(row.allocated_milli_us, row.gpus)}});
    }
    Json events = Json::array();
    for (PoolId p{0}; p < events_.size(); ++p)
      events.push_back({{"pool", c.pool(p).name},
                        {"reclaims", counts(events_[p].reclaims)},
                        {"nodes_ready", counts(events_[p].ready)},
                        {"nodes_gone", counts(events_[p].gone)}});
    out << Json{{"column_s", static_cast<double>(width_) / 1e6},
                {"end_s", end_.seconds()},
                {"columns", columns},
                {"rows", std::move(rows)},
                {"events", std::move(events)}}
               .dump()
        << '\n';
  }

 private:
  struct PoolRows {
    PoolId pool;
    uint32_t first_row = 0;
    uint32_t group = 1;  // slots per row
  };
  struct Row {
    PoolId pool;
    uint32_t first_slot = 0, last_slot = 0;
    uint64_t gpus = 0;  // of all its slots
    int64_t up_gpus = 0, allocated_milli = 0;
    Time since;
    std::vector<double> up_milli_us, allocated_milli_us;  // per column
  };
  struct PoolEvents {
    std::vector<uint32_t> reclaims, ready, gone;  // per column
  };

  Row& row(const Cluster& c, NodeId n) {
    const PoolId p = c.node(n).pool;
    const auto it = std::find_if(pools_.begin(), pools_.end(), [&](const PoolRows& pr) { return pr.pool == p; });
    return rows_[it->first_row + (n - c.pool(p).first_node) / it->group];
  }

  template <class T>
  static T& at(std::vector<T>& v, std::size_t col) {
    if (v.size() <= col) v.resize(col + 1);
    return v[col];
  }

  // The column of time t, first widening the columns (pairs merged) until t falls in the first 200.
  std::size_t column(Time t) {
    if (width_ == 0) width_ = step_;
    while (static_cast<std::size_t>(t.us() / width_) >= kMaxColumns) {
      const auto halve = [](auto& v) {
        for (std::size_t i = 0; i < v.size(); ++i) v[i / 2] = (i % 2 ? v[i / 2] : 0) + v[i];
        v.resize((v.size() + 1) / 2);
      };
      for (Row& r : rows_) {
        halve(r.up_milli_us);
        halve(r.allocated_milli_us);
      }
      for (PoolEvents& e : events_) {
        halve(e.reclaims);
        halve(e.ready);
        halve(e.gone);
      }
      width_ *= 2;
    }
    return static_cast<std::size_t>(t.us() / width_);
  }

  // Adds the row's state since its last change up to `now`, split over the columns it spans.
  void advance(Row& r, Time now) {
    column(now);
    for (int64_t t = r.since.us(); t < now.us();) {
      const auto col = static_cast<std::size_t>(t / width_);
      const int64_t until = std::min(now.us(), static_cast<int64_t>(col + 1) * width_);
      const auto dt = static_cast<double>(until - t);
      at(r.up_milli_us, col) += static_cast<double>(r.up_gpus) * 1000.0 * dt;
      at(r.allocated_milli_us, col) += static_cast<double>(r.allocated_milli) * dt;
      t = until;
    }
    r.since = now;
  }

  void claim(const RunState& run, JobId id, int sign) {
    const Cluster& c = run.cluster();
    const PlacementView p = run.last_placement(id);
    for (std::size_t i = 0; i < p.gpus.size(); ++i) {
      Row& r = row(c, c.gpu(p.gpus[i]).node);
      advance(r, run.now());
      r.allocated_milli += int64_t{sign} * run.claims(id)[i].milli.value;
    }
  }

  std::vector<PoolRows> pools_;
  std::vector<Row> rows_;
  std::vector<PoolEvents> events_;
  int64_t step_ = 1, width_ = 0;  // us
  Time end_;
};

}  // namespace

std::unique_ptr<OutputWriter> make_occupancy_writer() { return std::make_unique<OccupancyWriter>(); }

}  // namespace gpusim
