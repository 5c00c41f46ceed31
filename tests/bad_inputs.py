#!/usr/bin/python3
"""Bad input, case by case: every case runs the gpusim command on one bad input and asserts exit 2
(bad input) and a message naming the field, column or flag at fault — never a crash, an "internal
error" or a run that goes ahead on a default (docs/reference/cli.md).

A case is a scenario (the base one with fields replaced or removed, or a text of its own), the files
beside it (traces, baselines, mig-parted files) and the command's arguments. Cases must differ in
what they give gpusim: the test fails on two cases with the same input, so the count it prints is a
count of distinct bad inputs.

Usage: bad_inputs.py GPUSIM_BINARY
"""
import copy
import gzip
import hashlib
import json
import pathlib
import subprocess
import sys
import tempfile

import yaml

BASE = {
    "name": "bad",
    "seed": 1,
    "horizon": "1d",
    "cluster": {"pools": [{"name": "p", "node": "l4-4x", "count": 2}]},
    "workload": {"jobs": [{"name": "j", "gpus": 1, "duration": "1h"}]},
    "policy": "fifo+first-fit",
}
DELETE = object()
CSV_HEAD = "arrival_s,duration_s,gpus\n"
PHILLY_HEAD = "timestamp,duration,num_gpus,cluster\n"
PODS_HEAD = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n"
NODES_HEAD = "sn,cpu_milli,memory_mib,gpu,model\n"
CATALOG_GPU = {"name": "Z1", "memory_mib": 1024, "sms": 10, "bf16_tflops": 100, "fp32_tflops": 20,
               "memory_bandwidth_gb_per_s": 300, "tdp_w": 70, "nvlink_gb_per_s": 0, "pcie_gen": 4,
               "compute_capability": 8.9, "source": "test"}
CATALOG_NODE = {"name": "z-1x", "gpu": "L4", "gpus": 1, "cpu_milli": 1000, "memory_mib": 1024, "source": "test"}
COMM = {"compute_per_iteration": "100ms", "bytes_per_iteration": 1e9, "iterations": 10}
GENERATED = {"name": "c", "count": 3, "arrival": {"rate_per_hour": 2}, "gpus": 1, "duration": "1h"}
BASELINE = {"version": 1, "tolerances": {"jobs_completed": {"worse": "lower"}}, "runs": [{"scenario": "scenario.yaml", "metrics": {"jobs_completed": 1}}]}


def edit(doc, path, value):
    """Sets (or with DELETE removes) a field given as a dotted path with [i] indexes."""
    keys = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        keys.append(name)
        keys += [int(i) for i in rest.rstrip("]").split("][")] if rest else []
    node = doc
    for k in keys[:-1]:
        if isinstance(k, str) and k not in node:
            node[k] = {}
        node = node[k]
    if value is DELETE:
        del node[keys[-1]]
    elif isinstance(node, list) and keys[-1] == len(node):
        node.append(value)
    else:
        node[keys[-1]] = value


def scenario(**fields):
    """The base scenario with fields replaced: scenario(**{"cluster.pools[0].count": 0})."""
    doc = copy.deepcopy(BASE)
    for path, value in fields.items():
        edit(doc, path, value)
    return yaml.safe_dump(doc, sort_keys=False)


def with_trace(fmt, text, name="trace.csv", **extra):
    """The base scenario replaying the trace file `text` instead of its one job."""
    trace = {"format": fmt, "path": name, **extra}
    return {"scenario.yaml": scenario(**{"workload": {"traces": [trace]}}), name: text}


def with_nodes(text):
    return {"scenario.yaml": scenario(**{"cluster": {"node_lists": [{"format": "openb", "path": "nodes.csv"}]},
                                         "workload": {"jobs": [{"name": "j", "gpus": 1, "duration": "1h"}]}}),
            "nodes.csv": text}


CASES = []


def case(name, files, says, args=("run", "scenario.yaml"), code=2):
    """One bad input: `files` (a dict of file name to text, or a scenario text) and the command's
    arguments; `says` are the strings the message must hold (the field, and its line where known)."""
    if isinstance(files, (str, bytes)):
        files = {"scenario.yaml": files}
    CASES.append((name, files, list(args), code, [says] if isinstance(says, str) else says))


def field(name, fields, says):
    case(name, scenario(**fields), says)


# Scenario: top-level fields and the document itself.
field("version 2", {"version": 2}, "version: this gpusim reads scenario format version 1 only")
field("seed negative", {"seed": -1}, "seed:")
field("seed text", {"seed": "one"}, "seed: expected an integer")
field("seed fractional", {"seed": 1.5}, "seed: expected an integer")
field("horizon text", {"horizon": "a day"}, "horizon: expected a duration")
field("horizon unit", {"horizon": "1y"}, "horizon: expected a duration")
field("horizon list", {"horizon": [1, 2]}, "horizon: expected a duration")
field("unknown top-level field", {"polcy": "fifo"}, "unknown field 'polcy'")
field("policy unknown", {"policy": "fifo+nowhere"}, "policy")
field("policy empty", {"policy": ""}, "policy")
field("policy queue unknown", {"policy": "lifo+first-fit"}, "policy")
field("scheduling queue", {"scheduling": {"queue": "random"}}, "scheduling.queue: expected")
field("scheduling gang", {"scheduling": {"gang": "yes"}}, "scheduling.gang: expected true or false")
field("scheduling unknown", {"scheduling": {"preempt": True}}, "scheduling.preempt: unknown field")
field("outputs step text", {"outputs": {"timeseries_step": "often"}}, "outputs.timeseries_step")
field("outputs trace", {"outputs": {"trace": "maybe"}}, "outputs.trace: expected true or false")
field("name list", {"name": ["a"]}, "name: expected a string")
field("description map", {"description": {"a": 1}}, "description: expected a string")
case("empty document", "", "scenario.yaml")
case("list document", "- a\n- b\n", "scenario.yaml")
case("scalar document", "just text\n", "scenario.yaml")
case("yaml syntax", "name: [a\n", "scenario.yaml")
case("tab indentation", "name: x\ncluster:\n\tpools: []\n", "scenario.yaml")
case("duplicate key", scenario() + "seed: 2\n", ["seed", "line"])
case("non-scalar key", scenario() + "? [a, b]\n: 1\n", "scenario.yaml")
case("latin-1 text", scenario().replace("name: bad", "name: caf\xe9").encode("latin-1"), "not UTF-8")
case("json duplicate key", '{"name": "x", "name": "y"}', "name")
case("scenario missing", {}, "scenario.yaml")
case("scenario is a directory", {"scenario.yaml/x": "a"}, "directory")
field("cluster missing", {"cluster": DELETE}, "cluster")
field("workload missing", {"workload": DELETE}, "workload")
field("pools empty", {"cluster.pools": []}, "cluster: the cluster is empty")
field("cluster list", {"cluster": ["p"]}, "cluster: expected")

# Pools.
field("pool count negative", {"cluster.pools[0].count": -1}, "cluster.pools[0].count")
field("pool count text", {"cluster.pools[0].count": "two"}, "cluster.pools[0].count: expected an integer")
field("pool count float", {"cluster.pools[0].count": 2.5}, "cluster.pools[0].count: expected an integer")
field("pool node unknown", {"cluster.pools[0].node": "l5-4x"}, "cluster.pools[0].node: unknown node template 'l5-4x'")
field("pool node missing", {"cluster.pools[0].node": DELETE}, "cluster.pools[0]")
field("pool name missing", {"cluster.pools[0].name": DELETE}, "cluster.pools[0]")
field("pool unknown field", {"cluster.pools[0].nodes": 2}, "cluster.pools[0].nodes: unknown field")
field("pool duplicate name", {"cluster.pools[1]": {"name": "p", "node": "l4-4x", "count": 1}}, "two pools are named 'p'")
field("pool market", {"cluster.pools[0].market": "cheap"}, "cluster.pools[0].market: expected")
field("pool runtime without sharing", {"cluster.pools[0].runtime": "mps"}, "cluster.pools[0].runtime: runtime applies to")
field("pool runtime", {"cluster.pools[0].sharing": "fractional", "cluster.pools[0].runtime": "vgpu"},
      "cluster.pools[0].runtime: expected")
field("pool price negative", {"cluster.pools[0].price_per_gpu_hour_usd": -1}, "cluster.pools[0].price_per_gpu_hour_usd")
field("pool node price text", {"cluster.pools[0].price_per_node_hour_usd": "free"},
      "cluster.pools[0].price_per_node_hour_usd: expected a number")
field("pool sharing unknown", {"cluster.pools[0].sharing": {"vgpu": {}}}, "cluster.pools[0].sharing")
field("pool replicas zero", {"cluster.pools[0].sharing": {"timeSlicing": {"resources": [
    {"name": "nvidia.com/gpu", "replicas": 0}]}}}, "cluster.pools[0].sharing")
field("pool mig on L4", {"cluster.pools[0].mig": {"strategy": "single", "config": "all-1g.10gb"}}, "cluster.pools[0].mig")
# Other vendors (issue 46): AMD's partition modes and their combinations, a Gaudi whole, a rack's NVLink domain.
MI300X = {"cluster.pools[0].node": "mi300x-8x", "cluster.pools[0].count": 1}
field("amd partition mode unknown", {**MI300X, "cluster.pools[0].partition": {"computePartition": "TPX", "memoryPartition": "NPS1"}},
      ["cluster.pools[0].partition.computePartition", "supports compute partition modes SPX, DPX, QPX, CPX"])
field("amd memory mode unknown", {**MI300X, "cluster.pools[0].partition": {"computePartition": "CPX", "memoryPartition": "NPS8"}},
      ["cluster.pools[0].partition.memoryPartition", "NPS1, NPS4"])
field("amd spx with nps4", {**MI300X, "cluster.pools[0].partition": {"computePartition": "SPX", "memoryPartition": "NPS4"}},
      ["cluster.pools[0].partition.computePartition", "SPX with NPS4 is not a valid combination", "NPS4 allows CPX"])
field("amd partition on nvidia", {"cluster.pools[0].partition": {"computePartition": "CPX", "memoryPartition": "NPS4"}},
      ["cluster.pools[0].partition", "L4 has no compute and memory partitions"])
field("amd mig", {**MI300X, "cluster.pools[0].mig": {"strategy": "single", "config": "all-enabled"}},
      ["cluster.pools[0].mig", "MI300X does not support MIG"])
field("amd time-slicing", {**MI300X, "cluster.pools[0].sharing": {"timeSlicing": {"resources": [
    {"name": "nvidia.com/gpu", "replicas": 2}]}}}, ["cluster.pools[0].sharing", "AMD device plugin shares no GPU by time-slicing"])
# The vendor's refusal comes before the block's resource name, which would send the user to nvidia.com/gpu.
field("amd time-slicing of amd.com/gpu", {**MI300X, "cluster.pools[0].sharing": {"timeSlicing": {"resources": [
    {"name": "amd.com/gpu", "replicas": 2}]}}}, ["cluster.pools[0].sharing", "AMD device plugin shares no GPU by time-slicing"])
GAUDI = {"cluster.pools[0].node": "gaudi3-8x", "cluster.pools[0].count": 1}
field("gaudi time-slicing", {**GAUDI, "cluster.pools[0].sharing": {"timeSlicing": {"resources": [
    {"name": "nvidia.com/gpu", "replicas": 2}]}}}, ["cluster.pools[0].sharing", "a Gaudi is allocated whole"])
field("gaudi mig", {**GAUDI, "cluster.pools[0].mig": {"strategy": "single", "config": "all-enabled"}},
      ["cluster.pools[0].mig", "Gaudi3 does not support MIG"])
field("gaudi fractional", {**GAUDI, "cluster.pools[0].sharing": "fractional"}, ["cluster.pools[0].sharing", "a Gaudi is allocated whole"])
field("nvlink domain beyond the rack", {"cluster.pools[0].node": "gb200-nvl72-tray", "cluster.pools[0].nvlink_domain_nodes": 36},
      ["cluster.pools[0].nvlink_domain_nodes", "an NVLink domain spans at most one rack: 18 nodes of gb200-nvl72-tray"])
field("nvlink domain on a node without one", {"cluster.pools[0].nvlink_domain_nodes": 2},
      ["cluster.pools[0].nvlink_domain_nodes", "l4-4x has no NVLink domain beyond the node"])
field("compute domain beyond any nvlink domain", {"cluster.pools[0].node": "hgx-h100", "cluster.pools[0].count": 4,
                                                  "tenancy": {"compute_domains": [{"name": "t", "channel": {"resourceClaimTemplate": {"name": "ch"}}}]},
                                                  "workload.jobs[0].gpus": 16, "workload.jobs[0].multi_node": True,
                                                  "workload.jobs[0].resource_claims": ["ch"]},
      ["workload.jobs", "asks 16 GPUs in one NVLink domain (its ComputeDomain); the largest allowed domain has 8"])
field("job resource of another vendor", {"workload.jobs[0].resource": "habana.ai/gaudi"},
      ["workload.jobs", "asks habana.ai/gaudi; pool p has nvidia GPUs (L4), which advertise nvidia.com/gpu"])
field("job resource unknown vendor", {"workload.jobs[0].resource": "intel.com/gpu"}, ["workload.jobs[0].resource", "habana.ai/gaudi"])
field("catalog amd gpu with nvlink", {"catalog": {"gpus": [{**{k: v for k, v in CATALOG_GPU.items() if k != "compute_capability"}, "vendor": "amd"}]}},
      ["catalog.gpus[0].nvlink_gb_per_s", "fabric is xgmi: give xgmi_gb_per_s and xgmi_links"])
field("pool mig strategy", {"cluster.pools[0].node": "dgx-a100-80gb",
                            "cluster.pools[0].mig": {"strategy": "both", "config": "all-1g.10gb"}},
      "cluster.pools[0].mig.strategy: expected")
field("pool mig config unknown", {"cluster.pools[0].node": "dgx-a100-80gb",
                                  "cluster.pools[0].mig": {"strategy": "mixed", "config": "all-9g"}},
      "cluster.pools[0].mig.config")
field("pool mig strategy missing", {"cluster.pools[0].node": "dgx-a100-80gb", "cluster.pools[0].mig": {"config": "all-1g.10gb"}},
      ["cluster.pools[0].mig", "strategy"])
field("pool mig partitionable with a layout", {"cluster.pools[0].node": "dgx-a100-80gb",
                                               "cluster.pools[0].mig": {"partitionable": True, "config": "all-1g.10gb"}},
      "cluster.pools[0].mig.config: a partitionable GPU has no fixed layout")
field("pool mig partitionable text", {"cluster.pools[0].node": "dgx-a100-80gb", "cluster.pools[0].mig": {"partitionable": "yes"}},
      "cluster.pools[0].mig.partitionable: expected true or false")
field("device plugin on a partitionable pool", {"cluster.pools[0].node": "dgx-a100-80gb",
                                                "cluster.pools[0].mig": {"partitionable": True},
                                                "workload.jobs[0].resource": "nvidia.com/mig-1g.10gb"},
      ["workload.jobs", "publishes its GPUs' MIG partitions through DRA only"])
field("pool network nics zero", {"cluster.pools[0].network": {"nics": 0, "gbps_per_nic": 100}},
      "cluster.pools[0].network.nics")
field("pool network gbps zero", {"cluster.pools[0].network": {"nics": 1, "gbps_per_nic": 0}},
      "cluster.pools[0].network.gbps_per_nic")
field("pool kubelet policy", {"cluster.pools[0].kubelet": {"topologyManagerPolicy": "strict"}},
      "cluster.pools[0].kubelet.topologyManagerPolicy: expected")
field("pool kubelet scope", {"cluster.pools[0].kubelet": {"topologyManagerScope": "node"}},
      "cluster.pools[0].kubelet.topologyManagerScope: expected")
field("spot on on-demand pool", {"cluster.pools[0].spot": {"interruptions_per_node_month": 1}}, "cluster.pools[0].spot")
field("spot interruptions negative", {"cluster.pools[0].market": "spot",
                                      "cluster.pools[0].spot": {"interruptions_per_node_month": -1}},
      "cluster.pools[0].spot.interruptions_per_node_month")
field("spot notice text", {"cluster.pools[0].market": "spot", "cluster.pools[0].spot": {"interruptions_per_node_month": 1, "notice": "soon"}},
      "cluster.pools[0].spot.notice")
field("spot frequency", {"cluster.pools[0].market": "spot", "cluster.pools[0].spot": {"aws_frequency": "often"}},
      "cluster.pools[0].spot.aws_frequency")
field("spot availability format", {"cluster.pools[0].market": "spot",
                                   "cluster.pools[0].spot": {"availability": {"path": "a", "format": "aws"}}},
      "cluster.pools[0].spot.availability.format: expected")
field("spot two processes", {"cluster.pools[0].market": "spot", "cluster.pools[0].spot": {
    "interruptions_per_node_month": 1, "aws_frequency": "<5%"}}, "cluster.pools[0].spot: expected exactly one")
field("spot availability missing", {"cluster.pools[0].market": "spot",
                                    "cluster.pools[0].spot": {"availability": {"path": "nowhere.csv"}}},
      "nowhere.csv")
