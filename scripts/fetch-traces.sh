#!/usr/bin/env bash
# Fetches the public traces gpusim's scenarios can use (data/traces.sha256: the Alibaba openb pod and
# node lists, the Philly job table and machine list, the SkyPilot spot traces, the Azure LLM inference
# and Mooncake request traces) from their public sources at pinned commits into a data directory, and
# verifies every file's sha256. Needs a network and curl or wget; the tests never run it with a
# network (they run --verify on data/).
#
#   scripts/fetch-traces.sh [--verify] [DIR]
#
# DIR defaults to $GPUSIM_DATA, else data/ in this repo. Files already present are verified, not
# downloaded again. --verify downloads nothing: it checks the files present and lists the missing.
# Exit 0 when every present file verifies, 1 on a checksum mismatch or a failed download.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MANIFEST="$ROOT/data/traces.sha256"
verify_only=0
if [ "${1:-}" = "--verify" ]; then verify_only=1; shift; fi
DIR="${1:-${GPUSIM_DATA:-$ROOT/data}}"

download() {  # URL FILE
  if command -v curl >/dev/null; then curl -fsSL --retry 3 -o "$2" "$1"
  elif command -v wget >/dev/null; then wget -q -O "$2" "$1"
  else echo "fetch-traces: needs curl or wget (apt-get install curl)" >&2; return 1; fi
}

status=0 present=0 missing=0 fetched=0
while read -r sum path url; do
  case "$sum" in ''|'#'*) continue ;; esac
  file="$DIR/$path"
  just_fetched=0
  if [ ! -f "$file" ]; then
    if [ "$verify_only" = 1 ]; then missing=$((missing + 1)); continue; fi
    mkdir -p "$(dirname "$file")"
    if ! download "$url" "$file.part"; then
      echo "fetch-traces: could not download $url" >&2; rm -f "$file.part"; status=1; continue
    fi
    mv "$file.part" "$file"
    just_fetched=1
    fetched=$((fetched + 1))
  fi
  if [ "$(sha256sum "$file" | cut -d' ' -f1)" != "$sum" ]; then
    echo "fetch-traces: $file does not match its checksum (expected sha256 $sum, from $url)" >&2
    # A download that does not verify is removed, so the next run fetches it again instead of
    # "verifying" it; a file the user had is left for them to look at.
    if [ "$just_fetched" = 1 ]; then rm -f "$file"; fi
    status=1
  else
    present=$((present + 1))
  fi
done < "$MANIFEST"
echo "fetch-traces: $DIR: $present verified ($fetched downloaded), $missing not present" >&2
exit $status
