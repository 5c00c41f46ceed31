#!/usr/bin/env bash
# `gpusim catalog` and `gpusim topo` without a template: known values of the compiled-in catalog,
# JSON that parses, filters, and exit 2 naming the valid choices on a bad name. The MIG expansions
# printed are the ones docs/hardware.md documents.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
json_ok() {  # json_ok NAME FILE PYTHON-EXPRESSION-OF-d
  if /usr/bin/python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert $3" "$2"; then echo "ok   $1"
  else echo "FAIL $1: $3"; fail=1; fi
}

# Everything: the four sections, the HGX H100 template with its 8 GPUs, and where the values come from.
check catalog 0 "$GPUSIM" catalog
for section in "GPU models (" "Node templates (" "Prices (" "MIG ("; do contains "catalog-section $section" "$TMP/out" "$section"; done
matches catalog-hgx-h100 "$TMP/out" '^ +hgx-h100 +8 +H100-80GB-SXM +NV18 '
contains catalog-sources "$TMP/out" "docs/hardware.md"

check catalog-gpus 0 "$GPUSIM" catalog gpus
matches gpus-h100 "$TMP/out" '^ +H100-80GB-SXM +nvidia +H100-80GB, H100 +80 +132 SMs +989 +1979 +67 +3350 +700 +900 nvlink \(18\) '
# Other vendors (issue 46): AMD's compute units, xGMI and partition modes; Gaudi's TPCs and RoCE ports.
matches gpus-mi300x "$TMP/out" '^ +MI300X +amd +MI300X-192GB +192 +304 CUs +1307\.4 +2614\.9 +163\.4 +5300 +750 +896 xgmi \(7\) +Gen5 +- +SPX/DPX/QPX/CPX '
matches gpus-gaudi3 "$TMP/out" '^ +Gaudi3 +intel +HL-325L, Gaudi-3 +128 +64 TPCs +1835 +1835 '
matches gpus-mi300x-cpx "$TMP/out" '^ +MI300X +CPX +NPS4 +8 +38 +24 +amd\.com/cpx_nps4$'
lacks gpus-no-spx-nps4 "$TMP/out" 'spx_nps4'
lacks gpus-only "$TMP/out" "Node templates"
check catalog-nodes 0 "$GPUSIM" catalog nodes
matches nodes-hgx-h100 "$TMP/out" '^ +hgx-h100 +8 +H100-80GB-SXM +NV18 +2 +192 +2048 +8 x 400 Gb/s +55\.04 +18\.55$'
matches nodes-pcie-8x "$TMP/out" '^ +a100-80gb-pcie-8x +8 +A100-80GB-PCIe +PIX, PXB, NODE, SYS '
check catalog-prices 0 "$GPUSIM" catalog prices
matches prices-p5 "$TMP/out" '^ +hgx-h100 +8 x H100-80GB-SXM +55\.04 +6\.88 +40,179 +18\.55 +2\.319 +66%$'
contains prices-notice "$TMP/out" "aws 120 s"

# MIG: what all-balanced expands to on an H100, as docs/hardware.md says.
check catalog-mig-h100 0 "$GPUSIM" catalog mig --gpu H100-80GB-SXM
balanced="1 x 3g.40gb + 1 x 2g.20gb + 2 x 1g.10gb"
balanced_re='1 x 3g\.40gb \+ 1 x 2g\.20gb \+ 2 x 1g\.10gb'
matches mig-h100-balanced "$TMP/out" "^ +all-balanced +$balanced_re +2g\.20gb@0 1g\.10gb@2 1g\.10gb@3 3g\.40gb@4$"
matches mig-h100-all-1g "$TMP/out" '^ +all-1g\.10gb +7 x 1g\.10gb '
contains docs-h100-balanced "$ROOT/docs/hardware.md" "| A100-80GB, H100-80GB | $balanced |"
check catalog-mig-alias 0 "$GPUSIM" catalog mig --gpu H100
matches mig-alias-balanced "$TMP/out" "^ +all-balanced +$balanced_re "
check catalog-mig-a100-40 0 "$GPUSIM" catalog mig --gpu A100-40GB-SXM
matches mig-a100-40-1g10 "$TMP/out" '^ +all-1g\.10gb +4 x 1g\.10gb '
contains docs-a100-40-balanced "$ROOT/docs/hardware.md" "| A100-40GB | 1 x 3g.20gb + 1 x 2g.10gb + 2 x 1g.5gb |"

