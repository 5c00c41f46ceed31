#!/bin/bash
# gpusim import k8s on the shipped examples (scenarios/k8s/): what it writes, what it ignores, and the
# figures of the runs it makes, worked out by hand below (docs/guide/kubernetes.md).
source "$(dirname "$0")/cli_lib.sh"
K8S="$ROOT/scenarios/k8s"
figure() {  # figure NAME SUMMARY KEY VALUE
  local got
  got=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$2" "$3")
  if [ "$got" = "$4" ]; then ok "$1"; else echo "FAIL $1: $3 is $got, expected $4"; fail=1; fi
}

# Manifests: 4 Nodes (A100 MIG all-1g.10gb, T4 time-sliced x4 renamed and tainted for notebooks,
# 2 x H100), the two ConfigMaps, 2 Deployments, a Job, a PyTorchJob, and tenancy objects: a
# PriorityClass, research's quota of 16 nvidia.com/gpu, a PodDisruptionBudget, and Kueue's
# ResourceFlavor h100, ClusterQueue vision (8 GPUs) and LocalQueue vision-team with two 8-GPU Jobs.
check "manifests import" 0 "$GPUSIM" import k8s "$K8S/manifests" --out "$TMP/manifests.yaml"
lacks "tenancy objects are not ignored" "$TMP/err" "PriorityClass"
contains "ignored on stderr: Job parallelism" "$TMP/err" "Job research/nightly-eval: parallelism 2 (all 4 completions queue at once)"
contains "MIG pool from the mig-parted ConfigMap" "$TMP/manifests.yaml" \
  'mig: {strategy: mixed, config: "all-1g.10gb", mig-configs: {all-1g.10gb: [{devices: all, mig-enabled: true, mig-devices: {1g.10gb: 7}}]}}'
contains "time-slicing from the device plugin's ConfigMap" "$TMP/manifests.yaml" \
  'sharing: {timeSlicing: {renameByDefault: true, resources: [{name: nvidia.com/gpu, replicas: 4}]}}'
contains "H100 nodes by name" "$TMP/manifests.yaml" "node_names: [h100-1, h100-2]"
contains "the labels that chose a pool's nodes" "$TMP/manifests.yaml" \
  "node_names: [h100-1, h100-2]   # nodes labelled nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3, node.kubernetes.io/instance-type=p5.48xlarge"
contains "PyTorchJob as a gang of 2 workers" "$TMP/manifests.yaml" '{name: "pytorchjob/research/bert-finetune", workers: 2, gpus: 8'
contains "Node taint as the pool's" "$TMP/manifests.yaml" "taints: [{key: dedicated, value: notebooks, effect: NoSchedule}]"
contains "the instance type a flavor selects on as a pool label" "$TMP/manifests.yaml" "labels: {node.kubernetes.io/instance-type: p5.48xlarge}"
contains "nodeSelector and tolerations" "$TMP/manifests.yaml" \
  'labels: {app: jupyter}, node_selector: {node.kubernetes.io/instance-type: g4dn.metal}, tolerations: [{key: dedicated, operator: Equal, value: notebooks, effect: NoSchedule}]'
contains "priorityClassName" "$TMP/manifests.yaml" 'tenant: "research", priority_class: research-high}'
contains "queue label" "$TMP/manifests.yaml" 'tenant: "vision", queue: vision-team}'
contains "PriorityClass" "$TMP/manifests.yaml" "    - {name: research-high, value: 100000, description: Research evaluations go first}"
contains "PodDisruptionBudget" "$TMP/manifests.yaml" "    - {name: llm-serve, namespace: serving, selector: {match_labels: {app: llm-serve}}, min_available: 2}"
contains "ResourceQuota" "$TMP/manifests.yaml" "    - {name: gpu-quota, namespace: research, hard: {requests.nvidia.com/gpu: 16}}"
contains "ClusterQueue" "$TMP/manifests.yaml" \
  "      - {name: vision, queueing_strategy: BestEffortFIFO, resource_groups: [{covered_resources: [nvidia.com/gpu], flavors: [{name: h100, resources: [{name: nvidia.com/gpu, nominal_quota: 8}]}]}]}"