field("autoscale max zero", {"cluster.pools[0].autoscale": {"min": 0, "max": 0}}, "cluster.pools[0].autoscale.max")
field("autoscale min negative", {"cluster.pools[0].autoscale": {"min": -1, "max": 2}}, "cluster.pools[0].autoscale.min")
field("autoscale min above max", {"cluster.pools[0].autoscale": {"min": 3, "max": 2}}, "cluster.pools[0].autoscale")
field("autoscale delay", {"cluster.pools[0].autoscale": {"max": 2, "scale_up_delay": "later"}},
      "cluster.pools[0].autoscale.scale_up_delay")
field("provisioning delay", {"cluster.pools[0].provisioning_delay": "-"}, "cluster.pools[0].provisioning_delay")

# Deadlines, restart overheads and spot trace offsets (issue 23).
field("deadline zero", {"workload.jobs[0].deadline": "0"}, "workload.jobs[0].deadline: expected a positive duration")
field("deadline before arrival", {"workload.jobs[0].deadline": "-1h"}, "workload.jobs[0].deadline")
field("deadline text", {"workload.jobs[0].deadline": "soon"}, "workload.jobs[0].deadline: expected a duration")
field("generator deadline zero", {"workload": {"generator": {"classes": [dict(GENERATED, deadline="0s")]}}},
      "workload.generator.classes[0].deadline: expected a positive duration")
field("restart overhead text", {"workload.jobs[0].checkpoint": {"interval": "1h", "cost": 0, "restart_overhead": "slow"}},
      "workload.jobs[0].checkpoint.restart_overhead: expected a duration")
ONE_TICK_TRACE = json.dumps({"metadata": {"gap_seconds": 600}, "data": [1, 0, 1]})
for name, offset, says in [
    ("spot offset negative", "-10m", "cluster.pools[0].spot.availability.offset: expected a duration from 0"),
    ("spot offset past the end", "30m", "cluster.pools[0].spot.availability.offset: the trace"),
    ("spot offset in the last tick", "21m", "expected an offset before its last tick"),
    ("spot offset text", "later", "cluster.pools[0].spot.availability.offset: expected a duration"),
]:
    case(name, {"scenario.yaml": scenario(**{"cluster.pools[0].market": "spot", "cluster.pools[0].spot": {
        "availability": {"path": "spot.json", "offset": offset}}}), "spot.json": ONE_TICK_TRACE}, ["scenario.yaml", says])

# Energy (issue 45): PUE, host power, a grid's carbon intensity and electricity price.
field("power limit above the TDP", {"cluster.pools[0].power_limit_w": 5000}, "cluster.pools[0].power_limit_w: expected at most the GPU's TDP")
field("power limit below idle", {"cluster.pools[0].power_limit_w": 10}, "cluster.pools[0].power_limit_w: at 10 W")
field("power limit text", {"cluster.pools[0].power_limit_w": "low"}, "cluster.pools[0].power_limit_w")
field("carbon-aware shift_by unknown", {"policy": {"name": "fifo+carbon-aware", "params": {"shift_by": "wind"}}},
      "shift_by: expected carbon or price")
field("pue below 1", {"cluster.pue": 0.9}, "cluster.pue")
field("pool pue text", {"cluster.pools[0].pue": "low"}, "cluster.pools[0].pue")
field("carbon negative", {"cluster.carbon_g_per_kwh": -1}, "cluster.carbon_g_per_kwh")
field("price unknown field", {"cluster.electricity_usd_per_kwh": {"file": "p.csv", "colum": "usd"}},
      "cluster.electricity_usd_per_kwh.colum: unknown field")
field("carbon csv without column", {"cluster.carbon_g_per_kwh": {"file": "grid.csv"}},
      "cluster.carbon_g_per_kwh: a csv series names its value column")
# Power budgets and owned pools (issue 45).
field("power budget unknown pool", {"cluster.power_budgets": [{"name": "r", "pools": ["nowhere"], "kw": 40}]},
      "cluster.power_budgets[0].pools: no pool is named 'nowhere'")
field("power budget without kw", {"cluster.power_budgets": [{"name": "r", "pools": ["p"]}]}, "cluster.power_budgets[0]")
field("power budget below idle", {"cluster.power_budgets": [{"name": "r", "pools": ["p"], "kw": 0.01}]},
      "cluster.power_budgets[0].kw: its pools' nodes at the start draw")
field("power budget kw text", {"cluster.power_budgets": [{"name": "r", "pools": ["p"], "kw": "lots"}]},
      "cluster.power_budgets[0].kw")
field("owned without block", {"cluster.pools[0].market": "owned", "cluster.electricity_usd_per_kwh": 0.1},
      "cluster.pools[0]: an owned pool needs an owned: block")
field("owned without electricity", {"cluster.pools[0].market": "owned",
                                    "cluster.pools[0].owned": {"purchase_usd": 1000, "amortization_years": 4}},
      "cluster.pools[0].market: an owned pool pays for its electricity")
field("owned years zero", {"cluster.pools[0].market": "owned", "cluster.electricity_usd_per_kwh": 0.1,
                           "cluster.pools[0].owned": {"purchase_usd": 1000, "amortization_years": 0}},
      "cluster.pools[0].owned.amortization_years")
GRID = "timestamp,g\n2026-01-01T00:00:00Z,100\n2026-01-01T01:00:00Z,300\n"
for name, text, extra, says in [
    ("carbon series missing", None, {}, "grid.csv"),
    ("carbon series bad time", "timestamp,g\nyesterday,1\n2026-01-01T01:00:00Z,2\n", {}, ["grid.csv", "line 2", "timestamp"]),
    ("carbon series not increasing", "timestamp,g\n2026-01-01 01:00:00,1\n2026-01-01 00:00:00,2\n", {}, ["grid.csv", "line 3", "increase"]),
    ("carbon series negative", "timestamp,g\n2026-01-01 00:00:00,-1\n2026-01-01 01:00:00,2\n", {}, ["grid.csv", "line 2", "'g'"]),
    ("carbon series one row", "timestamp,g\n2026-01-01 00:00:00,1\n", {}, ["grid.csv", "at least two rows"]),
    ("carbon series column missing", "timestamp,value\n2026-01-01 00:00:00,1\n2026-01-01 01:00:00,2\n", {}, ["grid.csv", "'g'"]),
    ("carbon series start outside", GRID, {"start": "2025-12-31"}, "cluster.carbon_g_per_kwh.start: 2025-12-31 is outside the series"),
    ("carbon series start text", GRID, {"start": "noon"}, "cluster.carbon_g_per_kwh.start: expected a UTC date"),
]:
    files = {"scenario.yaml": scenario(**{"cluster.carbon_g_per_kwh": {"file": "grid.csv", "column": "g", **extra}})}
    if text is not None:
        files["grid.csv"] = text
    case(name, files, says)
field("host power busy below idle", {"catalog": {"nodes": [dict(CATALOG_NODE, host_power={"idle_w": 200, "busy_w": 100, "source": "t"})]}},
      "catalog.nodes[0].host_power.busy_w: must be at least idle_w")

# A user's catalog.
for name, value, says in [
    ("gpu memory zero", {"memory_mib": 0}, "catalog.gpus[0].memory_mib"),
    ("gpu sms zero", {"sms": 0}, "catalog.gpus[0].sms"),
    ("gpu pcie gen 6", {"pcie_gen": 6}, "catalog.gpus[0].pcie_gen"),
    ("gpu nvlinks zero", {"nvlinks": 0}, "catalog.gpus[0].nvlinks"),
    # nvlinks is optional but needed with NVLink bandwidth: an input error, not an internal one (fuzzing)
    ("gpu nvlink bandwidth without nvlinks", {"nvlink_gb_per_s": 1, "nvlinks": DELETE}, "nvlinks"),
    ("gpu tflops negative", {"bf16_tflops": -1}, "catalog.gpus[0].bf16_tflops"),
    ("gpu bandwidth text", {"memory_bandwidth_gb_per_s": "fast"}, "catalog.gpus[0].memory_bandwidth_gb_per_s"),
    ("gpu unknown field", {"cores": 1}, "catalog.gpus[0].cores: unknown field"),
    ("gpu without source", {"source": DELETE}, "catalog.gpus[0]"),
    ("gpu name of a known model", {"name": "L4"}, "catalog.gpus[0]"),
]:
    gpu = {k: v for k, v in {**CATALOG_GPU, **value}.items() if v is not DELETE}
    field(name, {"catalog": {"gpus": [gpu]}}, says)
for name, value, says in [
    ("node gpus 33", {"gpus": 33}, "catalog.nodes[0].gpus"),
    ("node gpus negative", {"gpus": -1}, "catalog.nodes[0].gpus"),
    ("node cpu zero", {"cpu_milli": 0}, "catalog.nodes[0].cpu_milli"),
    ("node memory text", {"memory_mib": "lots"}, "catalog.nodes[0].memory_mib"),
    ("node gpu unknown", {"gpu": "Z9000"}, "catalog.nodes[0].gpu: unknown GPU model 'Z9000'"),
    ("node price negative", {"price_per_node_hour_usd": -2}, "catalog.nodes[0].price_per_node_hour_usd"),
    ("node spot price text", {"spot_price_per_node_hour_usd": "low"}, "catalog.nodes[0].spot_price_per_node_hour_usd"),
    ("node topology pcie gen", {"topology": {"pcie": ["cpu0/rc0"], "pcie_gen": 2, "source": "t"}}, "catalog.nodes[0].topology.pcie_gen"),
    ("node topology socket zero", {"topology": {"pcie": ["cpu0/rc0"], "inter_socket_gb_per_s": 0, "source": "t"}}, "catalog.nodes[0].topology.inter_socket_gb_per_s"),
    ("node network nics", {"network": {"nics": 0, "gbps_per_nic": 100}}, "catalog.nodes[0].network.nics"),
    ("node unknown field", {"cpus": 8}, "catalog.nodes[0].cpus: unknown field"),
]:
    field(name, {"catalog": {"nodes": [{**CATALOG_NODE, **value}]}}, says)
field("mig geometry slices zero", {"catalog": {"mig_geometries": [{"name": "g", "memory_slices": 0, "compute_slices": 7,
                                                                 "source": "t", "classes": []}]}},
      "catalog.mig_geometries[0].memory_slices")
field("catalog unknown section", {"catalog": {"prices": []}}, "catalog.prices: unknown field")

# Models.
for name, path, value in [
    ("time-slicing max contexts zero", "model.time_slicing.max_contexts", 0),
    ("time-slicing max contexts 61", "model.time_slicing.max_contexts", 61),
    ("time-slicing context memory negative", "model.time_slicing.context_memory_mib", -1),
    ("time-slicing switch text", "model.time_slicing.preempt_switch", "fast"),
    ("time-slicing timeslice list", "model.time_slicing.timeslice", [1]),
    ("time-slicing entry without its timeslice", "model.time_slicing.entries",
     [{"gpus": ["H200"], "preempt_switch": 0.0002, "yield_switch": 0.0001, "context_memory_mib": 500}]),
    ("time-slicing entry with gpus and a compute capability", "model.time_slicing.entries",
     [{"gpus": ["H200"], "min_compute_capability": 9.0, "timeslice": 0.002, "preempt_switch": 0.0002,
       "yield_switch": 0.0001, "context_memory_mib": 500}]),
    ("mps interference negative", "model.mps.bandwidth_interference", -0.5),
    ("mps fault rate negative", "model.mps.fault_rate_per_hour", -1),
    ("mig reconfiguration text", "model.mig.reconfiguration_delay", "slow"),
    ("restart policy", "model.restart.policy", "retry"),
    ("restart max negative", "model.restart.max_restarts", -1),
    ("restart backoff", "model.restart.backoff", "x"),
    ("preemption suspend", "model.preemption.suspend", "x"),
    ("low-utilization threshold zero", "model.low_utilization.threshold", 0),
    ("low-utilization threshold 1.5", "model.low_utilization.threshold", 1.5),
    ("autoscaler delay", "model.autoscaler.scale_down_after", "never"),
    ("model unknown section", "model.thermal", {}),
    ("power bound unknown", "model.power.bound_by.training", "gemm"),
    ("power bound shares not summing to 1", "model.power.bound_by.inference", {"memory": 0.5}),
    ("power entry idle above busy", "model.power.entries", [{"tdp_w": 700, "idle_low_w": 77, "idle_high_w": 500,
        "clock_hold": 5, "fp32_w": 464, "memory_w": 375, "capped_w": 690, "throttled_clock": 0.75,
        "throttled_throughput": 0.81}]),
    ("model unknown field", "model.mps.latency", 1),
]:
    field(name, {path: value}, path)

# Inline jobs.
for name, key, value, says in [
    ("job gpus negative", "gpus", -2, "expected an integer in 0..100000, got -2"),
    ("job gpus huge", "gpus", 100001, ""),
    ("job gpus text", "gpus", "one", "expected an integer"),
    ("job gpu_milli zero", "gpu_milli", 0, ""),
    ("job gpu_milli 1001", "gpu_milli", 1001, ""),
    ("job u above one", "u", 1.5, ""),
    ("job u negative", "u", -0.1, ""),
    ("job u text", "u", "high", "expected a number"),
    ("job kind", "kind", "render", "expected"),
    ("job count zero", "count", 0, ""),
    ("job duration text", "duration", "long", "expected a duration"),
    ("job arrival text", "arrival", "soon", "expected a duration"),
    ("job priority text", "priority", "high", "expected an integer"),
    ("job multi_node", "multi_node", "yes", "expected true or false"),
    ("job mps thread percent zero", "mps_thread_percent", 0, ""),
    ("job mps thread percent 101", "mps_thread_percent", 101, ""),
    ("job workers zero", "workers", 0, ""),
    ("job gpu memory negative", "gpu_memory_mib", -1, ""),
    ("job cpu negative", "cpu_milli", -1, ""),
    ("job memory negative", "memory_mib", -1, ""),
    ("job memory limit zero", "gpu_memory_limit_mib", 0, ""),
    ("job claim sms negative", "claim", {"sms": -1}, ""),
    ("job reference gpu", "reference_gpu", "Z9000", "Z9000"),
    ("job throughput class unknown", "throughput_class", "recsys", "unknown throughput class 'recsys'"),
    ("job speedup unknown gpu", "speedup", {"Z9": 2}, "unknown GPU model 'Z9'"),
    ("job speedup zero", "speedup", {"T4": 0}, "speedup"),
    ("job speedup text", "speedup", {"T4": "fast"}, "expected a number"),
    ("job resource unknown", "resource", "nvidia.com/vgpu", "nvidia.com/vgpu"),
    ("job unknown field", "gpu", 1, "unknown field 'gpu'"),
    ("job collective", "communication", {**COMM, "collective": "broadcast"}, "collective"),
    ("job iterations zero", "communication", {**COMM, "iterations": 0}, "iterations"),
    ("job bytes negative", "communication", {**COMM, "bytes_per_iteration": -1}, "bytes_per_iteration"),
    ("job compute per iteration", "communication", {**COMM, "compute_per_iteration": "x"}, "compute_per_iteration"),
    ("job checkpoint text", "checkpoint", "often", "checkpoint"),
]:
    # A job whose time comes from its iterations gives no duration.
    fields = {"workload.jobs[0].duration": DELETE} if key == "communication" else {}
    field(name, {**fields, f"workload.jobs[0].{key}": value}, [f"workload.jobs[0].{key}", says])
field("job name missing", {"workload.jobs[0].name": DELETE}, "workload.jobs[0]")
field("job duration missing", {"workload.jobs[0].duration": DELETE}, "workload.jobs[0]")
field("job duplicate name", {"workload.jobs[1]": {"name": "j", "gpus": 1, "duration": "1h"}}, "workload.jobs[1]")
field("job list as map", {"workload.jobs": {"j": 1}}, "workload.jobs: expected a list")
field("job asks more GPUs than a node", {"workload.jobs[0].gpus": 9}, "job 'j' can never run")
field("workload unknown field", {"workload.pods": []}, "workload.pods: unknown field")

# Generator classes.
for name, key, value in [
    ("class count zero", "count", 0),
    ("class rate zero", "arrival", {"rate_per_hour": 0}),
    ("class rate text", "arrival", {"rate_per_hour": "often"}),
    ("class start text", "arrival", {"rate_per_hour": 1, "start": "dawn"}),
    ("class gpus text", "gpus", "some"),
    ("class gpu weights", "gpu_weights", [1, 2, 3]),
    ("class gpu_milli 0", "gpu_milli", 0),
    ("class u 2", "u", 2),
    ("class kind", "kind", "render"),
    ("class duration distribution", "duration", {"distribution": "pareto", "min": "1h", "max": "2h"}),
    ("class duration lognormal without sigma", "duration", {"distribution": "lognormal", "median": "1h"}),
    ("class uniform min above max", "duration", {"distribution": "uniform", "min": "3h", "max": "2h"}),
    ("class exponential mean text", "duration", {"distribution": "exponential", "mean": "x"}),
    ("class unknown field", "rate", 1),
    ("class workers zero", "workers", 0),
]:
    cls = {**GENERATED, key: value}
    field(name, {"workload": {"generator": {"classes": [cls]}}}, f"workload.generator.classes[0].{key}")