# Filters.
check catalog-filter 0 "$GPUSIM" catalog --filter h100
contains filter-h100 "$TMP/out" "H100-94GB"
contains filter-node "$TMP/out" "hgx-h100"
lacks filter-t4 "$TMP/out" "t4-8x"
check catalog-gpu 0 "$GPUSIM" catalog nodes --gpu A100-80GB-PCIe
contains gpu-node "$TMP/out" "a100-80gb-pcie-nvlink-4x"
lacks gpu-other "$TMP/out" "dgx-a100-80gb"

# JSON: parses, the same entries, every field.
check catalog-json 0 "$GPUSIM" catalog --json
json_ok json-hgx-h100 "$TMP/out" "[n['gpus'] for n in d['nodes'] if n['name'] == 'hgx-h100'] == [8]"
json_ok json-sections "$TMP/out" "list(d) == ['gpus', 'nodes', 'prices', 'mig']"
json_ok json-source "$TMP/out" "all('docs/hardware.md' in g['source'] or 'openb' in g['source'] or 'P100' in g['source'] for g in d['gpus'])"
check catalog-mig-json 0 "$GPUSIM" catalog mig --gpu H100-80GB-SXM --json
json_ok json-balanced "$TMP/out" "[c['counts'] for c in d['mig'][0]['configs'] if c['name'] == 'all-balanced'] == [{'1g.10gb': 2, '2g.20gb': 1, '3g.40gb': 1}]"

# Bad names: exit 2, naming the valid choices.
check catalog-unknown-gpu 2 "$GPUSIM" catalog mig --gpu H900
contains unknown-gpu-text "$TMP/err" "error: --gpu: unknown GPU model 'H900'; MIG-capable models: "
contains unknown-gpu-choices "$TMP/err" "H100-80GB-SXM"
check catalog-not-mig 2 "$GPUSIM" catalog mig --gpu T4
contains not-mig-text "$TMP/err" "T4 does not support MIG; MIG-capable models: A30-24GB"
check catalog-unknown-gpu-any 2 "$GPUSIM" catalog gpus --gpu nope
contains unknown-any-text "$TMP/err" "known: T4, "
check catalog-bad-view 2 "$GPUSIM" catalog gpu
contains bad-view-text "$TMP/err" "gpus,nodes,prices,mig,models"

# The served models services name (issue 39): both kinds, filtered, and as JSON with sources.
check catalog-models 0 "$GPUSIM" catalog models
matches models-llm "$TMP/out" '^  llama-3-8b +8\.0 +32 +32 +8 +128 +2 +16\.1 +128 +8,192$'
matches models-fixed "$TMP/out" '^  resnet-50 +0\.0 +0\.1 +2\.13 ms +A100-80GB-SXM +32 +0\.137$'
check catalog-models-filter 0 "$GPUSIM" catalog models --filter qwen2 --json
contains models-json "$TMP/out" '"name": "qwen2-7b"'
lacks models-filtered "$TMP/out" '"name": "llama-3-8b"'
# The throughput ratios (issue 39): measured, and the peak fallback in parentheses.
check catalog-ratios 0 "$GPUSIM" catalog gpus
matches ratios-h100 "$TMP/out" '^  H100-80GB-SXM .* seven-slice +2\.06 +2\.41$'
matches ratios-t4 "$TMP/out" '^  T4 .* \(0\.21\) +\(0\.16\)$'

# gpusim topo without a template lists the templates; with an unknown one it names them.
check topo-list 0 "$GPUSIM" topo
contains topo-list-hint "$TMP/out" "gpusim topo NAME"
matches topo-list-dgx "$TMP/out" '^ +dgx-a100-80gb +8 +A100-80GB-SXM +NV12 '
check topo-one 0 "$GPUSIM" topo dgx-a100-80gb
contains topo-one-matrix "$TMP/out" "NV12"
check topo-unknown 2 "$GPUSIM" topo nope
contains topo-unknown-text "$TMP/err" "known: dgx-a100-40gb"

exit $fail
