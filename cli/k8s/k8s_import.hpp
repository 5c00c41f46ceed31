#pragma once
// `gpusim import k8s`: Kubernetes objects in, a scenario out. Reads what a platform team has
// (Nodes with the GPU feature discovery labels, Pods, Deployments, StatefulSets, Jobs, Kubeflow
// PyTorchJobs, the NVIDIA device plugin's and the MIG manager's ConfigMaps; PriorityClasses,
// PodDisruptionBudgets, ResourceQuotas, Kueue's objects, DRA DeviceClasses and ResourceClaimTemplates
// into a tenancy: block), or a cluster snapshot (`kubectl get nodes,pods -A -o json`), and writes a
// scenario that names the objects, with what it ignored as comments (docs/guide/kubernetes.md).
#include <string>
#include <vector>

#include "gpusim/core/time.hpp"
#include "gpusim/hardware/catalog.hpp"

namespace gpusim::cli {

struct K8sImportOptions {
  std::vector<std::string> paths;                    // files (multi-document YAML, JSON, `kind: List`) or directories
  std::string name = "k8s-import";                   // the scenario's name
  Duration duration = Duration::from_seconds(3600);  // a pod's run time without a gpusim.io/duration annotation
  Duration horizon = Duration::from_seconds(86400);  // the run's length when long-running replicas exist
};

struct K8sImport {
  std::string scenario_yaml;
  std::vector<std::string> ignored;  // "Kind namespace/name: why", in input order
};

// Throws InputError naming the file, the object and the field of what it cannot translate.
K8sImport import_k8s(const K8sImportOptions& options, const Catalog& catalog);

}  // namespace gpusim::cli