contains "LocalQueue" "$TMP/manifests.yaml" "      - {name: vision-team, namespace: vision, cluster_queue: vision}"
check "manifests import refuses to overwrite" 2 "$GPUSIM" import k8s "$K8S/manifests" --out "$TMP/manifests.yaml"
contains "names --out" "$TMP/err" "--out"
check "manifests run" 0 "$GPUSIM" run "$TMP/manifests.yaml" --out "$TMP/m"
# 16 jobs: 3 llm-serve + 6 jupyter replicas for the 24 h horizon, 4 evals (2 h, one H100 each), the
# PyTorchJob (2 x 8 H100s, 6 h), the vision team's two 8-GPU Jobs (3 h each). Research's quota of 16
# GPUs: the evals take 4 at 0 (the notebooks ask nvidia.com/gpu.shared, which it does not count), so
# the PyTorchJob's 16 would make 20: rejected. Kueue admits vit-sweep-a at 0 (8 of the ClusterQueue's
# 8 GPUs); vit-sweep-b waits for that quota until 3 h and ends at 6 h: 6 completed, 9 running at the
# end, 1 rejected, makespan 6 h. Allocated GPU-hours: 3 x 1g.10gb (1/8 of a GPU) x 24 h = 9,
# 6 x 1/4 T4 x 24 h = 36, 4 x 2 h + 2 x 8 x 3 h = 56 on H100s: 101.
figure "manifests: jobs" "$TMP/m/summary.json" jobs_total 16
figure "manifests: completed" "$TMP/m/summary.json" jobs_completed 6
figure "manifests: running at end" "$TMP/m/summary.json" jobs_running_at_end 9
figure "manifests: rejected by the quota" "$TMP/m/summary.json" jobs_rejected 1
figure "manifests: makespan" "$TMP/m/summary.json" makespan_s 21600.0
figure "manifests: GPU-hours allocated" "$TMP/m/summary.json" gpu_hours_allocated 101.0
matches "manifests: the PyTorchJob over research's quota" "$TMP/m/jobs.csv" '^13,pytorchjob/research/bert-finetune,research,training,0,,,.*,rejected,'
contains "manifests: the quota's reason" "$TMP/m/summary.json" '"reason": "exceeded quota: gpu-quota, requested: requests.nvidia.com/gpu"'
matches "manifests: the rejected job's reason in jobs.csv" "$TMP/m/jobs.csv" '^13,pytorchjob/research/bert-finetune,.*,exceeded quota: gpu-quota; requested: requests.nvidia.com/gpu$'
# The run table's job rows add up to its total: the rejected PyTorchJob has its own row and reason.
check "manifests run table" 0 "$GPUSIM" run "$TMP/manifests.yaml"
matches "manifests: jobs rejected row" "$TMP/out" '^  jobs rejected +1$'
contains "manifests: rejected jobs by reason" "$TMP/out" "         1 exceeded quota: gpu-quota, requested: requests.nvidia.com/gpu"
matches "manifests: vit-sweep-b waits 3 h for Kueue quota" "$TMP/m/jobs.csv" '^15,job/vision/vit-sweep-b,vision,batch,0,10800,21600,10800,'
matches "manifests: the notebooks on the tainted T4 node" "$TMP/m/jobs.csv" '^3,deployment/research/jupyter-0,.*,g4dn.metal-t4-timeslice-4,'
got=$(python3 -c "import json,sys; print([t['admission_wait_s']['max'] for t in json.load(open(sys.argv[1]))['tenants'] if t['name'] == 'vision'])" "$TMP/m/summary.json")
if [ "$got" = "[10800.0]" ]; then ok "manifests: vision's longest Kueue admission wait 3 h"; else echo "FAIL admission wait: $got"; fail=1; fi

# DRA claim templates and ResourceClaims, Cohorts, node affinity and a hostname nodeSelector on two
# L4 nodes (one tainted nvidia.com/gpu, in zone-a), and what gpusim cannot represent, reported with why:
# a ResourceClaim named by several pods (a Deployment's two replicas; two pods) shares its devices,
# which gpusim does not model, and a claim the controller made from a template for a pod.
mkdir -p "$TMP/dra"
cat >"$TMP/dra/objects.yaml" <<'YAML'
apiVersion: v1
kind: Node
metadata:
  name: l4-1
  labels: {nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "4", kubernetes.io/os: linux, topology.kubernetes.io/zone: zone-a}