field("class duplicate name", {"workload": {"generator": {"classes": [GENERATED, GENERATED]}}},
      "workload.generator.classes[1]")
field("generator unknown field", {"workload": {"generator": {"seed": 1, "classes": [GENERATED]}}},
      "workload.generator.seed: unknown field")

# Packing.
field("packing until zero", {"workload.packing": {"until": 0}}, "workload.packing.until")
field("packing until 101", {"workload.packing": {"until": 101}}, "workload.packing.until")
field("packing coverage 0", {"workload.packing": {"coverage": 0}}, "workload.packing.coverage")
case("packing order unknown pod", {"scenario.yaml": scenario(**{"workload.packing": {"order": "order.csv"}}),
                                   "order.csv": "pod\nj\nk\n"}, ["order.csv", "line 3", "unknown pod 'k'"])
case("packing order file missing", scenario(**{"workload.packing": {"order": "none.csv"}}), ["workload.packing.order", "none.csv"])
case("packing node_ranks node missing", {"scenario.yaml": scenario(**{"workload.packing": {"node_ranks": "ranks.csv"}}),
                                         "ranks.csv": "node,rank\np-0,0\n"}, ["ranks.csv", "node 'p-1' has no rank"])
case("packing node_ranks unknown node", {"scenario.yaml": scenario(**{"workload.packing": {"node_ranks": "ranks.csv"}}),
                                         "ranks.csv": "node,rank\np-0,0\np-1,1\nq-0,2\n"}, ["ranks.csv", "line 4", "unknown node 'q-0'"])
case("packing node_ranks duplicate node", {"scenario.yaml": scenario(**{"workload.packing": {"node_ranks": "ranks.csv"}}),
                                           "ranks.csv": "node,rank\np-0,0\np-0,1\n"}, ["ranks.csv", "line 3", "ranked twice"])
case("packing node_ranks read by no tie rule",
     {"scenario.yaml": scenario(**{"workload.packing": {"node_ranks": "ranks.csv"},
                                   "policy": {"name": "fifo+best-fit", "params": {"ties": "lowest-id"}}}),
      "ranks.csv": "node,rank\np-0,0\np-1,1\n"}, ["policy.params.ties", "expected order", "got 'lowest-id'"])

# Variants (read by compare).
for name, variants, says in [
    ("variant set unknown field", [{"name": "v", "set": ["cluster.pools[0].nodes=3"]}], "nodes"),
    ("variant set not an assignment", [{"name": "v", "set": ["count"]}], "line 18: variants[0].set: variant 'v': count: expected path=value"),
    ("variant set bad value", [{"name": "v", "set": ["seed=-1"]}], "variants[0].set: variant 'v': seed=-1: seed:"),
    ("variant duplicate name", [{"name": "v", "set": []}, {"name": "v", "set": []}], "variants[1]"),
    ("variant without name", [{"set": []}], "variants[0]"),
]:
    case(name, scenario(variants=variants), says, ["compare", "scenario.yaml"])
case("variant checked by validate", scenario(variants=[{"name": "v", "set": ["cluster.pools[0].count=x"]}]),
     "variants[0].set: variant 'v': cluster.pools[0].count=x", ["validate", "scenario.yaml"])

# DRA (issue 17): device classes, claim templates, CEL selectors and the jobs that name them.
DRA_CLASS = {"name": "gpu.nvidia.com", "selectors": "device.attributes['gpu.nvidia.com'].type == 'gpu'"}


def dra(request=None, claims="big", **job):
    """The base scenario with one DeviceClass, a template `big` holding `request` and the job naming `claims`."""
    req = {"name": "d", "device_class": "gpu.nvidia.com", **(request or {})}
    tenancy = {"device_classes": [dict(DRA_CLASS)], "resource_claim_templates": [{"name": "big", "requests": [req]}]}
    return {"tenancy": tenancy, "workload.jobs[0].resource_claims": claims,
            **{f"workload.jobs[0].{k}": v for k, v in job.items()}}


REQ = "tenancy.resource_claim_templates[0].requests[0]"
field("dra unknown class", dra({"device_class": "gpu"}), [f"{REQ}.device_class", "unknown DeviceClass 'gpu'"])
field("dra unknown template", dra(claims="small"), ["workload.jobs[0].resource_claims", "unknown ResourceClaimTemplate 'small'"])
field("dra count zero", dra({"count": 0}), f"{REQ}.count")
field("dra count with all", dra({"count": 2, "allocation_mode": "All"}), [f"{REQ}.count", "ExactCount"])
field("dra allocation mode", dra({"allocation_mode": "Some"}), f"{REQ}.allocation_mode")
field("dra selector syntax", dra({"selectors": "device.capacity['gpu.nvidia.com'].memory >= "}),
      [f"{REQ}.selectors", "column 45: expected"])
field("dra selector quantity", dra({"selectors": "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40GB')) >= 0"}),
      [f"{REQ}.selectors", "column 61: expected a Kubernetes quantity"])
field("dra selector unknown path", dra({"selectors": "device.attribute['gpu.nvidia.com'].type == 'gpu'"}),
      [f"{REQ}.selectors", "column 8: expected driver, attributes or capacity"])
field("dra selector type mismatch", dra({"selectors": "device.capacity['gpu.nvidia.com'].memory >= 40"}),
      [f"{REQ}.selectors", "cannot compare a quantity with an int"])
# Hostile selectors (issue 42): refused by nesting and by Kubernetes' length limit, never recursed into.
field("dra selector nested 5000", dra({"selectors": "(" * 5000 + "true" + ")" * 5000}),
      [f"{REQ}.selectors", "column 101: expected at most 100 levels of nesting"])
field("dra selector unbalanced 5000", dra({"selectors": "(" * 5000}),
      [f"{REQ}.selectors", "expected at most 100 levels of nesting"])
field("dra selector chain 30000", dra({"selectors": " && ".join(["true"] * 30001)}),
      [f"{REQ}.selectors", "expected at most 10240 characters"])
field("dra selector missing attribute", dra({"selectors": "device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"}),
      [f"{REQ}.selectors", "publishes no attribute 'profile'"])
field("dra class selector syntax", {**dra(), "tenancy.device_classes[0].selectors": "type == 'gpu'"},
      ["tenancy.device_classes[0].selectors", "column 1: expected device"])
field("dra gpus disagree", dra(gpus=2), ["workload.jobs[0].gpus", "expected gpus: 1, got 2"])
field("dra with resource", dra(resource="nvidia.com/gpu"), ["workload.jobs[0].resource_claims", "not both"])
field("dra with gpu milli", dra(gpu_milli=500), ["workload.jobs[0].resource_claims", "whole devices"])
field("dra template namespace", {**dra(), "tenancy.resource_claim_templates[0].namespace": "prod"},
      ["workload.jobs[0].resource_claims", "in namespace default"])


def dra_claim(ref="mine", **job):
    """The DRA base scenario with a ResourceClaim `mine` (namespace default) that the job names."""
    doc = dra(claims=[{"resource_claim_name": ref}], **job)
    doc["tenancy"]["resource_claims"] = [{"name": "mine", "requests": [{"name": "d", "device_class": "gpu.nvidia.com"}]}]
    return doc


SHARED = "a ResourceClaim's devices shared by several pods are not modelled; use a ResourceClaimTemplate"
field("dra unknown claim", dra_claim("theirs"), ["workload.jobs[0].resource_claims", "unknown ResourceClaim 'theirs'",
                                                "expected one of tenancy.resource_claims: mine"])
field("dra claim other namespace", dra_claim(namespace="prod"),
      ["workload.jobs[0].resource_claims", "ResourceClaim 'mine' is in namespace default",
       "may only name a claim of its own namespace"])
field("dra claim shared by two jobs", dra_claim(count=2), ["workload.jobs[0].resource_claims", "named by job j-0 too", SHARED])
field("dra claim named twice", {**dra_claim(), "workload.jobs[0].resource_claims": [{"resource_claim_name": "mine"}] * 2},
      ["workload.jobs[0].resource_claims", "ResourceClaim 'mine' is named twice; expected each claim once"])
field("dra claim shared by workers", dra_claim(workers=2), ["workload.jobs[0].resource_claims", "several pods of this job", SHARED])
field("dra claim and template named", dra(claims=[{"resource_claim_name": "mine", "resource_claim_template_name": "big"}]),
      ["workload.jobs[0].resource_claims[0]", "exactly one of resource_claim_name"])
field("dra claim entry unknown field", dra(claims=[{"resourceClaimName": "mine"}]),
      ["workload.jobs[0].resource_claims[0]", "resource_claim_name"])
field("dra cel map without expression", dra({"selectors": [{"cel": {"expr": "device.driver == 'gpu.nvidia.com'"}}]}),
      [f"{REQ}.selectors[0].cel", "expression"])
field("dra cel map not a map", dra({"selectors": [{"cel": "device.driver == 'gpu.nvidia.com'"}]}), f"{REQ}.selectors[0].cel")
field("dra cel map syntax", dra({"selectors": [{"cel": {"expression": "device.driver =="}}]}),
      [f"{REQ}.selectors[0].cel.expression", "column 17: expected"])

# Trace files referenced by a scenario.
field("trace format", {"workload": {"traces": [{"format": "parquet", "path": "t.csv"}]}}, "workload.traces[0].format")
field("trace file missing", {"workload": {"traces": [{"format": "csv", "path": "missing.csv"}]}}, "missing.csv")
field("trace limit zero", {"workload": {"traces": [{"format": "csv", "path": "t.csv", "limit": 0}]}},
      "workload.traces[0].limit")
case("trace u above one", with_trace("csv", CSV_HEAD + "0,10,1\n", u=2), "workload.traces[0].u")
case("trace is a directory", {"scenario.yaml": with_trace("csv", "")["scenario.yaml"], "trace.csv/x": "a"}, "directory")
for name, text, says in [
    ("csv empty", "", "trace.csv"),
    ("csv header only", CSV_HEAD, "header and no rows"),
    ("csv missing column", "arrival_s,gpus\n0,1\n", "required column 'duration_s'"),
    ("csv unknown column", "arrival_s,duration_s,gpus,colour\n0,1,1,red\n", "unknown column 'colour'"),
    ("csv duplicate column", "arrival_s,duration_s,gpus,gpus\n0,1,1,1\n", "column 'gpus' appears twice"),
    ("csv arrival text", CSV_HEAD + "soon,10,1\n", "column 'arrival_s'"),
    ("csv duration text", CSV_HEAD + "0,long,1\n", "column 'duration_s'"),
    ("csv arrival negative", CSV_HEAD + "-1,10,1\n", "arrival_s"),
    ("csv duration negative", CSV_HEAD + "0,-10,1\n", "duration_s"),
    ("csv out of order", CSV_HEAD + "10,1,1\n5,1,1\n", "arrival order"),
    ("csv gpus negative", CSV_HEAD + "0,10,-1\n", "column 'gpus': expected an integer in 0..100000, got -1"),
    ("csv gpus fraction", CSV_HEAD + "0,10,0.5\n", "column 'gpus'"),
    ("csv too few fields", CSV_HEAD + "0,10\n", "expected 3 columns"),
    ("csv too many fields", CSV_HEAD + "0,10,1,4\n", "expected 3 columns"),
    ("csv gpu_milli 0", "arrival_s,duration_s,gpus,gpu_milli\n0,1,1,0\n", "column 'gpu_milli'"),
    ("csv gpu_milli shared multi-gpu", "arrival_s,duration_s,gpus,gpu_milli\n0,1,2,500\n", "column 'gpu_milli'"),
    ("csv u 2", "arrival_s,duration_s,gpus,u\n0,1,1,2\n", "column 'u'"),
    ("csv kind", "arrival_s,duration_s,gpus,kind\n0,1,1,render\n", "column 'kind'"),
    ("csv multi_node", "arrival_s,duration_s,gpus,multi_node\n0,1,1,yes\n", "column 'multi_node'"),
    ("csv priority text", "arrival_s,duration_s,gpus,priority\n0,1,1,high\n", "column 'priority'"),
    ("csv cpu negative", "arrival_s,duration_s,gpus,cpu_milli\n0,1,1,-5\n", "column 'cpu_milli': expected an integer >= 0, got -5"),
    ("csv bom", "\ufeff" + CSV_HEAD + "0,1,1\n", "byte-order mark"),
    ("csv latin-1", (CSV_HEAD + "0,1,1\n").replace("gpus", "gp\xfas").encode("latin-1"), "not UTF-8"),
    # Numbers at the edge (issue 19).
    ("csv duration nan", CSV_HEAD + "0,nan,1\n", "column 'duration_s'"),
    ("csv duration inf", CSV_HEAD + "0,inf,1\n", "column 'duration_s'"),
    ("csv duration 1e308", CSV_HEAD + "0,1e308,1\n", "column 'duration_s'"),
    ("csv duration 1e31", CSV_HEAD + "0,1e31,1\n", "column 'duration_s'"),
    ("csv arrival 1e18", CSV_HEAD + "1e18,1,1\n", "column 'arrival_s'"),
    ("csv u nan", "arrival_s,duration_s,gpus,u\n0,1,1,nan\n", "column 'u'"),
    ("csv u inf", "arrival_s,duration_s,gpus,u\n0,1,1,inf\n", "column 'u'"),
    ("csv priority 2^32", "arrival_s,duration_s,gpus,priority\n0,1,1,4294967296\n", "column 'priority'"),
    ("csv deadline zero", "arrival_s,duration_s,gpus,deadline_s\n0,1,1,0\n", "column 'deadline_s'"),
    ("csv deadline text", "arrival_s,duration_s,gpus,deadline_s\n0,1,1,soon\n", "column 'deadline_s'"),
    ("csv name twice", "name,arrival_s,duration_s,gpus\na,0,1,1\nb,0,1,1\na,1,1,1\n",
     "trace.csv:line 4: job name 'a' is given twice (first on line 2)"),
]:
    case(name, with_trace("csv", text), ["trace.csv", says])
for name, text, says in [
    ("philly header only", PHILLY_HEAD, "header and no rows"),
    ("philly timestamp", PHILLY_HEAD + "2017-10-03,60,1,c1\n", "column 'timestamp'"),
    ("philly month 13", PHILLY_HEAD + "2017-13-03 00:00:00,60,1,c1\n", "column 'timestamp'"),
    ("philly duration negative", PHILLY_HEAD + "2017-10-03 00:00:00,-60,1,c1\n", "column 'duration'"),
    ("philly duration fraction", PHILLY_HEAD + "2017-10-03 00:00:00,60.5,1,c1\n", "column 'duration'"),
    ("philly zero gpus", PHILLY_HEAD + "2017-10-03 00:00:00,60,0,c1\n", "column 'num_gpus'"),
    ("philly missing cluster column", "timestamp,duration,num_gpus\n2017-10-03 00:00:00,60,1\n", "'cluster'"),
]:
    case(name, with_trace("philly", text), ["trace.csv", says])
case("philly virtual cluster absent", with_trace("philly", PHILLY_HEAD + "2017-10-03 00:00:00,60,1,c1\n", virtual_clusters=["c2"]),
     ["workload.traces[0].virtual_clusters", "no row of virtual cluster 'c2'"])
case("virtual clusters of a csv trace", with_trace("csv", CSV_HEAD + "0,10,1\n", virtual_clusters="c1"),
     ["workload.traces[0].virtual_clusters", "only the philly format"])
