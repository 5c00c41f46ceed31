#!/bin/bash
# gpusim import k8s on the shipped examples (scenarios/k8s/): what it writes, what it ignores, and the
# figures of the runs it makes, worked out by hand below (README, "Kubernetes objects in").
source "$(dirname "$0")/cli_lib.sh"
K8S="$ROOT/scenarios/k8s"
figure() {  # figure NAME SUMMARY KEY VALUE
  local got
  got=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$2" "$3")
  if [ "$got" = "$4" ]; then ok "$1"; else echo "FAIL $1: $3 is $got, expected $4"; fail=1; fi
}

# Manifests: 4 Nodes (A100 MIG all-1g.10gb, T4 time-sliced x4 renamed, 2 x H100), the two
# ConfigMaps, 2 Deployments, a Job, a PyTorchJob; a PriorityClass and a ResourceQuota are ignored.
check "manifests import" 0 "$GPUSIM" import k8s "$K8S/manifests" --out "$TMP/manifests.yaml"
contains "ignored on stderr: PriorityClass" "$TMP/err" "ignored: PriorityClass research-high: kind not modelled"
contains "ignored on stderr: ResourceQuota" "$TMP/err" "ignored: ResourceQuota research/gpu-quota: kind not modelled"
contains "ignored on stderr: Job parallelism" "$TMP/err" "Job research/nightly-eval: parallelism 2 (all 4 completions queue at once)"
contains "ignored as comments" "$TMP/manifests.yaml" "#   PriorityClass research-high: kind not modelled"
contains "MIG pool from the mig-parted ConfigMap" "$TMP/manifests.yaml" \
  'mig: {strategy: mixed, config: "all-1g.10gb", mig-configs: {all-1g.10gb: [{devices: all, mig-enabled: true, mig-devices: {1g.10gb: 7}}]}}'
contains "time-slicing from the device plugin's ConfigMap" "$TMP/manifests.yaml" \
  'sharing: {timeSlicing: {renameByDefault: true, resources: [{name: nvidia.com/gpu, replicas: 4}]}}'
contains "H100 nodes by name" "$TMP/manifests.yaml" "node_names: [h100-1, h100-2]"
contains "PyTorchJob as a gang of 2 workers" "$TMP/manifests.yaml" '{name: "pytorchjob/research/bert-finetune", workers: 2, gpus: 8'
check "manifests import refuses to overwrite" 2 "$GPUSIM" import k8s "$K8S/manifests" --out "$TMP/manifests.yaml"
contains "names --out" "$TMP/err" "--out"
check "manifests run" 0 "$GPUSIM" run "$TMP/manifests.yaml" --out "$TMP/m"
# 14 jobs: 3 llm-serve + 6 jupyter replicas for the 24 h horizon, 4 evals (2 h, one H100 each), the
# PyTorchJob (2 x 8 H100s, 6 h). The evals take 4 GPUs of h100-1 at 0, so the gang waits for them
# until 2 h and ends at 8 h: 5 completed, 9 running at the end, makespan 8 h.
# Allocated GPU-hours: 3 x 1g.10gb (1/8 of a GPU) x 24 h = 9, 6 x 1/4 T4 x 24 h = 36,
# 4 x 2 h + 16 x 6 h = 104 on H100s: 149.
figure "manifests: jobs" "$TMP/m/summary.json" jobs_total 14
figure "manifests: completed" "$TMP/m/summary.json" jobs_completed 5
figure "manifests: running at end" "$TMP/m/summary.json" jobs_running_at_end 9
figure "manifests: makespan" "$TMP/m/summary.json" makespan_s 28800.0
figure "manifests: GPU-hours allocated" "$TMP/m/summary.json" gpu_hours_allocated 149.0
matches "manifests: the gang starts at 2 h" "$TMP/m/jobs.csv" '^[0-9]+,pytorchjob/research/bert-finetune,research,training,0,7200,28800,'

# Snapshot (kubectl get nodes,pods -A -o json) with the ConfigMaps: a CPU node, a finished pod and a
# pod without GPUs are ignored; three running pods start on their nodes, two pending ones queue.
check "snapshot import" 0 "$GPUSIM" import k8s "$K8S/snapshot.json" "$K8S/manifests/configmaps.yaml" --horizon 8h --out "$TMP/snapshot.yaml"
contains "snapshot ignores the CPU node" "$TMP/err" "ignored: Node cpu-0: no nvidia.com/gpu.product label (not a GPU node)"
contains "snapshot ignores finished pods" "$TMP/err" "ignored: Pod research/prep-zz81q: Succeeded (finished)"
contains "snapshot ignores pods without GPUs" "$TMP/err" "ignored: Pod kube-system/coredns-5d78c-qwert: asks no GPU"
contains "running pod bound to its node" "$TMP/snapshot.yaml" 'node: "gpu-h100-1"'
check "snapshot run" 0 "$GPUSIM" run "$TMP/snapshot.yaml" --out "$TMP/s"
# train-0 runs on gpu-h100-1 (first-fit alone would pick gpu-h100-0) from 0 to 3 h; eval-a takes
# gpu-h100-0 at 0 for 1 h and eval-b follows it (1 h to 2 h); the notebook runs 4 h on the T4; the
# serving pod runs to the 8 h horizon. 4 completed, 1 running, makespan 4 h.
# GPU-hours: 1/8 x 8 h + 1/4 x 4 h + 8 x 3 h + 8 x 1 h + 8 x 1 h = 42.
figure "snapshot: jobs" "$TMP/s/summary.json" jobs_total 5
figure "snapshot: completed" "$TMP/s/summary.json" jobs_completed 4
figure "snapshot: makespan" "$TMP/s/summary.json" makespan_s 14400.0
figure "snapshot: GPU-hours allocated" "$TMP/s/summary.json" gpu_hours_allocated 42.0
matches "snapshot: train-0 starts on gpu-h100-1" "$TMP/s/jobs.csv" '^1,pod/research/train-0-x2k4p,research,batch,0,0,10800,.*,gpu-h100-1:0\+1\+2\+3\+4\+5\+6\+7,'
matches "snapshot: eval-b waits for eval-a" "$TMP/s/jobs.csv" '^4,pod/research/eval-b-k3m2s,research,batch,0,3600,7200,.*,gpu-h100-0:'
matches "snapshot: the serving pod on its MIG slice" "$TMP/s/jobs.csv" '^0,pod/serving/llm-serve-7d9f-abcde,.*,running,.*,gpu-a100-0:0/1g.10gb@0,'
exit $fail