spec:
  taints: [{key: nvidia.com/gpu, effect: NoSchedule, timeAdded: "2026-01-01T00:00:00Z"}]
---
apiVersion: v1
kind: Node
metadata:
  name: l4-2
  labels: {nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "4", topology.kubernetes.io/zone: zone-b}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  selectors: [{cel: {expression: device.driver == "gpu.nvidia.com"}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-gpus, namespace: infer}
spec:
  spec:
    devices:
      requests:
        - name: gpus
          exactly:
            deviceClassName: gpu.nvidia.com
            count: 2
            selectors: [{cel: {expression: 'device.capacity["gpu.nvidia.com"].memory >= quantity("20Gi")'}}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Cohort
metadata: {name: all}
spec: {parentName: root}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: any}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  cohort: all
  stopPolicy: Hold
  preemption: {withinClusterQueue: LowerPriority}
  fairSharing: {weight: "2"}
  resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors: [{name: any, resources: [{name: nvidia.com/gpu, nominalQuota: 4, borrowingLimit: 2}]}]
---
apiVersion: v1
kind: Pod
metadata: {name: dra-pod, namespace: infer}
spec:
  terminationGracePeriodSeconds: 60
  resourceClaims: [{name: gpus, resourceClaimTemplateName: two-gpus}]
  tolerations: [{operator: Exists}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpus}]}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: zonal, namespace: infer}
spec:
  replicas: 2
  template:
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule, tolerationSeconds: 30}]
      affinity:
        podAntiAffinity: {}
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {key: topology.kubernetes.io/zone, operator: In, values: [zone-a]}
                  - {key: kubernetes.io/hostname, operator: Exists}
      containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: pinned, namespace: infer}
spec:
  nodeSelector: {kubernetes.io/hostname: l4-2}
  containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one-l4, namespace: infer}
spec:
  devices:
    requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          selectors: [{cel: {expression: 'device.capacity["gpu.nvidia.com"].memory >= quantity("20Gi")'}}]
status: {reservedFor: [{resource: pods, name: by-name}]}
---
apiVersion: v1
kind: Pod
metadata: {name: by-name, namespace: infer}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: one-l4}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: infer}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: sharing, namespace: infer}
spec:
  replicas: 2
  template:
    spec:
      resourceClaims: [{name: gpu, resourceClaimName: shared}]
      containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: pair, namespace: infer}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]
---
apiVersion: v1
kind: Pod
metadata: {name: twin-a, namespace: infer}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: pair}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
---
apiVersion: v1
kind: Pod
metadata: {name: twin-b, namespace: infer}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: pair}]
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: dra-pod-gpus-x7k2p
  namespace: infer
  ownerReferences: [{apiVersion: v1, kind: Pod, name: dra-pod, controller: true}]
spec:
  devices:
    requests: [{name: gpus, exactly: {deviceClassName: gpu.nvidia.com, count: 2}}]
YAML
check "DRA and affinity import" 0 "$GPUSIM" import k8s "$TMP/dra" --out "$TMP/dra.yaml"
contains "replicas sharing a ResourceClaim reported" "$TMP/err" \
  "ignored: Deployment infer/sharing: its 2 pods name ResourceClaim shared (sharing a ResourceClaim's devices between pods is not modelled"
contains "pods sharing a ResourceClaim reported" "$TMP/err" \
  "ignored: Pod infer/twin-b: ResourceClaim pair is named by 2 pods (sharing a ResourceClaim's devices"
contains "a template's generated claim reported" "$TMP/err" \
  "ignored: ResourceClaim infer/dra-pod-gpus-x7k2p: made for Pod dra-pod from a ResourceClaimTemplate, which is read instead"
