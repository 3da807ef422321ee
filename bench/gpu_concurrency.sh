#!/usr/bin/env bash
# Concurrency of the GPU engine on the Swiss-Prot-like database and the 20
# queries: a timeline of every launch and copy (per-stream timing events)
# with the database resident and with it streamed in batches; kernels
# launched from the host over streams against a parent kernel on the GPU
# (dynamic parallelism); and the threshold forced to 1,000 against the
# calibrated one.
# Usage: bench/gpu_concurrency.sh BUILD_DIR DEVICE_LAUNCH_BUILD_DIR [OUT_DIR]
# DEVICE_LAUNCH_BUILD_DIR is configured with -DSW_ENABLE_DEVICE_LAUNCH=ON.
. "$(dirname "$0")/lib.sh"
cdp_build=$2
out=${3:-.}
database sp protein --plant "$queries"
bench="$build/bench/gpu_bench"
cdp_bench="$cdp_build/bench/gpu_bench"
repeat=${REPEAT:-3}

echo "== timeline, database resident (host streams)"
"$bench" "$work/sp" "$queries" --single 0 --repeat "$repeat" --timeline "$out/timeline-resident.tsv"
echo
echo "== timeline, database streamed in batches (150 MB of device memory)"
"$bench" "$work/sp" "$queries" --single 0 --repeat "$repeat" --device-mb 150 --timeline "$out/timeline-batches.tsv"
echo
echo "== relocatable device code, kernels launched from the host over streams"
"$cdp_bench" "$work/sp" "$queries" --single 0 --repeat "$repeat" --device-launch 0
echo
echo "== relocatable device code, kernels launched by a parent kernel (dynamic parallelism)"
"$cdp_bench" "$work/sp" "$queries" --single 0 --repeat "$repeat" --device-launch 1 --timeline "$out/timeline-device-launch.tsv"
echo
echo "== same, database streamed in batches (150 MB)"
"$cdp_bench" "$work/sp" "$queries" --single 0 --repeat "$repeat" --device-launch 1 --device-mb 150
echo
echo "== threshold forced to 1,000 against the calibrated one"
"$bench" "$work/sp" "$queries" --sweep 1000,0 --repeat "$repeat"