for name, text, says in [
    ("openb gpu_milli 1001", PODS_HEAD + "a,1000,1024,1,1001,0,10\n", "column 'gpu_milli'"),
    ("openb multi-gpu share", PODS_HEAD + "a,1000,1024,2,500,0,10\n", "column 'gpu_milli'"),
    ("openb zero milli", PODS_HEAD + "a,1000,1024,1,0,0,10\n", "column 'gpu_milli'"),
    ("openb deleted before created", PODS_HEAD + "a,1000,1024,1,1000,10,5\n", "before creation_time"),
    ("openb cpu negative", PODS_HEAD + "a,-1000,1024,1,1000,0,10\n", "column 'cpu_milli': expected an integer >= 0, got -1000"),
    ("openb no times", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1000,1024,1,1000\n", "creation_time"),
    ("openb num_gpu text", PODS_HEAD + "a,1000,1024,one,1000,0,10\n", "column 'num_gpu'"),
    ("openb name twice", PODS_HEAD + "a,1000,1024,1,1000,0,10\na,1000,1024,1,1000,0,10\n", "job name 'a' is given twice"),
]:
    case(name, with_trace("openb", text), ["trace.csv", says])
for name, text, says in [
    ("node list gpus negative", NODES_HEAD + "n1,64000,262144,-1,V100M16\n", "column 'gpu'"),
    ("node list cpu zero", NODES_HEAD + "n1,0,262144,8,V100M16\n", "column 'cpu_milli'"),
    ("node list no model", NODES_HEAD + "n1,64000,262144,8,\n", "GPU model"),
    ("node list missing column", "sn,cpu_milli,memory_mib,gpu\nn1,1,1,1\n", "'model'"),
    ("node list gpu text", NODES_HEAD + "n1,64000,262144,eight,V100M16\n", "column 'gpu'"),
]:
    case(name, with_nodes(text), ["nodes.csv", says])
case("node list format", scenario(**{"cluster": {"node_lists": [{"format": "csv", "path": "n.csv"}]}}),
     "cluster.node_lists[0].format")

# Command-line flags.
OK = {"scenario.yaml": scenario()}
for name, args, says in [
    ("--set without =", ["--set", "seed"], "--set: seed: expected path=value"),
    ("--set unknown field", ["--set", "cluster.pools[0].nodes=3"], "--set: cluster.pools[0].nodes=3"),
    ("--set index out of range", ["--set", "cluster.pools[5].count=3"], "--set: cluster.pools[5].count=3"),
    ("--set through a scalar", ["--set", "name.sub=1"], "--set: name.sub=1"),
    ("--set bad value", ["--set", "seed=x"], "--set: seed=x: seed: expected an integer"),
    ("--set bad yaml", ["--set", "seed=[1"], "--set: seed=[1"),
    ("--seeds zero range", ["--seeds", "5-1"], "--seeds"),
    ("--seeds text", ["--seeds", "some"], "--seeds"),
    ("--by unknown", ["--by", "colour"], "--by"),
    ("--policy unknown", ["--policy", "fifo+nowhere"], "--policy"),
    ("--jobs without --seeds", ["-j", "2"], "--seeds"),
    ("--json with --by", ["--json", "--by", "pool"], "--by"),
    ("unknown flag", ["--fast"], "--fast"),
    ("--set null on a list item", ["--set", "cluster.pools[0]=null"], ["--set", "null removes a key of a map"]),
    ("--set null on a required field", ["--set", "name=null"], "missing required field 'name'"),
    ("--variant of a scenario without variants", ["--variant", "a"], ["--variant", "has no variants"]),
]:
    case(name, OK, says, ["run", "scenario.yaml", *args])
case("--out is a file", {**OK, "out": "x"}, "out", ["run", "scenario.yaml", "--out", "out"])
case("--out not empty", {**OK, "out/notes.txt": "mine"}, "out", ["run", "scenario.yaml", "--out", "out"])
case("--data missing", OK, "--data", ["run", "scenario.yaml", "--data", "nowhere"])
case("compare unknown policy", OK, "nowhere", ["compare", "scenario.yaml", "--policies", "fifo+first-fit,fifo+nowhere"])
case("sweep grid unknown field", OK, "nodes", ["sweep", "scenario.yaml", "--grid", "cluster.pools[0].nodes=1,2"])
case("sweep grid empty", OK, "--grid", ["sweep", "scenario.yaml", "--grid", "seed="])
case("validate bad scenario", scenario(seed=-5), "seed", ["validate", "scenario.yaml"])
case("mig unknown gpu", {}, "Z9000", ["mig", "Z9000"])
case("topo unknown template", {}, "z-9x", ["topo", "z-9x"])
case("catalog unknown view", {}, "colours", ["catalog", "colours"])
case("schema unknown document", {}, "recipe", ["schema", "recipe"])
case("no subcommand argument", {}, "scenario", ["run"])
case("packing without packing section", OK, "packing", ["packing", "scenario.yaml"])
case("packing --placements over several runs", {"scenario.yaml": scenario(**{"workload.packing": {"until": 1.0}})}, "--placements",
     ["packing", "scenario.yaml", "--placements", "out.csv", "--seeds", "1-2"])

# mig-parted files.
MIG = "version: v1\nmig-configs:\n  c:\n    - devices: all\n      mig-enabled: true\n      mig-devices: {DEVICES}\n"
for name, devices, says in [
    ("mig-parted unknown profile", '{"9g.90gb": 1}', "9g.90gb"),
    ("mig-parted too many slices", '{"1g.10gb": 8}', "mig-configs"),
    ("mig-parted count text", '{"1g.10gb": many}', "mig-configs"),
]:
    case(name, {"mig.yaml": MIG.replace("{DEVICES}", devices)}, says, ["mig", "validate", "mig.yaml", "--node", "dgx-a100-80gb"])

# Baselines.
for name, doc, says in [
    ("baseline unknown metric", {**BASELINE, "runs": [{"scenario": "scenario.yaml", "metrics": {"speed": 1}}]}, "speed"),
    ("baseline metric text", {**BASELINE, "runs": [{"scenario": "scenario.yaml", "metrics": {"jobs_completed": "all"}}]},
     "jobs_completed"),
    ("baseline scenario missing", {**BASELINE, "runs": [{"scenario": "gone.yaml", "metrics": {"jobs_completed": 1}}]},
     "gone.yaml"),
    ("baseline version", {**BASELINE, "version": 3}, "version"),
    ("baseline runs map", {**BASELINE, "runs": {"a": 1}}, "runs"),
    ("baseline tolerance direction", {**BASELINE, "tolerances": {"cost_usd": {"worse": "up"}}}, "tolerances.cost_usd.worse"),
    ("baseline tolerance negative", {**BASELINE, "tolerances": {"cost_usd": {"worse": "higher", "rel": -1}}},
     "tolerances.cost_usd.rel"),
    ("baseline unknown field", {**BASELINE, "owner": "me"}, "owner"),
    ("baseline policy unknown", {**BASELINE, "runs": [{"scenario": "scenario.yaml", "policy": "fifo+nowhere",
                                                      "metrics": {"jobs_completed": 1}}]}, "nowhere"),
    ("baseline variant unknown", {**BASELINE, "runs": [{"scenario": "scenario.yaml", "variant": "v9",
                                                       "metrics": {"jobs_completed": 1}}]}, "v9"),
]:
    case(name, {**OK, "baseline.yaml": yaml.safe_dump(doc, sort_keys=False)}, says, ["check", "baseline.yaml"])
case("baseline duplicate metric", {**OK, "baseline.yaml": yaml.safe_dump(BASELINE, sort_keys=False).replace(
    "jobs_completed: 1", "jobs_completed: 1\n    jobs_completed: 2")}, "jobs_completed", ["check", "baseline.yaml"])
case("mig-parted file missing", {}, "nowhere.yaml", ["mig", "validate", "nowhere.yaml", "--node", "dgx-a100-80gb"])
case("mig-parted unknown node", {"mig.yaml": MIG.replace("{DEVICES}", '{"1g.10gb": 7}')}, "z-9x",
     ["mig", "validate", "mig.yaml", "--node", "z-9x"])


# Numbers at the edge (issue 19): not finite, past the clock's 100 years, or past 32 bits; the trace
# rows of this kind are with the other CSV rows above.
case("philly duration 9.3e12", with_trace("philly", PHILLY_HEAD + "2017-10-03 00:00:00,9300000000000,1,c1\n"),
     ["trace.csv", "column 'duration'"])
case("openb time -1e15", with_trace("openb", PODS_HEAD + "a,1000,1024,1,1000,-1000000000000000,10\n"),
     ["trace.csv", "creation_time"])
for name, fields, says in [
    ("bytes per iteration 1e93", {"workload.jobs[0].duration": DELETE,
                                  "workload.jobs[0].communication": {**COMM, "bytes_per_iteration": 1e93}},
     "workload.jobs[0].communication.bytes_per_iteration"),
    ("iterations 9e18", {"workload.jobs[0].duration": DELETE,
                         "workload.jobs[0].communication": {**COMM, "iterations": 9000000000000000000}},
     "workload.jobs[0].communication"),
    ("horizon 1e8 days", {"horizon": "100000000d"}, "horizon"),
    ("job duration 1e9 hours", {"workload.jobs[0].duration": "1000000000h"}, "workload.jobs[0].duration"),
    ("job duration nan", {"workload.jobs[0].duration": ".nan"}, "workload.jobs[0].duration"),
    ("job u nan", {"workload.jobs[0].u": ".nan"}, "workload.jobs[0].u"),
    ("job priority 2^32", {"workload.jobs[0].priority": 4294967296}, "workload.jobs[0].priority"),
    ("job gpus x workers", {"workload.jobs[0].gpus": 100000, "workload.jobs[0].workers": 100000}, "workload.jobs[0]"),
    ("seed 2^64", {"seed": 18446744073709551616}, "seed"),
    ("catalog gpus 2^32+1", {"catalog": {"nodes": [{**CATALOG_NODE, "gpus": 4294967297}]}}, "catalog.nodes[0].gpus"),
    ("catalog sms 2^32", {"catalog": {"gpus": [{**CATALOG_GPU, "sms": 4294967296}]}}, "catalog.gpus[0].sms"),
    ("price inf", {"cluster.pools[0].price_per_gpu_hour_usd": ".inf"}, "cluster.pools[0].price_per_gpu_hour_usd"),
]:
    field(name, fields, says)
for name, arrival, duration, says in [
    ("generator start negative", {"rate_per_hour": 2, "start": "-10h"}, "1h", "arrival.start"),
    ("generator rate 1e-300", {"rate_per_hour": 1e-300}, "1h", "arrival.rate_per_hour"),
    ("generator lognormal sigma 1e6", {"rate_per_hour": 2}, {"distribution": "lognormal", "median": "1h", "sigma": 1e6},
     "duration.sigma"),
    ("generator exponential mean 9e18us", {"rate_per_hour": 2}, {"distribution": "exponential", "mean": "9e18us"},
     "duration.mean"),
]:
    cls = {**GENERATED, "arrival": arrival, "duration": duration}
    field(name, {"workload": {"generator": {"classes": [cls]}}}, f"workload.generator.classes[0].{says}")

# Bounded memory (issue 19): refused from an estimate, before anything big is allocated.
for name, fields, says in [
    ("inline count 1e9", {"workload.jobs[0].count": 1000000000}, "workload.jobs[0].count"),
    ("generator count 1e15", {"workload": {"generator": {"classes": [{**GENERATED, "count": 10**15}]}}},
     "workload.generator.classes[0].count"),
    ("time series step 1us", {"horizon": "100d", "outputs": {"timeseries_step": "1us"}}, "outputs.timeseries_step"),
    ("64 pools of 1M nodes", {"cluster.pools": [{"name": f"p{i}", "node": "l4-4x", "count": 1000000} for i in range(64)]},
     "cluster.pools"),
]:
    field(name, fields, says)
case("--max-memory text", OK, "--max-memory", ["run", "scenario.yaml", "--max-memory", "lots"])
case("--max-memory below the run", OK, "--max-memory", ["run", "scenario.yaml", "--max-memory", "1KiB"])

# gpusim import k8s: the file, the object and the field at fault, and what was expected.
K8S_NODE = ("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n"
            "    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n    nvidia.com/gpu.count: \"8\"\n")


def k8s_pod(limits, node=""):
    bound = f"  nodeName: {node}\n" if node else ""
    return ("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ml\nspec:\n" + bound +
            "  containers:\n    - name: c\n      resources:\n        limits:\n" + limits)


def k8s(name, text, says):
    case(name, {"k8s.yaml": text}, says, ["import", "k8s", "k8s.yaml"])


# A `kubectl get -o json` List of 3,000 Pods: every lookup in it had cost the whole file (58 s for 400).
case("k8s List of 3,000 Pods imports", {"k8s.json": json.dumps({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {
        "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8"}}}] + [
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "ml"},
     "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}} for i in range(3000)]})},
     [], ["import", "k8s", "k8s.json"], code=0)
k8s("k8s malformed YAML", K8S_NODE + k8s_pod("          nvidia.com/gpu: [1\n"), ["k8s.yaml:", "not valid YAML or JSON"])
k8s("k8s GPU product not in the catalog", K8S_NODE.replace("NVIDIA-H100-80GB-HBM3", "NVIDIA-X9000") +
    k8s_pod("          nvidia.com/gpu: 1\n"), ["k8s.yaml:line 6", "Node n1", "nvidia.com/gpu.product", "NVIDIA-X9000"])
k8s("k8s no node template of that count", K8S_NODE.replace('"8"', '"3"') + k8s_pod("          nvidia.com/gpu: 1\n"),
    ["Node n1", "nvidia.com/gpu.count", "3 x H100-80GB-SXM"])
k8s("k8s negative GPU request", K8S_NODE + k8s_pod("          nvidia.com/gpu: -1\n"),
    ["Pod ml/p", "spec.containers[0].resources.limits.nvidia.com/gpu", "expected a number in 0..100000, got -1"])
k8s("k8s running on an unknown node", K8S_NODE + k8s_pod("          nvidia.com/gpu: 1\n", "n7"),
    ["Pod ml/p", "spec.nodeName", "'n7'"])
k8s("k8s bad duration annotation", K8S_NODE + k8s_pod("          nvidia.com/gpu: 1\n").replace(
    "  namespace: ml\n", "  namespace: ml\n  annotations: {gpusim.io/duration: soon}\n"),
    ["Pod ml/p", "metadata.annotations.gpusim.io/duration"])
k8s("k8s zero deadline annotation", K8S_NODE + k8s_pod("          nvidia.com/gpu: 1\n").replace(
    "  namespace: ml\n", "  namespace: ml\n  annotations: {gpusim.io/deadline: 0}\n"),
    ["Pod ml/p", "metadata.annotations.gpusim.io/deadline", "positive"])
k8s("k8s no nodes", k8s_pod("          nvidia.com/gpu: 1\n"), ["no GPU Node objects"])
# Issue 42: what the scenario reader refuses, the importer refuses too, naming the file and the key.
k8s("k8s repeated limits key", K8S_NODE + k8s_pod("          nvidia.com/gpu: 1\n          nvidia.com/gpu: 4\n"),
    ["k8s.yaml:line 20", "spec.containers[0].resources.limits.nvidia.com/gpu", "given twice (first at line 19)"])
k8s("k8s alias bomb", K8S_NODE + k8s_pod("          nvidia.com/gpu: 1\n").replace(
    "  namespace: ml\n", "  namespace: ml\n  annotations:\n    a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"    {chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
              f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
              for i in range(8))), ["k8s.yaml:", "aliases (*name) repeat this block"])
k8s("k8s Node and Pod without a separator", K8S_NODE + k8s_pod("          nvidia.com/gpu: 1\n").replace("---\n", ""),
    ["k8s.yaml:line 8", "the key 'apiVersion' is given twice"])
k8s("k8s limits a list", K8S_NODE + k8s_pod("          - nvidia.com/gpu\n"),
    ["k8s.yaml:line 19", "Pod ml/p", "spec.containers[0].resources.limits", "expected a map"])
k8s("k8s resources a list", K8S_NODE + k8s_pod("          nvidia.com/gpu: 1\n").replace(
    "      resources:\n        limits:\n          nvidia.com/gpu: 1\n", "      resources: [limits]\n"),
    ["Pod ml/p", "spec.containers[0].resources", "expected a map"])
k8s("k8s container a list", K8S_NODE + k8s_pod("          nvidia.com/gpu: 1\n").replace(
    "    - name: c\n      resources:\n        limits:\n          nvidia.com/gpu: 1\n", "    - [c]\n"),
    ["Pod ml/p", "spec.containers[0]", "expected a map"])
k8s("k8s device plugin data a list", K8S_NODE + k8s_pod("          nvidia.com/gpu: 1\n") +
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dp\n  namespace: gpu-operator\ndata: [ts]\n",
    ["ConfigMap gpu-operator/dp", "data", "expected a map"])
k8s("k8s List items a map", "apiVersion: v1\nkind: List\nitems:\n  a: 1\n", ["k8s.yaml:line 4", "items", "expected a list of objects"])
k8s("k8s not UTF-8", (K8S_NODE + k8s_pod("          nvidia.com/gpu: 1\n")).encode().replace(b"name: p\n", b"name: p\xe9\n"),
    ["k8s.yaml:line 12", "not UTF-8"])
# Quantities: Kubernetes' whole syntax is read (100u, 1n, +1, 1e3, 1E); a suffix it lacks is named
# with the ones it has; a value past what gpusim holds is refused rather than dropped.
GPU1 = "          nvidia.com/gpu: 1\n"
K8S_POD = K8S_NODE + k8s_pod(GPU1)
k8s("k8s cpu 1e18", K8S_NODE + k8s_pod(GPU1 + "          cpu: \"1e18\"\n"),
    ["k8s.yaml:line 20", "Pod ml/p", "spec.containers[0].resources.limits.cpu", "expected a number in 0..1000000, got 1e18"])
k8s("k8s cpu 1E", K8S_NODE + k8s_pod(GPU1 + "          cpu: 1E\n"),
    ["spec.containers[0].resources.limits.cpu", "expected a number in 0..1000000, got 1E"])
k8s("k8s cpu unknown suffix", K8S_NODE + k8s_pod(GPU1 + "          cpu: 100x\n"),
    ["spec.containers[0].resources.limits.cpu", "'100x' has the suffix 'x'", "n, u, m, k, M, G, T, P, E, Ki"])
k8s("k8s memory 1Ei fits nowhere", K8S_NODE + k8s_pod(GPU1 + "          memory: 1Ei\n"),
    ["k8s.yaml", "would be refused", "can never run"])
k8s("k8s GPU count fractional", K8S_NODE + k8s_pod("          nvidia.com/gpu: 1500m\n"),
    ["spec.containers[0].resources.limits.nvidia.com/gpu", "expected a whole number of devices, got '1500m'"])
# Fields of the wrong shape are errors naming the field, never dropped or defaulted.
k8s("k8s tolerations a string", K8S_POD.replace("spec:\n  containers:", "spec:\n  tolerations: dedicated\n  containers:"),
    ["Pod ml/p", "spec.tolerations", "expected a list"])
k8s("k8s namespace a list", K8S_POD.replace("  namespace: ml\n", "  namespace: [ml]\n"),
    ["k8s.yaml:line 13", "metadata.namespace", "expected a single value"])
k8s("k8s taint value a list", K8S_NODE + "spec:\n  taints:\n    - {key: a, value: [x], effect: NoSchedule}\n" + k8s_pod(GPU1),
    ["Node n1", "spec.taints[0].value", "expected a single value"])
k8s("k8s Pod without a name", K8S_POD.replace("  name: p\n", ""), ["k8s.yaml:line 12", "metadata.name", "expected the object's name"])
k8s("k8s containers a list of lists", K8S_POD.replace("    - name: c\n      resources:", "    - - name: c\n        resources:"),
    ["Pod ml/p", "spec.containers[0]", "expected a map"])
k8s("k8s owner kind a map", K8S_POD.replace("  namespace: ml\n", "  namespace: ml\n  ownerReferences: [{kind: {a: 1}, name: r}]\n"),
    ["Pod ml/p", "metadata.ownerReferences[0].kind", "expected a single value"])
k8s("k8s queue label a list", K8S_POD.replace("  namespace: ml\n", "  namespace: ml\n  labels: {kueue.x-k8s.io/queue-name: [q]}\n"),
    ["Pod ml/p", "metadata.labels.kueue.x-k8s.io/queue-name", "expected a single value"])
k8s("k8s migStrategy unknown", K8S_POD + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dp\n"
    "data:\n  any: |\n    version: v1\n    flags: {migStrategy: some}\n",
    ["ConfigMap dp", "data.any.flags.migStrategy", "none, single, mixed", "'some'"])
# What gpusim run would refuse, the importer refuses, naming the manifest.
k8s("k8s Pod name twice", K8S_POD + k8s_pod(GPU1), ["k8s.yaml:line 24", "Pod ml/p", "a second Pod of this name in namespace ml",
                                                   "the first is in k8s.yaml line 12"])
k8s("k8s kind annotation unknown", K8S_POD.replace("  namespace: ml\n", "  namespace: ml\n  annotations: {gpusim.io/kind: render}\n"),
    ["Pod ml/p", "metadata.annotations.gpusim.io/kind", "training, inference, notebook, batch", "'render'"])
k8s("k8s LocalQueue of no ClusterQueue", K8S_POD + "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\n"
    "metadata: {name: lq, namespace: ml}\nspec: {clusterQueue: cq}\n",
    ["k8s.yaml:line 24", "LocalQueue ml/lq", "spec.clusterQueue", "no ClusterQueue 'cq' among the objects read"])
k8s("k8s stray comma between documents", "{}, x\n", ["k8s.yaml:line 1", "a ',', ']' or '}' outside any list or map"])
k8s("k8s nested too deep", K8S_POD.replace("  namespace: ml\n", "  namespace: ml\n  annotations: {a: " + "[" * 100000 + "]" * 100000 + "}\n"),
    ["k8s.yaml", "nested more than 2000 levels deep"])
# Tenancy objects and pod settings (issue 17): the file, its line, the object and the field.


def k8s_obj(api, kind, name, body, ns=""):
    meta = f"  name: {name}\n" + (f"  namespace: {ns}\n" if ns else "")
    return f"---\napiVersion: {api}\nkind: {kind}\nmetadata:\n{meta}{body}"


def k8s_pod_spec(extra):
    return K8S_POD.replace("spec:\n  containers:", "spec:\n" + extra + "  containers:")


CQ = ("spec:\n  resourceGroups:\n    - coveredResources: [nvidia.com/gpu]\n      flavors:\n        - name: f\n"
      "          resources:\n            - {name: nvidia.com/gpu, nominalQuota: QUOTA}\n")
for name, text, says in [
    ("PriorityClass value text", k8s_obj("scheduling.k8s.io/v1", "PriorityClass", "hi", "value: high\n"),
     ["k8s.yaml:line 25", "PriorityClass hi", "value", "expected a whole number from -2147483648 to 2147483647"]),
    ("PriorityClass preemptionPolicy", k8s_obj("scheduling.k8s.io/v1", "PriorityClass", "hi",
                                               "value: 10\npreemptionPolicy: Sometimes\n"),
     ["PriorityClass hi", "preemptionPolicy", "PreemptLowerPriority, Never", "'Sometimes'"]),
    ("PriorityClass twice", k8s_obj("scheduling.k8s.io/v1", "PriorityClass", "hi", "value: 1\n") * 2,
     ["PriorityClass hi", "metadata.name", "a second PriorityClass"]),
    ("ResourceQuota quantity", k8s_obj("v1", "ResourceQuota", "q", "spec:\n  hard:\n    requests.nvidia.com/gpu: lots\n",
                                       "ml"), ["ResourceQuota ml/q", "spec.hard.requests.nvidia.com/gpu", "quantity"]),
    ("ResourceQuota without hard", k8s_obj("v1", "ResourceQuota", "q", "spec: {}\n", "ml"),
     ["ResourceQuota ml/q", "spec.hard", "expected a map"]),
    ("PodDisruptionBudget both", k8s_obj("policy/v1", "PodDisruptionBudget", "b",
                                         "spec:\n  minAvailable: 1\n  maxUnavailable: 1\n  selector: {matchLabels: {a: b}}\n",
                                         "ml"), ["PodDisruptionBudget ml/b", "spec", "minAvailable and maxUnavailable"]),
    ("PodDisruptionBudget percent", k8s_obj("policy/v1", "PodDisruptionBudget", "b",
                                            "spec:\n  minAvailable: half\n  selector: {matchLabels: {a: b}}\n", "ml"),
     ["PodDisruptionBudget ml/b", "spec.minAvailable", "a count or a percent"]),
    ("PodDisruptionBudget percent past 100", k8s_obj("policy/v1", "PodDisruptionBudget", "b",
                                                     "spec:\n  minAvailable: 150%\n  selector: {matchLabels: {a: b}}\n", "ml"),
     ["PodDisruptionBudget ml/b", "spec.minAvailable", "a whole percent from 0% to 100%", "'150%'"]),
    ("ClusterQueue quota", k8s_obj("kueue.x-k8s.io/v1beta1", "ClusterQueue", "cq", CQ.replace("QUOTA", "eight")),
     ["ClusterQueue cq", "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota", "quantity"]),
    ("ClusterQueue strategy", k8s_obj("kueue.x-k8s.io/v1beta1", "ClusterQueue", "cq",
                                      CQ.replace("QUOTA", "8") + "  queueingStrategy: LIFO\n"),
     ["ClusterQueue cq", "spec.queueingStrategy", "StrictFIFO, BestEffortFIFO"]),
    ("ClusterQueue groups a map", k8s_obj("kueue.x-k8s.io/v1beta1", "ClusterQueue", "cq", "spec:\n  resourceGroups: {a: 1}\n"),
     ["ClusterQueue cq", "spec.resourceGroups", "expected a list"]),
    ("LocalQueue without clusterQueue", k8s_obj("kueue.x-k8s.io/v1beta1", "LocalQueue", "lq", "spec: {}\n", "ml"),
     ["LocalQueue ml/lq", "spec.clusterQueue"]),
    ("ResourceClaimTemplate without class", k8s_obj("resource.k8s.io/v1", "ResourceClaimTemplate", "t",
                                                    "spec:\n  spec:\n    devices:\n      requests:\n"
                                                    "        - name: g\n          exactly: {count: 1}\n", "ml"),
     ["ResourceClaimTemplate ml/t", "spec.spec.devices.requests[0].exactly.deviceClassName"]),
    ("Node taint effect", K8S_NODE + "spec:\n  taints:\n    - {key: a, effect: Never}\n" +
     k8s_pod("          nvidia.com/gpu: 1\n"), ["Node n1", "spec.taints[0].effect", "NoSchedule"]),
    ("Pod unknown priority class", k8s_pod_spec("  priorityClassName: urgent\n"),
     ["k8s.yaml:line", "Pod ml/p", "spec.priorityClassName", "no PriorityClass 'urgent'"]),
    ("Pod unknown LocalQueue", K8S_POD.replace("  namespace: ml\n", "  namespace: ml\n  labels: {kueue.x-k8s.io/queue-name: q}\n"),
     ["k8s.yaml:line 14", "Pod ml/p", "metadata.labels.kueue.x-k8s.io/queue-name", "no LocalQueue 'q' in namespace ml"]),
    ("Pod toleration operator", k8s_pod_spec("  tolerations: [{key: a, operator: Maybe}]\n"),
     ["Pod ml/p", "spec.tolerations[0].operator", "Equal, Exists"]),
    ("Pod toleration without key", k8s_pod_spec("  tolerations: [{value: a}]\n"),
     ["Pod ml/p", "spec.tolerations[0].operator", "needs operator Exists"]),
    ("Pod affinity operator", k8s_pod_spec(
        "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
        "        nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Near}]}]\n"),
     ["Pod ml/p", "nodeSelectorTerms[0].matchExpressions[0].operator", "In, NotIn"]),
    ("Pod preferred weight", k8s_pod_spec(
        "  affinity:\n    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n"
        "        - {weight: 0, preference: {matchExpressions: [{key: a, operator: Exists}]}}\n"),
     ["Pod ml/p", "preferredDuringSchedulingIgnoredDuringExecution[0].weight", "from 1 to 100"]),
    ("Pod grace period", k8s_pod_spec("  terminationGracePeriodSeconds: -5\n"),
     ["Pod ml/p", "spec.terminationGracePeriodSeconds", "expected a whole number"]),
    ("Pod unknown claim template", k8s_pod_spec("  resourceClaims: [{name: g, resourceClaimTemplateName: none}]\n"),
     ["Pod ml/p", "spec.resourceClaims", "no ResourceClaimTemplate 'none' in namespace ml"]),
    ("ResourceClaim without requests", k8s_obj("resource.k8s.io/v1", "ResourceClaim", "c", "spec:\n  devices: {}\n", "ml"),
     ["k8s.yaml:line 27", "ResourceClaim ml/c", "spec.devices.requests", "expected a list of device requests"]),
    ("ResourceClaim count", k8s_obj("resource.k8s.io/v1", "ResourceClaim", "c",
                                    "spec:\n  devices:\n    requests:\n      - name: g\n"
                                    "        exactly: {deviceClassName: d, count: many}\n", "ml"),
     ["k8s.yaml:line 30", "ResourceClaim ml/c", "spec.devices.requests[0].exactly.count", "expected a whole number"]),
    ("Pod unknown ResourceClaim", k8s_pod_spec("  resourceClaims: [{name: g, resourceClaimName: none}]\n"),
     ["k8s.yaml:line", "Pod ml/p", "spec.resourceClaims", "no ResourceClaim 'none' in namespace ml"]),
    ("Pod claim by template and name", k8s_pod_spec(
        "  resourceClaims: [{name: g, resourceClaimName: a, resourceClaimTemplateName: b}]\n"),
     ["k8s.yaml:line", "Pod ml/p", "spec.resourceClaims[0]", "one of resourceClaimTemplateName and resourceClaimName"]),
]:
    k8s("k8s " + name, text if "kind: Pod\n" in text else K8S_POD + text, says)
case("k8s --duration text", {"k8s.yaml": K8S_NODE + k8s_pod("          nvidia.com/gpu: 1\n")}, "--duration",
     ["import", "k8s", "k8s.yaml", "--duration", "a while"])
field("job node unknown", {"workload.jobs[0].node": "p-7"}, ["workload.jobs[0].node", "no node named 'p-7'"])
field("job node with workers", {"workload.jobs[0].node": "p-0", "workload.jobs[0].workers": 2}, "workload.jobs[0].node")
field("pool node_names count", {"cluster.pools[0].node_names": ["a"]}, "cluster.pools[0].node_names")
field("pool node_names twice", {"cluster.pools[0].count": 2, "cluster.pools[0].node_names": ["a", "a"]},
      "two nodes are named 'a'")

# Taints, tolerations, nodeSelector and node affinity (issue 17): the field and what was expected.
J = "workload.jobs[0]."
EXPR = J + "node_affinity.required[0].match_expressions[0]"


def expression(**fields):
    return {J + "node_affinity": {"required": [{"match_expressions": [{"key": "gpu", **fields}]}]}}


field("affinity unknown operator", expression(operator="Like", values=["a"]),
      [EXPR + ".operator", "expected one of In, NotIn, Exists, DoesNotExist, Gt, Lt, got 'Like'"])
field("affinity Gt not an integer", expression(operator="Gt", values=["big"]),
      [EXPR + ".values", "operator Gt needs exactly one value, an integer; got [big]"])
field("affinity Lt two values", expression(operator="Lt", values=["1", "2"]), [EXPR + ".values", "exactly one value"])
field("affinity In without values", expression(operator="In"), [EXPR, "operator In needs values"])
field("affinity Exists with values", expression(operator="Exists", values=["a"]), [EXPR + ".values", "takes no values"])
field("affinity operator missing", expression(values=["a"]), [EXPR, "missing required field 'operator'"])
field("affinity empty key", {J + "node_affinity": {"required": [{"match_expressions": [{"key": "", "operator": "Exists"}]}]}},
      [EXPR + ".key", "expected a non-empty label key"])
field("affinity empty term", {J + "node_affinity": {"required": [{"match_expressions": []}]}},
      [J + "node_affinity.required[0].match_expressions", "an empty term matches no node"])
field("affinity no terms", {J + "node_affinity": {"required": []}}, [J + "node_affinity.required", "at least one term"])
field("affinity weight 0", {J + "node_affinity": {"preferred": [{"weight": 0, "preference": {
    "match_expressions": [{"key": "gpu", "operator": "Exists"}]}}]}},
    [J + "node_affinity.preferred[0].weight", "1..100"])
field("affinity weight 101", {J + "node_affinity": {"preferred": [{"weight": 101, "preference": {
    "match_expressions": [{"key": "gpu", "operator": "Exists"}]}}]}},
    [J + "node_affinity.preferred[0].weight", "1..100"])
field("affinity preference missing", {J + "node_affinity": {"preferred": [{"weight": 5}]}},
      [J + "node_affinity.preferred[0]", "missing required field 'preference'"])
field("affinity on hostname", {J + "node_affinity": {"required": [{"match_expressions": [
    {"key": "kubernetes.io/hostname", "operator": "In", "values": ["p-0"]}]}]}}, [EXPR + ".key", "per-node label"])
field("node_selector on hostname", {J + "node_selector": {"kubernetes.io/hostname": "p-0"}},
      [J + "node_selector.kubernetes.io/hostname", "per-node label"])
field("node_selector value a list", {J + "node_selector": {"gpu": ["a"]}}, J + "node_selector.gpu")
field("toleration without key, Equal", {J + "tolerations": [{"value": "x"}]},
      [J + "tolerations[0]", "it needs operator Exists"])
field("toleration Exists with a value", {J + "tolerations": [{"key": "k", "operator": "Exists", "value": "x"}]},
      [J + "tolerations[0].value", "takes no value"])
field("toleration unknown operator", {J + "tolerations": [{"key": "k", "operator": "Matches"}]},
      [J + "tolerations[0].operator", "expected one of Equal, Exists"])
field("toleration unknown effect", {J + "tolerations": [{"key": "k", "effect": "NoRun"}]},
      [J + "tolerations[0].effect", "NoSchedule, PreferNoSchedule, NoExecute"])
field("taint unknown effect", {"cluster.pools[0].taints": [{"key": "k", "effect": "NoRun"}]},
      ["cluster.pools[0].taints[0].effect", "expected one of NoSchedule, PreferNoSchedule, NoExecute, got 'NoRun'"])
field("taint without effect", {"cluster.pools[0].taints": [{"key": "k"}]},
      ["cluster.pools[0].taints[0]", "missing required field 'effect'"])
field("taint empty key", {"cluster.pools[0].taints": [{"key": "", "effect": "NoSchedule"}]},
      ["cluster.pools[0].taints[0].key", "non-empty"])
field("taint untolerated: job never fits", {"cluster.pools[0].taints": [{"key": "dedicated", "effect": "NoSchedule"}]},
      ["job 'j' can never run", "does not tolerate the taint dedicated:NoSchedule of pool p"])
field("node_selector matches no pool", {J + "node_selector": {"nvidia.com/gpu.product": "NVIDIA-H100"}},
      ["job 'j' can never run", "has node_selector nvidia.com/gpu.product=NVIDIA-H100; pool p has nvidia.com/gpu.product=NVIDIA-L4"])
field("extended_resource_toleration not a boolean", {"tenancy": {"extended_resource_toleration": "yes"}},
      ["tenancy.extended_resource_toleration", "expected true or false"])

# metrics.om (issue 21): the start date, and an existing --metrics file.
field("metrics start not a date", {"outputs": {"metrics_start": "2026-02-30"}}, "outputs.metrics_start")
field("metrics start with an offset", {"outputs": {"metrics_start": "2026-01-01T00:00:00+01:00"}}, "outputs.metrics_start")
case("--metrics-start text", OK, "--metrics-start", ["run", "scenario.yaml", "--metrics-start", "new year"])
case("--set star on an empty list", scenario(**{"cluster.pools[0].labels": {"a": "b"}, "workload.jobs[0].tolerations": []}),
     ["--set", "'tolerations' is an empty list: '*' sets nothing"],
     ["run", "scenario.yaml", "--set", "workload.jobs[0].tolerations[*].key=x"])
case("--metrics-start before 1970", OK, "--metrics-start", ["run", "scenario.yaml", "--metrics-start", "1969-12-31"])
case("--metrics FILE exists", {**OK, "m.om": "old"}, ["m.om", "--force"],
     ["run", "scenario.yaml", "--metrics=m.om"])
case("--metrics FILE a directory", {**OK, "m.om/keep": ""}, ["m.om", "directory"],
     ["run", "scenario.yaml", "--metrics=m.om"])
case("--metrics FILE with --seeds", OK, "--metrics", ["run", "scenario.yaml", "--metrics=m.om", "--seeds", "1-2"])
case("--metrics without --out", OK, ["--metrics", "--out"], ["run", "scenario.yaml", "--metrics"])
LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(9))
case("billion laughs", LAUGHS, "scenario.yaml")
case("nested too deep", "name: x\nseed: " + "[" * 100000 + "\n", ["scenario.yaml", "nested more than 2000 levels deep"])
# yaml-cpp's Load keeps the first document and drops the rest: a scenario is one document.
case("second document", scenario() + "---\nseed: 3\n", ["scenario.yaml:line", "expected one YAML document; another begins here"])
case("text after a flow map", "{name: x, seed: 1}, {seed: 3}\n", ["scenario.yaml:line 1", "a ',', ']' or '}' outside any list or map"])
# 30,000 inline jobs load in linear time (each job's source had been found by a scan of all the others').
case("30,000 inline jobs load", scenario(**{"workload.jobs": [{"name": f"j{i}", "gpus": 1, "duration": "1h"} for i in range(30000)]}),
     [], ["validate", "scenario.yaml"], code=0)