contains "unmodelled Kueue field reported" "$TMP/err" "ignored: ClusterQueue cq: spec.stopPolicy (not modelled)"
contains "tolerationSeconds reported" "$TMP/err" "spec.template.spec.tolerations[0].tolerationSeconds (gpusim's taints do not evict running pods)"
contains "hostname expression reported" "$TMP/err" "matchExpressions[1] on kubernetes.io/hostname (a per-node label; gpusim matches labels per pool)"
contains "podAntiAffinity reported" "$TMP/err" "spec.template.spec.affinity.podAntiAffinity (not modelled)"
contains "zone labels split the L4 nodes" "$TMP/dra.yaml" "labels: {topology.kubernetes.io/zone: zone-b}"
contains "DRA pod's claims and grace period" "$TMP/dra.yaml" \
  '{name: "pod/infer/dra-pod", gpus: 2, kind: batch, duration: "1h", arrival: "0", tenant: "infer", tolerations: [{operator: Exists}], termination_grace_period: 60s, resource_claims: [two-gpus]}'
contains "claim template" "$TMP/dra.yaml" 'requests: [{name: gpus, device_class: gpu.nvidia.com, count: 2, selectors: ["device.capacity[\"gpu.nvidia.com\"].memory >= quantity(\"20Gi\")"]}]'
contains "ResourceClaim" "$TMP/dra.yaml" \
  '- {name: one-l4, namespace: infer, requests: [{name: gpu, device_class: gpu.nvidia.com, selectors: ["device.capacity[\"gpu.nvidia.com\"].memory >= quantity(\"20Gi\")"]}]}'
contains "pod naming a ResourceClaim" "$TMP/dra.yaml" 'resource_claims: [{resource_claim_name: one-l4}]}'
contains "Cohort" "$TMP/dra.yaml" "- {name: all, parent: root}"
contains "ClusterQueue fields renamed" "$TMP/dra.yaml" "preemption: {within_cluster_queue: LowerPriority}, fair_sharing: {weight: 2}"
contains "hostname nodeSelector as node:" "$TMP/dra.yaml" 'node: "l4-2"}'
check "DRA and affinity run" 0 "$GPUSIM" run "$TMP/dra.yaml" --out "$TMP/d"
# The DRA pod takes 2 L4s, the zone-a replicas the other 2 of l4-1 (they tolerate its taint), the
# pinned pod l4-2; the pod naming ResourceClaim one-l4 (one L4, no toleration) l4-2 too, at 0 for 1 h.
matches "DRA pod on the tainted node it tolerates" "$TMP/d/jobs.csv" '^0,pod/infer/dra-pod,infer,batch,0,0,3600,.*,l4-4x,'
matches "zonal replicas in zone-a" "$TMP/d/jobs.csv" '^2,deployment/infer/zonal-1,infer,inference,0,0,,.*,l4-4x,'
matches "pinned pod on l4-2" "$TMP/d/jobs.csv" '^3,pod/infer/pinned,infer,batch,0,0,3600,.*,l4-4x-2,l4-2:'
matches "ResourceClaim pod on l4-2" "$TMP/d/jobs.csv" '^4,pod/infer/by-name,infer,batch,0,0,3600,.*,l4-4x-2,l4-2:'
figure "DRA run: jobs (twins and sharing replicas not written)" "$TMP/d/summary.json" jobs_total 5

# Snapshot (kubectl get nodes,pods -A -o json) with the ConfigMaps: a CPU node, a finished pod and a
# pod without GPUs are ignored; three running pods start on their nodes, two pending ones queue.
check "snapshot import" 0 "$GPUSIM" import k8s "$K8S/snapshot.json" "$K8S/manifests/configmaps.yaml" --horizon 8h --out "$TMP/snapshot.yaml"
contains "snapshot ignores the CPU node" "$TMP/err" "ignored: Node cpu-0: no nvidia.com/gpu.product, amd.com/gpu.product-name or habana.ai/device.type (or device.name) label (not a GPU node)"
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

