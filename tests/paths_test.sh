#!/usr/bin/env bash
# Where trace files are found: beside the scenario first, then in the data directory (--data, else
# GPUSIM_DATA, else data/); a missing one names both places. And the traces data/ carries match the
# checksums scripts/fetch-traces.sh verifies.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

mkdir -p "$TMP/project" "$TMP/data"
printf 'arrival_s,duration_s,gpus\n0,3600,1\n60,7200,2\n' > "$TMP/project/trace.csv"
printf 'arrival_s,duration_s,gpus\n0,60,1\n' > "$TMP/data/trace.csv"
cat > "$TMP/project/s.yaml" <<'YAML'
name: beside
seed: 1
cluster: {pools: [{name: a, node: dgx-a100-80gb, count: 1}]}
workload: {traces: [{format: csv, path: trace.csv}]}
YAML

# Beside the scenario wins over the data directory, from any working directory.
(cd / && "$GPUSIM" run "$TMP/project/s.yaml" --data "$TMP/data" --json >"$TMP/out" 2>"$TMP/err")
grep -q '"jobs_completed": 2' "$TMP/out" && ok "trace beside the scenario" || bad "trace beside the scenario"

# Without one beside it, the data directory (--data, then GPUSIM_DATA).
mv "$TMP/project/trace.csv" "$TMP/project/elsewhere.csv"
"$GPUSIM" run "$TMP/project/s.yaml" --data "$TMP/data" --json >"$TMP/out" 2>"$TMP/err"
grep -q '"jobs_completed": 1' "$TMP/out" && ok "trace in --data" || bad "trace in --data"
GPUSIM_DATA="$TMP/data" "$GPUSIM" run "$TMP/project/s.yaml" --json >"$TMP/out" 2>"$TMP/err"
grep -q '"jobs_completed": 1' "$TMP/out" && ok "trace in GPUSIM_DATA" || bad "trace in GPUSIM_DATA"

# Neither: exit 2, naming both places looked in.
mkdir -p "$TMP/empty"
"$GPUSIM" run "$TMP/project/s.yaml" --data "$TMP/empty" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 2 ] && grep -qF "$TMP/project/trace.csv" "$TMP/err" && grep -qF "$TMP/empty/trace.csv" "$TMP/err" \
   && grep -qF "s.yaml:line 4" "$TMP/err"; then ok "missing trace names both places"; else bad "missing trace (exit $rc)"; fi

# The traces data/ carries are the public files, byte for byte (offline: nothing is downloaded).
bash "$ROOT/scripts/fetch-traces.sh" --verify "$ROOT/data" >"$TMP/out" 2>"$TMP/err" \
  && ok "data/ matches data/traces.sha256" || bad "data/ checksums"

# fetch-traces.sh without a network: a stand-in curl serves data/'s files by file name and garbage for
# the rest. Files that verify are kept; a download that does not is removed (and the exit is 1).
mkdir -p "$TMP/bin" "$TMP/fetched"
cat > "$TMP/bin/curl" <<SH
#!/usr/bin/env bash
while [ \$# -gt 1 ]; do [ "\$1" = -o ] && out="\$2"; shift; done
name=\$(basename "\$out" .part)
src=\$(find "$ROOT/data" -name "\$name" -type f | head -1)
if [ -n "\$src" ]; then cp "\$src" "\$out"; else echo garbage > "\$out"; fi
SH
chmod +x "$TMP/bin/curl"
PATH="$TMP/bin:$PATH" bash "$ROOT/scripts/fetch-traces.sh" "$TMP/fetched" >"$TMP/out" 2>"$TMP/err"
rc=$?
kept=$(find "$TMP/fetched" -type f | wc -l)
if [ $rc -eq 1 ] && [ "$kept" -eq 10 ] && grep -q "10 verified (67 downloaded)" "$TMP/err" \
   && [ ! -e "$TMP/fetched/alibaba-gpu-v2023-openb/openb_pod_list_cpu050.csv" ]; then
  ok "fetch-traces keeps verified downloads, removes the rest"
else bad "fetch-traces (exit $rc, $kept files kept)"; fi

exit $fail