case("--set value with a trailing list", scenario(), ["--set", "outside any list or map"], ["run", "scenario.yaml", "--set", "seed=[1], 2"])


def run(binary, name, files, args, code, says):
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for rel, text in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text if isinstance(text, bytes) else text.encode())
        done = subprocess.run([binary, *args], cwd=root, capture_output=True, text=True, errors="replace",
                              timeout=60)
    problems = []
    if done.returncode != code:
        problems.append(f"exit {done.returncode}, expected {code}")
    said = done.stderr + done.stdout  # a validate command reports on stdout
    for s in says:
        if s not in said:
            problems.append(f"the message lacks {s!r}")
    if "internal error" in done.stderr:
        problems.append("an internal error")
    return [f"{name}: {p}\n  gpusim {' '.join(args)}\n  {done.stderr.strip()}" for p in problems]


# gpusim report on a run directory edited by hand (issue 42): the file and the field (a JSON pointer,
# or the CSV line and column), never a "-" for a string, NaN in the SVG or a bare JSON type error.
RUN_SUMMARY = json.dumps({"scenario": "s", "policy": "fifo+best-fit", "pools": []})
OCCUPANCY = {"columns": 2, "column_s": 60, "end_s": 120, "events": [],
             "rows": [{"pool": "p", "first_node": "a", "last_node": "a", "up": [1, 1], "allocated": [0, 1]}]}