# A deadline annotation (gpusim.io/deadline): two 8-GPU pods of 1 h on one 8-GPU node; the second, due
# 90 min after its arrival, waits for the first and ends at 2 h: missed by 30 min.
pod() {  # pod NAME [ANNOTATIONS]
  printf -- '---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: ml\n  annotations: {%s}\nspec:\n  containers:\n    - name: c\n      resources:\n        limits:\n          nvidia.com/gpu: 8\n' "$1" "$2"
}
{
  printf 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n    nvidia.com/gpu.count: "8"\n'
  pod first ""
  pod second "gpusim.io/deadline: 90m"
} > "$TMP/deadline-k8s.yaml"
check "deadline annotation import" 0 "$GPUSIM" import k8s "$TMP/deadline-k8s.yaml" --out "$TMP/deadline.yaml"
contains "deadline annotation as the job's deadline" "$TMP/deadline.yaml" 'deadline: "90m"'
check "deadline annotation run" 0 "$GPUSIM" run "$TMP/deadline.yaml" --out "$TMP/dl"
figure "deadline: met" "$TMP/dl/summary.json" deadlines_met 0
figure "deadline: missed" "$TMP/dl/summary.json" deadlines_missed 1
figure "deadline: lateness" "$TMP/dl/summary.json" lateness_max_s 1800.0
# Other vendors (issue 46): AMD's node labeller (its counter label gives the GPUs, its partition label
# the mode), Habana feature discovery, and GB200 trays of one NVLink clique as one domain.
mkdir -p "$TMP/vendors"
cat > "$TMP/vendors/nodes.yaml" <<'EOF'
apiVersion: v1
kind: Node
metadata:
  name: mi300x-a
  labels: {amd.com/gpu.product-name: AMD_Instinct_MI300X_OAM, beta.amd.com/gpu.product-name.AMD_Instinct_MI300X_OAM: "8", amd.com/gpu.compute-memory-partition: cpx_nps4}
---
apiVersion: v1
kind: Node
metadata:
  name: gaudi-a
  labels: {habana.ai/device.type: GAUDI3, habana.ai/device.count: "8"}
---
apiVersion: v1
kind: Node
metadata:
  name: gaudi-b
  labels: {habana.ai/device.name: gaudi3, habana.ai/device.count: "8"}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: amd-quota, namespace: default}
spec: {hard: {requests.amd.com/gpu: "8"}}
---
apiVersion: v1
kind: Node
metadata:
  name: tray-0
  labels: {nvidia.com/gpu.product: NVIDIA-GB200, nvidia.com/gpu.count: "4", nvidia.com/gpu.clique: 7b968a6d-c8aa-45e1-9e07-e1e51be99c31.1}
---
apiVersion: v1
kind: Node
metadata:
  name: tray-1
  labels: {nvidia.com/gpu.product: NVIDIA-GB200, nvidia.com/gpu.count: "4", nvidia.com/gpu.clique: 7b968a6d-c8aa-45e1-9e07-e1e51be99c31.1}
---
apiVersion: v1
kind: Pod
metadata: {name: gaudi-pod}
spec:
  containers: [{name: main, resources: {limits: {habana.ai/gaudi: 2}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: nvidia-pod}
spec:
  containers: [{name: main, resources: {limits: {nvidia.com/gpu: 4}}}]
EOF
check "vendors import" 0 "$GPUSIM" import k8s "$TMP/vendors" --out "$TMP/vendors.yaml"
contains "AMD partitions from the labeller" "$TMP/vendors.yaml" "partition: {computePartition: CPX, memoryPartition: NPS4}"
contains "Gaudi node by Habana's labels" "$TMP/vendors.yaml" "node: gaudi3-8x"
contains "Gaudi nodes by device.type or device.name, one pool" "$TMP/vendors.yaml" "node_names: [gaudi-a, gaudi-b]"
contains "an AMD quota" "$TMP/vendors.yaml" "hard: {requests.amd.com/gpu: 8}"
contains "a clique is one NVLink domain" "$TMP/vendors.yaml" "nvlink_domain_nodes: 2"
contains "a Gaudi pod" "$TMP/vendors.yaml" 'gpus: 2, resource: habana.ai/gaudi'
contains "nvidia.com/gpu stays NVIDIA's in a mixed fleet" "$TMP/vendors.yaml" 'gpus: 4, resource: nvidia.com/gpu'
check "vendors run" 0 "$GPUSIM" run "$TMP/vendors.yaml" --out "$TMP/vendors-run"
exit $fail