def report(name, files, says):
    case(name, {"run/summary.json": RUN_SUMMARY, **{f"run/{k}": v for k, v in files.items()}}, says,
         ["report", "run", "--out", "r.html"])


report("report cost a string", {"summary.json": json.dumps({"scenario": "s", "cost_usd": "12"})},
       ["run/summary.json: /cost_usd", "expected a number >= 0 as gpusim writes it, got \"12\""])
report("report service latency a list", {"summary.json": json.dumps({"services": [{"name": "a", "ttft_s": {"p99": [1]}}]})},
       ["run/summary.json: /services/0/ttft_s/p99", "expected a number >= 0"])
report("report reason count negative", {"summary.json": json.dumps({"failed_reasons": [{"jobs": -1, "reason": "x"}]})},
       ["run/summary.json: /failed_reasons/0/jobs", "expected a whole number >= 0"])
report("report column_s negative", {"occupancy.json": json.dumps(dict(OCCUPANCY, column_s=-1))},
       ["run/occupancy.json: /column_s", "expected a number > 0 as gpusim writes it, got -1"])
report("report occupancy value a string", {"occupancy.json": json.dumps(dict(OCCUPANCY, rows=[dict(OCCUPANCY["rows"][0], up=[1, "x"])]))},
       ["run/occupancy.json: /rows/0/up/1", "expected a number >= 0"])
report("report occupancy row short", {"occupancy.json": json.dumps(dict(OCCUPANCY, rows=[dict(OCCUPANCY["rows"][0], allocated=[0])]))},
       ["run/occupancy.json: /rows/0/allocated", "expected 2 values (columns), got 1"])
report("report occupancy without columns", {"occupancy.json": json.dumps({k: v for k, v in OCCUPANCY.items() if k != "columns"})},
       ["run/occupancy.json: /columns", "missing"])
report("report pool series nan", {"pool_timeseries.csv": "time_s,pool,gpus_ready,gpus_allocated,gpus_busy,nodes_billed\n"
                                                         "nan,p,1,1,1,1\n"},
       ["run/pool_timeseries.csv:line 2", "column 'time_s'"])
report("report job count negative", {"summary.json": json.dumps({"scenario": "s", "jobs_total": -5})},
       ["run/summary.json: /jobs_total", "expected a number >= 0 as gpusim writes it, got -5"])
report("report allocation ratio past 1", {"summary.json": json.dumps({"scenario": "s", "allocation_ratio": 7})},
       ["run/summary.json: /allocation_ratio", "expected a number in 0..1 as gpusim writes it, got 7"])
report("report tenant cost negative", {"summary.json": json.dumps({"tenants": [{"name": "a", "cost_allocated_usd": -1}]})},
       ["run/summary.json: /tenants/0/cost_allocated_usd", "expected a number >= 0"])
report("report pool series GPUs negative", {"pool_timeseries.csv": "time_s,pool,gpus_ready,gpus_allocated,gpus_busy,nodes_billed\n"
                                                                   "0,p,-8,1,1,1\n"},
       ["run/pool_timeseries.csv:line 2", "column 'gpus_ready'", ">= 0"])

# Tenancy (issue 17): priority classes, disruption budgets, resource quotas.
CLASSES = [{"name": "prod", "value": 1000, "global_default": True}, {"name": "batch", "value": 0}]
field("priority class unknown", {"tenancy": {"priority_classes": CLASSES}, "workload.jobs[0].priority_class": "gold"},
      ["workload.jobs", "priority_class", "unknown priority class 'gold'", "prod, batch"])
field("priority class without tenancy", {"workload.jobs[0].priority_class": "gold"},
      ["priority_class", "unknown priority class 'gold'"])
field("priority class two global defaults",
      {"tenancy": {"priority_classes": [CLASSES[0], dict(CLASSES[1], global_default=True)]}},
      ["tenancy.priority_classes[1].global_default", "'prod' is already the global default"])
field("priority not the class's", {"tenancy": {"priority_classes": CLASSES}, "workload.jobs[0].priority_class": "batch",
                                   "workload.jobs[0].priority": 5},
      ["workload.jobs", "priority", "is not the value of its class 'batch' (0)"])
field("priority class policy", {"tenancy": {"priority_classes": [{"name": "x", "value": 1, "preemption_policy": "Always"}]}},
      ["tenancy.priority_classes[0].preemption_policy", "PreemptLowerPriority"])
field("budget both limits", {"tenancy": {"pod_disruption_budgets": [
    {"namespace": "default", "selector": {"match_labels": {"a": "b"}}, "min_available": 1, "max_unavailable": 1}]}},
      ["tenancy.pod_disruption_budgets[0]", "exactly one of min_available, max_unavailable"])
field("budget percent above 100", {"tenancy": {"pod_disruption_budgets": [
    {"namespace": "default", "selector": {"match_labels": {"a": "b"}}, "min_available": "150%"}]}},
      ["tenancy.pod_disruption_budgets[0].min_available", "a whole percent from 0% to 100%", "'150%'"])
field("budget fractional percent", {"tenancy": {"pod_disruption_budgets": [
    {"namespace": "default", "selector": {"match_labels": {"a": "b"}}, "max_unavailable": "12.5%"}]}},
      ["tenancy.pod_disruption_budgets[0].max_unavailable", "'12.5%'"])
field("priority class empty name", {"tenancy": {"priority_classes": [{"name": "", "value": 1}]}},
      ["tenancy.priority_classes[0].name", "expected a name"])
field("pool label empty key", {"cluster.pools[0].labels": {"": "x"}}, ["cluster.pools[0].labels", "an empty key"])
field("node selector empty key", {"workload.jobs[0].node_selector": {"": "x"}},
      ["workload.jobs[0].node_selector", "an empty key"])
QUOTA = {"name": "q", "namespace": "default"}
field("quota name twice in a namespace", {"tenancy": {"resource_quotas": [dict(QUOTA, hard={"pods": 1}),
                                                                       dict(QUOTA, hard={"pods": 2})]}},
      ["tenancy.resource_quotas[1].name", "a second ResourceQuota named 'q' in namespace 'default'"])
field("quota unknown resource", {"tenancy": {"resource_quotas": [dict(QUOTA, hard={"nvidia.com/tpu": 1})]}},
      ["tenancy.resource_quotas[0].hard.nvidia.com/tpu", "unknown resource 'nvidia.com/tpu'", "requests.nvidia.com/gpu"])
field("quota malformed quantity", {"tenancy": {"resource_quotas": [dict(QUOTA, hard={"requests.cpu": "lots"})]}},
      ["tenancy.resource_quotas[0].hard.requests.cpu", "expected a Kubernetes quantity", "'lots'"])
field("quota fractional gpus", {"tenancy": {"resource_quotas": [dict(QUOTA, hard={"requests.nvidia.com/gpu": "1.5"})]}},
      ["tenancy.resource_quotas[0].hard.requests.nvidia.com/gpu", "expected a whole number"])
field("quota scope without values", {"tenancy": {"resource_quotas": [dict(QUOTA, hard={"pods": 1}, scope_selector={
    "match_expressions": [{"scope_name": "PriorityClass", "operator": "In"}]})]}},
      ["tenancy.resource_quotas[0].scope_selector.match_expressions[0]", "operator In needs values"])
field("quota scope name", {"tenancy": {"resource_quotas": [dict(QUOTA, hard={"pods": 1}, scope_selector={
    "match_expressions": [{"scope_name": "BestEffort", "operator": "Exists"}]})]}},
      ["scope_name", "PriorityClass"])
# Kueue (issue 17): tenancy.kueue. The base: one flavor on the pool's label, one ClusterQueue, one
# LocalQueue, the job in it.
FLAVORS = [{"name": "l4", "node_labels": {"gpu": "l4"}}]
GPU_GROUP = {"covered_resources": ["nvidia.com/gpu"],
             "flavors": [{"name": "l4", "resources": [{"name": "nvidia.com/gpu", "nominal_quota": 4}]}]}
CQ = {"name": "cq", "cohort": "org", "resource_groups": [GPU_GROUP]}
LQ = {"name": "lq", "namespace": "team", "cluster_queue": "cq"}


def kueue(**fields):
    """The base scenario with Kueue and its job in LocalQueue lq; `fields` edit tenancy.kueue."""
    doc = {"resource_flavors": FLAVORS, "cluster_queues": [CQ], "local_queues": [LQ]}
    doc = copy.deepcopy(doc)
    for path, value in fields.items():
        edit(doc, path, value)
    return scenario(**{"cluster.pools[0].labels": {"gpu": "l4"}, "workload.jobs[0].tenant": "team",
                       "workload.jobs[0].queue": "lq", "tenancy": {"kueue": doc}})


case("kueue job in an unknown LocalQueue", scenario(**{
    "cluster.pools[0].labels": {"gpu": "l4"}, "workload.jobs[0].tenant": "team", "workload.jobs[0].queue": "nope",
    "tenancy": {"kueue": {"resource_flavors": FLAVORS, "cluster_queues": [CQ], "local_queues": [LQ]}}}),
     ["scenario.yaml", "workload.jobs[0].queue", "unknown LocalQueue 'nope' in namespace 'team'", "lq"])
case("kueue LocalQueue of an unknown ClusterQueue", kueue(**{"local_queues[0].cluster_queue": "gpu"}),
     ["scenario.yaml", "tenancy.kueue.local_queues[0].cluster_queue", "unknown ClusterQueue 'gpu'",
      "expected one of tenancy.kueue.cluster_queues: cq"])
case("kueue flavor matches no pool", kueue(**{"resource_flavors[0].node_labels": {"gpu": "h100"}}),
     ["tenancy.kueue.resource_flavors[0].node_labels", "no pool has all of ResourceFlavor"])
case("kueue flavor unknown", kueue(**{"cluster_queues[0].resource_groups[0].flavors[0].name": "a100"}),
     ["scenario.yaml", "tenancy.kueue.cluster_queues[0].resource_groups[0].flavors[0].name",
      "unknown ResourceFlavor 'a100'", "l4"])
case("kueue cohort cycle", kueue(**{"cohorts": [{"name": "org", "parent": "dept"}, {"name": "dept", "parent": "org"}]}),
     ["scenario.yaml", "tenancy.kueue.cohorts[0].parent", "cycle", "org -> dept -> org", "a tree"])
# Hostile sizes (issue 42): a cycle of 30,000 cohorts is named by its start and length; a valid chain
# as deep runs (it crashed in a recursion) and loads in linear time.
LONG = 30000
case("kueue cohort cycle of 30,000", kueue(**{"cohorts": [{"name": f"c{i}", "parent": f"c{(i + 1) % LONG}"} for i in range(LONG)]}),
     ["tenancy.kueue.cohorts[0].parent", "c0 -> c1 -> c2 -> c3 -> c4 -> c5 -> c6 -> c7 -> c8 -> c9 -> ... (29990 more) -> c0"])
case("kueue cohort chain of 30,000 runs", kueue(**{"cohorts": [{"name": f"c{i}", **({"parent": f"c{i - 1}"} if i else {})}
                                                          for i in range(LONG)], "cluster_queues[0].cohort": f"c{LONG - 1}"}),
     [], code=0)
case("kueue nominal quota malformed", kueue(**{
    "cluster_queues[0].resource_groups[0].flavors[0].resources[0].nominal_quota": "four"}),
     ["scenario.yaml", "tenancy.kueue.cluster_queues[0].resource_groups[0].flavors[0].resources[0].nominal_quota",
      "expected a Kubernetes quantity", "'four'"])
case("kueue nominal quota suffix", kueue(**{
    "cluster_queues[0].resource_groups[0].flavors[0].resources[0].nominal_quota": "4X"}),
     ["scenario.yaml", "nominal_quota", "'4X' has the suffix 'X'", "Gi"])
case("kueue resource not covered", kueue(**{
    "cluster_queues[0].resource_groups[0].flavors[0].resources[1]": {"name": "cpu", "nominal_quota": 8}}),
     ["scenario.yaml", "tenancy.kueue.cluster_queues[0].resource_groups[0].flavors[0].resources[1].name",
      "resource 'cpu' is not one of the group's covered_resources (nvidia.com/gpu)"])
case("kueue preemption policy unknown", kueue(**{"cluster_queues[0].preemption": {"reclaim_within_cohort": "Sometimes"}}),
     ["scenario.yaml", "tenancy.kueue.cluster_queues[0].preemption.reclaim_within_cohort",
      "expected one of Never, LowerPriority, Any, got 'Sometimes'"])
case("kueue preemption policy not of that field", kueue(**{
    "cluster_queues[0].preemption": {"within_cluster_queue": "Any"}}),
     ["scenario.yaml", "tenancy.kueue.cluster_queues[0].preemption.within_cluster_queue",
      "expected one of Never, LowerPriority, LowerOrNewerEqualPriority, got 'Any'"])
case("kueue fungibility value not of that field", kueue(**{"cluster_queues[0].flavor_fungibility": {"when_can_borrow": "Preempt"}}),
     ["scenario.yaml", "tenancy.kueue.cluster_queues[0].flavor_fungibility.when_can_borrow",
      "expected one of Borrow, TryNextFlavor, got 'Preempt'"])
case("kueue fair sharing strategies order", kueue(**{"fair_sharing": {
    "enable": True, "preemption_strategies": ["LessThanInitialShare", "LessThanOrEqualToFinalShare"]}}),
     ["scenario.yaml", "tenancy.kueue.fair_sharing.preemption_strategies", "[LessThanOrEqualToFinalShare, LessThanInitialShare]"])
case("kueue termination_grace removed", kueue(**{"termination_grace": "10s"}),
     ["scenario.yaml", "tenancy.kueue.termination_grace", "no longer read", "termination_grace_period"])

field("preempt with a preemptive order", {"policy": "las+first-fit+preempt"}, ["policy", "+preempt", "composes with fifo"])


# Inference services (issue 18): the service, its model, its replicas' pod and its requests. The base:
# qwen2-0.5b on a MIG 1g.10gb slice of an A100-80GB, one request a second for a minute.
SVC = "workload.services[0]"
SERVICE = {"name": "s", "model": "qwen2-0.5b", "pod": {"resource": "nvidia.com/mig-1g.10gb"},
           "requests": {"generator": {"rate": 1, "duration": "1m", "prompt_tokens": 100, "output_tokens": 10}}}
A100_MIG = {"name": "a100", "node": "dgx-a100-80gb", "count": 1, "mig": {"strategy": "mixed", "config": "all-1g.10gb"}}
A100_SLICED = {"name": "a100", "node": "dgx-a100-80gb", "count": 1,
               "sharing": {"timeSlicing": {"resources": [{"name": "nvidia.com/gpu", "replicas": 4}]}}}
MODEL = {"name": "m", "params": 1000000, "layers": 2, "hidden": 64, "heads": 4, "intermediate": 128, "vocab": 1000,
         "max_model_len": 4096, "source": "test"}
FIXED = {"name": "f", "kind": "fixed", "params": 1000000, "service_time": "5ms", "reference_gpu": "A100-80GB-SXM",
         "max_batch": 8, "batch_alpha": 0.2, "source": "test"}


def service(scenario_fields=None, **fields):
    """The base service scenario; `fields` edit the service (dotted paths), `scenario_fields` the scenario."""
    svc = copy.deepcopy(SERVICE)
    for path, value in fields.items():
        edit(svc, path, value)
    return scenario(**{"horizon": "10m", "cluster.pools[0]": A100_MIG, "workload": {"services": [svc]},
                       **(scenario_fields or {})})


for name, fields, says in [
    ("service model unknown", {"model": "gpt-5"}, [f"{SVC}.model", "unknown model 'gpt-5'", "qwen2-0.5b"]),
    ("service model missing", {"model": DELETE}, [SVC, "model"]),
    ("service requests missing", {"requests": DELETE}, [SVC, "requests"]),
    ("service model does not fit its MIG slice", {"model": "llama-3-8b"},
     [f"{SVC}.model", "model llama-3-8b does not fit a replica on pool a100", "1g.10gb", "MiB", "weights take"]),
    ("service tensor parallel on MIG", {"tensor_parallel": 2}, [f"{SVC}.pod", "cannot use MIG instances"]),
    ("service tensor parallel with gpu_milli", {"tensor_parallel": 2, "pod": {"gpu_milli": 500}},
     [f"{SVC}.pod.gpu_milli", "tensor-parallel replica (tensor_parallel: 2) holds whole GPUs"]),
    ("service tensor parallel zero", {"tensor_parallel": 0}, f"{SVC}.tensor_parallel"),
    ("service tensor parallel 3 of 14 heads", {"tensor_parallel": 3},
     [f"{SVC}.tensor_parallel", "model qwen2-0.5b has 14 attention heads, which 3 GPUs cannot split evenly"]),
    ("service requests past memory", {"requests": {"generator": {"rate": 1000000, "duration": "20m", "prompt_tokens": 10,
                                                                 "output_tokens": 10}}},
     [f"{SVC}.requests.generator.rate", "1200000000 requests (rate x duration)", "--max-memory"]),
    ("service baseline above replicas", {"replicas": 2, "baseline": {"replicas": 3, "pod": {}}},
     [f"{SVC}.baseline.replicas", "expected at most the service's replicas (2), got 3"]),
    ("service baseline without pod", {"baseline": {"replicas": 1}}, [f"{SVC}.baseline", "pod"]),
    ("service slo unknown metric", {"slo": {"latency_p95": "1s"}},
     [f"{SVC}.slo.latency_p95", "unknown SLO metric 'latency_p95'", "ttft"]),
    ("service slo unknown percentile", {"slo": {"ttft_p95": "1s"}}, [f"{SVC}.slo.ttft_p95", "_p50, _p90, _p99 or _mean"]),
    ("service slo zero", {"slo": {"ttft": "0s"}}, [f"{SVC}.slo.ttft", "expected a positive latency target"]),
    ("service slo negative", {"slo": {"tpot_p99": "-10ms"}}, [f"{SVC}.slo.tpot_p99", "expected a duration from 0"]),
    ("service slo text", {"slo": {"ttft": "fast"}}, [f"{SVC}.slo.ttft", "expected a duration"]),
    ("service slo a list", {"slo": ["ttft"]}, f"{SVC}.slo"),
    ("service batched tokens below max_num_seqs", {"engine": {"max_num_batched_tokens": 64, "max_num_seqs": 128}},
     [f"{SVC}.engine.max_num_batched_tokens", "max_num_batched_tokens is 64 and max_num_seqs 128",
      "expected max_num_batched_tokens >= max_num_seqs"]),
    ("service batched tokens below the default max_num_seqs", {"engine": {"max_num_batched_tokens": 64}},
     [f"{SVC}.engine.max_num_batched_tokens", "on pool a100 max_num_batched_tokens is 64 and max_num_seqs 256 (the default)"]),
    ("service max_num_seqs above the default batched tokens", {"engine": {"max_num_seqs": 4096}},
     [f"{SVC}.engine.max_num_seqs", "max_num_batched_tokens is 2048 (the default) and max_num_seqs 4096"]),
    ("service gpu_memory_utilization 0", {"engine": {"gpu_memory_utilization": 0}}, f"{SVC}.engine.gpu_memory_utilization"),
    ("service gpu_memory_utilization 1.5", {"engine": {"gpu_memory_utilization": 1.5}},
     f"{SVC}.engine.gpu_memory_utilization"),
    ("service engine unknown field", {"engine": {"block_size": 16}}, f"{SVC}.engine.block_size: unknown field"),
    ("service replica u", {"pod.u": 0.5}, [f"{SVC}.pod.u", "no u"]),
    ("service replica workers", {"pod.workers": 2}, [f"{SVC}.pod.workers", "one pod on one node"]),
    ("service replica deadline", {"pod.deadline": "1h"}, [f"{SVC}.pod.deadline", "no workers, multi_node or deadline"]),
    ("service replica kind training", {"pod.kind": "training"}, [f"{SVC}.pod.kind", "a replica is of kind inference"]),
    ("service replica checkpoint", {"pod.checkpoint": {"interval": "1h", "cost": "1m"}},
     [f"{SVC}.pod.checkpoint", "a replica saves nothing"]),
    ("service replica reference_gpu", {"pod.reference_gpu": "L4"}, [f"{SVC}.pod.reference_gpu", "no reference_gpu"]),
    ("service replica duration", {"pod.duration": "1h"}, f"{SVC}.pod.duration: unknown field"),
    ("service cold_start scalar", {"cold_start": "fast"}, [f"{SVC}.cold_start", "expected none or a map", "'fast'"]),
    ("service cold_start negative", {"cold_start": {"image_gb": -1}}, f"{SVC}.cold_start.image_gb"),
    ("service cold start past 100 years", {"cold_start": {"registry_gb_per_s": 1e-300}},
     [f"{SVC}.cold_start", "would take 1e+301 s to start", "expected at most 100 years"]),
    ("service router unknown", {"router": "random"}, [f"{SVC}.router", "round-robin"]),
    ("service unknown field", {"hpa": {}}, f"{SVC}.hpa: unknown field"),
    ("service count zero", {"count": 0}, f"{SVC}.count"),
    ("service count text", {"count": "many"}, [f"{SVC}.count", "expected an integer"]),
    ("service replica throughput_class", {"pod.throughput_class": "training"},
     [f"{SVC}.pod.throughput_class", "no throughput_class"]),
    ("service chunked prefill not a boolean", {"engine": {"enable_chunked_prefill": "sometimes"}},
     f"{SVC}.engine.enable_chunked_prefill"),
    ("service decode pool of a fixed model", {"model": "resnet-50", "decode": {"replicas": 1}},
     [f"{SVC}.decode", "model resnet-50 is of kind fixed", "expected no decode"]),
    ("service decode pool of no replicas", {"decode": {"replicas": 0}},
     [f"{SVC}.decode.replicas", "expected at least 1: only a keda autoscaler"]),
    ("service decode pool tensor parallel 3 of 14 heads", {"decode": {"tensor_parallel": 3}},
     [f"{SVC}.decode.tensor_parallel", "model qwen2-0.5b has 14 attention heads"]),
    ("service decode pool router unknown", {"decode": {"router": "random"}}, [f"{SVC}.decode.router", "round-robin"]),
    ("service decode pool unknown field", {"decode": {"slo": {"tpot": "10ms"}}}, f"{SVC}.decode.slo: unknown field"),
]:
    case(name, service(**fields), ["scenario.yaml", *([says] if isinstance(says, str) else says)])
# Autoscalers (docs/serving.md#autoscaling): Kubernetes' and KEDA's own checks, then gpusim's.
AS = f"{SVC}.autoscaler"
RUNNING = {"type": "Pods", "pods": {"metric": {"name": "vllm:num_requests_running"},
                                    "target": {"type": "AverageValue", "averageValue": "4"}}}
HPA = {"maxReplicas": 3, "metrics": [RUNNING]}
QUEUE_TRIGGER = {"type": "prometheus", "metadata": {"query": "sum(gpusim_service_queue_length)", "threshold": "10"}}


def hpa(**fields):
    doc = copy.deepcopy(HPA)
    for path, value in fields.items():
        edit(doc, path, value)
    return {"autoscaler": {"hpa": doc}}


def keda(**fields):
    doc = {"triggers": [copy.deepcopy(QUEUE_TRIGGER)]}
    for path, value in fields.items():
        edit(doc, path, value)
    return {"autoscaler": {"keda": doc}}


for name, fields, says in [
    ("service hpa min above max", hpa(minReplicas=4), [f"{AS}.hpa.maxReplicas", "expected at least minReplicas (4), got 3"]),
    ("service hpa min 0", hpa(minReplicas=0), [f"{AS}.hpa.minReplicas", "HPAScaleToZero", "use keda"]),
    ("service hpa max missing", hpa(maxReplicas=DELETE), [f"{AS}.hpa", "maxReplicas"]),
    ("service hpa no metrics", hpa(metrics=[]), [f"{AS}.hpa.metrics", "expected at least one metric"]),
    ("service hpa pods metric without averageValue", hpa(**{"metrics[0].pods.target": {"type": "AverageValue"}}),
     [f"{AS}.hpa.metrics[0].pods.target", "a Pods metric needs type AverageValue with a positive averageValue"]),
    ("service hpa pods metric with a Value target", hpa(**{"metrics[0].pods.target": {"type": "Value", "value": 4}}),
     [f"{AS}.hpa.metrics[0].pods.target", "a Pods metric needs type AverageValue"]),
    ("service hpa pods averageValue 0", hpa(**{"metrics[0].pods.target.averageValue": "0"}),
     [f"{AS}.hpa.metrics[0].pods.target.averageValue", "expected a positive quantity, got '0'"]),
    ("service hpa averageValue not a quantity", hpa(**{"metrics[0].pods.target.averageValue": "lots"}),
     [f"{AS}.hpa.metrics[0].pods.target.averageValue", "expected a Kubernetes quantity", "'lots'"]),
    ("service hpa utilization target", hpa(**{"metrics[0].pods.target": {"type": "Utilization", "averageUtilization": 70}}),
     [f"{AS}.hpa.metrics[0].pods.target.type", "no CPU or memory metric", "DCGM_FI_DEV_GPU_UTIL"]),
    ("service hpa resource metric", hpa(**{"metrics[0]": {"type": "Resource", "resource": {
        "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}}),
     [f"{AS}.hpa.metrics[0].type", "no CPU or memory metric", "Pods metric DCGM_FI_DEV_GPU_UTIL"]),
    ("service hpa metric type unknown", hpa(**{"metrics[0].type": "Custom"}),
     [f"{AS}.hpa.metrics[0].type", "expected Pods or External, got 'Custom'"]),
    ("service hpa target type unknown", hpa(**{"metrics[0].pods.target.type": "Average"}),
     [f"{AS}.hpa.metrics[0].pods.target.type", "expected Value or AverageValue, got 'Average'"]),
    ("service hpa unknown metric", hpa(**{"metrics[0].pods.metric.name": "gpu_utilization"}),
     [f"{AS}.hpa.metrics[0].pods.metric.name", "unknown metric 'gpu_utilization'", "DCGM_FI_DEV_GPU_UTIL",
      "gpusim_service_request_rate"]),
    ("service hpa pods metric of the service", hpa(**{"metrics[0].pods.metric.name": "gpusim_service_queue_length"}),
     [f"{AS}.hpa.metrics[0].pods.metric", "the service's series", "type External"]),
    ("service hpa selectPolicy unknown", hpa(behavior={"scaleUp": {"selectPolicy": "Fastest"}}),
     [f"{AS}.hpa.behavior.scaleUp.selectPolicy", "expected Max, Min or Disabled, got 'Fastest'"]),
    ("service hpa window above 3600", hpa(behavior={"scaleDown": {"stabilizationWindowSeconds": 3601}}),
     f"{AS}.hpa.behavior.scaleDown.stabilizationWindowSeconds"),
    ("service hpa window negative", hpa(behavior={"scaleUp": {"stabilizationWindowSeconds": -1}}),
     f"{AS}.hpa.behavior.scaleUp.stabilizationWindowSeconds"),
    ("service hpa period 0", hpa(behavior={"scaleUp": {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 0}]}}),
     f"{AS}.hpa.behavior.scaleUp.policies[0].periodSeconds"),
    ("service hpa period above 1800", hpa(behavior={"scaleDown": {"policies": [
        {"type": "Percent", "value": 10, "periodSeconds": 1801}]}}), f"{AS}.hpa.behavior.scaleDown.policies[0].periodSeconds"),
    ("service hpa no policies", hpa(behavior={"scaleDown": {"policies": []}}),
     [f"{AS}.hpa.behavior.scaleDown.policies", "expected at least one policy"]),
    ("service hpa policy type unknown", hpa(behavior={"scaleUp": {"policies": [{"type": "Nodes", "value": 1, "periodSeconds": 15}]}}),
     [f"{AS}.hpa.behavior.scaleUp.policies[0].type", "expected Pods or Percent"]),
    ("service autoscaler both", {"autoscaler": {"hpa": HPA, "keda": {"triggers": [QUEUE_TRIGGER]}}},
     [AS, "expected one of hpa or keda"]),
    ("service keda min above max", keda(minReplicaCount=5, maxReplicaCount=2),
     [f"{AS}.keda.maxReplicaCount", "expected at least minReplicaCount (5), got 2"]),
    ("service keda idle above 0", keda(minReplicaCount=2, idleReplicaCount=1),
     [f"{AS}.keda.idleReplicaCount", "expected 0 (the only value KEDA supports), got 1"]),
    ("service keda idle with min 0", keda(idleReplicaCount=0),
     [f"{AS}.keda.idleReplicaCount", "expected no idleReplicaCount with minReplicaCount 0"]),
    ("service autoscaler metrics delay", {"autoscaler": {"metrics_delay": "15s", "hpa": HPA}},
     [f"{AS}.metrics_delay", "expected less than the shortest sync or poll interval (15 s), got 15 s"]),
    ("service keda query not an aggregation", keda(**{"triggers[0].metadata.query": "rate(gpusim_requests_total[1m])"}),
     [f"{AS}.keda.triggers[0].metadata.query", "cannot read query", "sum(M), avg(M) or max(M)"]),
    ("service keda query aggregation", keda(**{"triggers[0].metadata.query": "min(gpusim_service_queue_length)"}),
     [f"{AS}.keda.triggers[0].metadata.query", "aggregates with min", "expected sum, avg or max"]),
    ("service keda query unknown metric", keda(**{"triggers[0].metadata.query": "avg(DCGM_FI_DEV_MEM_COPY_UTIL)"}),
     [f"{AS}.keda.triggers[0].metadata.query", "unknown metric 'DCGM_FI_DEV_MEM_COPY_UTIL'"]),
    ("service keda query of another service",
     keda(**{"triggers[0].metadata.query": 'sum(gpusim_service_queue_length{service="other"})'}),
     [f"{AS}.keda.triggers[0].metadata.query", "its own service's series", 'service="s"']),
    ("service keda threshold missing", keda(**{"triggers[0].metadata.threshold": DELETE}),
     [f"{AS}.keda.triggers[0].metadata", "threshold"]),
    ("service keda trigger type", keda(**{"triggers[0].type": "cpu"}),
     [f"{AS}.keda.triggers[0].type", "expected prometheus", "got 'cpu'"]),
    ("service keda never wakes from zero", keda(**{"triggers[0].metadata.query": "sum(vllm:num_requests_waiting)"}),
     [f"{AS}.keda.triggers", "could never scale from zero", "gpusim_service_queue_length"]),
    ("service keda fallback not modelled", keda(fallback={"failureThreshold": 3, "replicas": 2}),
     f"{AS}.keda.fallback: unknown field"),
    ("service replicas above the autoscaler's max", {"replicas": 5, **hpa()},
     [f"{SVC}.replicas", "expected a count within the autoscaler's 1 to 3, got 5"]),
    ("service replicas below the autoscaler's min", {"replicas": 1, **hpa(minReplicas=2)},
     [f"{SVC}.replicas", "expected a count within the autoscaler's 2 to 3, got 1"]),
    ("service replicas 0 under an hpa", {"replicas": 0, **hpa()}, [f"{SVC}.replicas", "within the autoscaler's 1 to 3, got 0"]),
    ("service gpu utilization on MIG", hpa(**{"metrics[0].pods.metric.name": "DCGM_FI_DEV_GPU_UTIL"}),
     [AS, "MIG instances (1g.10gb)", "no DCGM_FI_DEV_GPU_UTIL"]),
    ("service timeout zero", {"timeout": "0s"}, [f"{SVC}.timeout", "expected a positive duration"]),
    ("service autoscaled pods in a Kueue queue", {"pod.queue": "team-a", **hpa()},
     [f"{SVC}.pod.queue", "cannot wait in a Kueue queue", "expected no queue"]),
    ("service vllm gauge of a fixed model", {"model": "resnet-50", **hpa()},
     [AS, "model resnet-50 is of kind fixed", "no vllm:num_requests_running", "expected DCGM_FI_DEV_GPU_UTIL"]),
]:
    case(name, service(**fields), ["scenario.yaml", *([says] if isinstance(says, str) else says)])
for name, fields, says in [
    ("service tensor parallel on a time-sliced pool", {"cluster.pools[0]": A100_SLICED,
                                                       "workload.services[0].pod.resource": "nvidia.com/gpu",
                                                       "workload.services[0].tensor_parallel": 2},
     [f"{SVC}.tensor_parallel", "pool a100 shares its GPUs", "tensor_parallel: 1"]),
    ("service tensor parallel with a one-device claim", {
        "cluster.pools[0]": {"name": "a100", "node": "dgx-a100-80gb", "count": 1},
        "workload.services[0].pod": {"resource_claims": "big"}, "workload.services[0].tensor_parallel": 2,
        "tenancy": {"device_classes": [DRA_CLASS], "resource_claim_templates": [
            {"name": "big", "requests": [{"name": "d", "device_class": "gpu.nvidia.com"}]}]}},
     [f"{SVC}.tensor_parallel", "asks 1 device(s) per pod", "expected tensor_parallel: 1, got 2"]),
    ("service two of one name", {"workload.services[1]": SERVICE}, ["workload.services[1].name", "two services are named 's'"]),
    ("services with packing", {"workload.packing": {"until": 1.0}}, ["workload.services", "no services"]),
    ("services a map", {"workload.services": {"s": SERVICE}}, ["workload.services", "expected a list"]),
    ("service replicas zero", {"workload.services[0].replicas": 0}, [f"{SVC}.replicas", "only a keda autoscaler"]),
    ("service replicas 1e6", {"workload.services[0].replicas": 1000000}, f"{SVC}.replicas"),
    ("service replicas 2^64", {"workload.services[0].replicas": 18446744073709551616}, f"{SVC}.replicas"),
    ("service max_num_seqs 2^40", {"workload.services[0].engine": {"max_num_seqs": 2**40}}, f"{SVC}.engine.max_num_seqs"),
    ("models duplicate name", {"models": [MODEL, MODEL]}, ["models[1].name", "model 'm' is already defined"]),
    ("models name of a built-in", {"models": [dict(MODEL, name="qwen2-0.5b")]},
     ["models[0].name", "model 'qwen2-0.5b' is already defined"]),
    ("models kv_heads not dividing heads", {"models": [dict(MODEL, kv_heads=3)]},
     ["models[0].kv_heads", "expected a divisor of heads (4), got 3"]),
    ("models hidden not a multiple of heads", {"models": [dict(MODEL, hidden=66)]}, ["models[0].hidden", "head_dim"]),
    ("models layers missing", {"models": [{k: v for k, v in MODEL.items() if k != "layers"}]}, ["models[0]", "layers"]),
    ("models dtype_bytes zero", {"models": [dict(MODEL, dtype_bytes=0)]}, "models[0].dtype_bytes"),
    ("models dtype_bytes 1e-300", {"models": [dict(MODEL, dtype_bytes=1e-300)]}, "models[0].dtype_bytes"),
    ("models KV blocks past 32 bits", {"models": [dict(MODEL, layers=1, heads=1, hidden=1, head_dim=1, dtype_bytes=0.125)],
                                       "workload.services[0].model": "m"},
     [f"{SVC}.model", "KV blocks", "expected at most 2147483647"]),
    ("models params 2^64", {"models": [dict(MODEL, params=18446744073709551616)]}, "models[0].params"),
    ("models a map", {"models": {"m": MODEL}}, ["models", "expected a list"]),
    ("models fixed with an llm field", {"models": [dict(FIXED, layers=2)]},
     ["models[0].layers", "a model of kind fixed has no layers"]),
    ("models fixed without service_time", {"models": [{k: v for k, v in FIXED.items() if k != "service_time"}]},
     ["models[0]", "service_time"]),
    ("models fixed service_time zero", {"models": [dict(FIXED, service_time="0s")]},
     ["models[0].service_time", "expected a positive service time"]),
    ("models llm with a fixed field", {"models": [dict(MODEL, max_batch=8)]},
     ["models[0].max_batch", "a model of kind llm has no max_batch"]),
    ("models fixed reference_gpu unknown", {"models": [dict(FIXED, reference_gpu="Z100")]},
     ["models[0].reference_gpu", "GPU model 'Z100' is not in the catalog"]),
    ("service fixed model slo on ttft", {"workload.services[0].model": "resnet-50", "workload.services[0].slo": {"ttft_p90": "1s"}},
     [f"{SVC}.slo.ttft_p90", "model resnet-50 is of kind fixed", "expected an SLO on e2e or queue"]),
    ("service fixed model tensor parallel", {"cluster.pools[0]": {"name": "a100", "node": "dgx-a100-80gb", "count": 1},
                                             "workload.services[0].model": "resnet-50",
                                             "workload.services[0].pod.resource": "nvidia.com/gpu",
                                             "workload.services[0].tensor_parallel": 2},
     [f"{SVC}.tensor_parallel", "model resnet-50 is of kind fixed", "expected tensor_parallel 1"]),
    ("service fixed model does not fit", {"models": [dict(FIXED, params=8_000_000_000)], "workload.services[0].model": "f"},
     [f"{SVC}.model", "model f does not fit a replica on pool a100", "1g.10gb", "weights take 15259 MiB"]),
]:
    case(name, scenario(**{"horizon": "10m", "cluster.pools[0]": A100_MIG, "workload": {"services": [copy.deepcopy(SERVICE)]},
                           **fields}),
         ["scenario.yaml", *([says] if isinstance(says, str) else says)])

# Request streams: a trace replayed or a generator, and the trace files.
REQ = f"{SVC}.requests"
GEN = f"{REQ}.generator"
AZURE_HEAD = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
AZURE = AZURE_HEAD + "2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n"
TRACE = {"format": "azure-llm-2023", "file": "azure.csv"}
GENERATOR = SERVICE["requests"]["generator"]


def requests(requests_doc, files=None):
    """The base service scenario with these requests, and the files beside it."""
    return {"scenario.yaml": service(requests=requests_doc), **(files or {})}


for name, doc, says in [
    ("requests trace and generator", {"trace": TRACE, "generator": GENERATOR}, [REQ, "not both"]),
    ("requests neither trace nor generator", {"rate_multiplier": 2}, [REQ, "expected either trace"]),
    ("requests empty list", [], REQ),
    ("requests trace format unknown", {"trace": dict(TRACE, format="sharegpt")}, [f"{REQ}.trace.format", "mooncake"]),
    ("requests trace file missing", {"trace": dict(TRACE, file="nowhere.csv")}, [f"{REQ}.trace.file", "nowhere.csv"]),
    ("requests rate_multiplier zero", {"trace": TRACE, "rate_multiplier": 0}, f"{REQ}.rate_multiplier"),
    ("requests window past the trace", {"trace": TRACE, "window": {"start": "1h"}},
     [f"{REQ}.window", "no request of the trace falls in the window", "from 0 to 4.31"]),
    ("requests window duration zero", {"trace": TRACE, "window": {"duration": "0s"}}, [f"{REQ}.window.duration", "positive"]),
    ("requests limit zero", {"trace": TRACE, "limit": 0}, f"{REQ}.limit"),
    ("generator gamma without cv", {"generator": dict(GENERATOR, arrival="gamma")}, [GEN, "arrival: gamma needs cv"]),
    ("generator cv with poisson", {"generator": dict(GENERATOR, cv=2)}, [f"{GEN}.cv", "cv applies to arrival: gamma"]),
    ("generator arrival unknown", {"generator": dict(GENERATOR, arrival="weibull")}, [f"{GEN}.arrival", "poisson"]),
    ("generator rate with rate_curve", {"generator": dict(GENERATOR, rate_curve=[[0, 1]])},
     [f"{GEN}.rate", "rate or rate_curve, not both"]),
    ("generator neither rate nor rate_curve", {"generator": {k: v for k, v in GENERATOR.items() if k != "rate"}},
     [GEN, "expected rate"]),
    ("generator rate_curve not from 0", {"generator": dict({k: v for k, v in GENERATOR.items() if k != "rate"},
                                                          rate_curve=[[10, 1], [20, 2]])},
     [f"{GEN}.rate_curve", "the first point must be at 0 s, got 10"]),
    ("generator rate_curve not increasing", {"generator": dict({k: v for k, v in GENERATOR.items() if k != "rate"},
                                                              rate_curve=[[0, 1], [20, 2], [20, 3]])},
     [f"{GEN}.rate_curve", "increasing order"]),
    ("generator rate_curve zero throughout", {"generator": dict({k: v for k, v in GENERATOR.items() if k != "rate"},
                                                               rate_curve=[[0, 0], [20, 0]])},
     [f"{GEN}.rate_curve", "no request would arrive"]),
    ("generator rate_curve point of three", {"generator": dict({k: v for k, v in GENERATOR.items() if k != "rate"},
                                                              rate_curve=[[0, 1, 2]])},
     [f"{GEN}.rate_curve", "expected a point [seconds, requests per second]"]),
    ("generator period with a rate", {"generator": dict(GENERATOR, period="1h")}, [f"{GEN}.period", "a constant rate"]),
    ("generator without end", {"generator": {k: v for k, v in GENERATOR.items() if k != "duration"}},
     [GEN, "a generator's requests must end"]),
    ("generator output_tokens missing", {"generator": {k: v for k, v in GENERATOR.items() if k != "output_tokens"}},
     [GEN, "output_tokens is missing"]),
    ("generator prompt_tokens zero", {"generator": dict(GENERATOR, prompt_tokens=0)}, f"{GEN}.prompt_tokens"),
    ("generator uniform reversed", {"generator": dict(GENERATOR, output_tokens={"uniform": [10, 5]})},
     [f"{GEN}.output_tokens.uniform", "expected lo <= hi, got [10, 5]"]),
    ("generator uniform of three", {"generator": dict(GENERATOR, output_tokens={"uniform": [1, 5, 9]})},
     [f"{GEN}.output_tokens.uniform", "expected [lo, hi]"]),
    ("generator lognormal and uniform", {"generator": dict(GENERATOR, output_tokens={"uniform": [1, 5],
                                                                                     "lognormal": {"median": 5, "sigma": 1}})},
     [f"{GEN}.output_tokens", "expected a token count"]),
    ("generator tokens with prompt_tokens", {"generator": dict(GENERATOR, tokens={"trace": TRACE})},
     [f"{GEN}.prompt_tokens", "not both"]),
    ("generator duration zero", {"generator": dict(GENERATOR, duration="0s")}, [f"{GEN}.duration", "positive"]),
    ("generator rate 1e300", {"generator": dict(GENERATOR, rate=1e300)}, [f"{GEN}.rate", "expected at most 1e+06 requests per second"]),
    ("generator rate past the bound by rate_multiplier", {"generator": dict(GENERATOR, rate=2), "rate_multiplier": 1e6},
     [f"{GEN}.rate", "(rate_multiplier 1e+06 applied), got 2e+06"]),
    ("generator rate_curve point 1e308", {"generator": dict({k: v for k, v in GENERATOR.items() if k != "rate"},
                                                           rate_curve=[[0, 1e308]])}, f"{GEN}.rate_curve[0][1]"),
    ("generator gamma cv 1e-300", {"generator": dict(GENERATOR, arrival="gamma", cv=1e-300)}, f"{GEN}.cv"),
]:
    case(name, requests(doc, {"azure.csv": AZURE}), ["scenario.yaml", *([says] if isinstance(says, str) else says)])
for name, text, says in [
    ("azure rows out of order", AZURE_HEAD + "2023-11-16 18:15:50.9951690,396,109\n2023-11-16 18:15:46.6805900,374,44\n",
     ["line 3", "column 'TIMESTAMP'", "arrival order"]),
    ("azure ContextTokens negative", AZURE_HEAD + "2023-11-16 18:15:46.6805900,-374,44\n", ["line 2", "column 'ContextTokens'"]),
    ("azure GeneratedTokens 12.5", AZURE_HEAD + "2023-11-16 18:15:46.6805900,374,12.5\n", ["line 2", "column 'GeneratedTokens'"]),
    ("azure GeneratedTokens zero", AZURE_HEAD + "2023-11-16 18:15:46.6805900,374,0\n", ["line 2", "column 'GeneratedTokens'"]),
    ("azure timestamp malformed", AZURE_HEAD + "2023-11-16T18:15:46,374,44\n",
     ["line 2", "column 'TIMESTAMP'", "expected YYYY-MM-DD HH:MM:SS"]),
    ("azure column missing", "TIMESTAMP,ContextTokens\n2023-11-16 18:15:46.6805900,374\n",
     ["required column 'GeneratedTokens'"]),
    ("azure empty", "", "empty file"),
    ("azure header only", AZURE_HEAD, ["line 1", "a header and no rows"]),
    ("azure short row", AZURE_HEAD + "2023-11-16 18:15:46.6805900,374\n", ["line 2", "expected 3 columns"]),
]:
    case(name, requests({"trace": TRACE}, {"azure.csv": text}), ["azure.csv", *([says] if isinstance(says, str) else says)])
QPS_HEAD = "timestamp_anon,value,container_ip,request_type\n"
QPS = QPS_HEAD + "100.0,0.5,a1,Generative Requests\n157.0,0.09,,API Requests\n"
for name, text, request_type, says in [
    ("qps request_type absent", QPS, "Batch", ["request_type 'Batch'", "API Requests, Generative Requests"]),
    ("qps one time only", QPS, "Generative Requests", ["two times at least", "got 1"]),
    ("qps value negative", QPS_HEAD + "100.0,-1,a1,Generative Requests\n", "Generative Requests", ["line 2", "column 'value'"]),
    ("qps column missing", "timestamp_anon,value\n100.0,1\n", "Generative Requests", "required column 'request_type'"),
    ("qps not gzip data", b"\x1f\x8b\x08\x00garbage", "Generative Requests", "not valid gzip data"),
    ("qps bytes after the gzip data", gzip.compress(QPS.encode(), mtime=0) + b"PK\x03\x04", "Generative Requests",
     ["bytes after the end of the gzip data (at byte", "expected the end of the file or another gzip stream"]),
]:
    case(name, requests({"generator": {"rate_trace": {"file": "qps.csv", "request_type": request_type}, "prompt_tokens": 1,
                                       "output_tokens": 1}}, {"qps.csv": text}),
         ["qps.csv", *([says] if isinstance(says, str) else says)])
for name, text, says in [
    ("mooncake not JSON", "timestamp=0\n", ["line 1", "expected '{'"]),
    ("mooncake output_length missing", '{"timestamp": 0, "input_length": 10}\n', ["line 1", '"output_length"']),
    ("mooncake out of order", '{"timestamp": 10, "input_length": 1, "output_length": 1}\n'
                              '{"timestamp": 5, "input_length": 1, "output_length": 1}\n', ["line 2", "arrival order"]),
    ("mooncake input_length negative", '{"timestamp": 0, "input_length": -1, "output_length": 1}\n',
     ["line 1", '"input_length"']),
    ("mooncake empty", "\n", "no requests"),
]:
    case(name, requests({"trace": {"format": "mooncake", "file": "m.jsonl"}}, {"m.jsonl": text}),
         ["m.jsonl", *([says] if isinstance(says, str) else says)])


def main():
    binary = str(pathlib.Path(sys.argv[1]).resolve())
    seen = {}
    failures = []
    for name, files, args, code, says in CASES:
        key = hashlib.sha256(json.dumps([sorted((k, v if isinstance(v, str) else v.decode("latin-1"))
                                                for k, v in files.items()), args]).encode()).hexdigest()
        if key in seen:
            failures.append(f"{name}: the same input as {seen[key]!r}")
        seen[key] = name
        failures += run(binary, name, files, args, code, says)
    print(f"{len(CASES)} bad inputs, {len(seen)} distinct, {len(failures)} failures")
    for f in failures:
        print(f)
    return 1 if failures or len(CASES) < 150 else 0


if __name__ == "__main__":
    sys.exit(main())
