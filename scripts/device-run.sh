#!/usr/bin/env bash
# Builds on the GPU machine and runs what is asked: `test` (GPU tests),
# `sanitize` (the GPU test under compute-sanitizer), `bench` (bench/gpu_search.sh), `alncost` (bench/alignment_cost.sh),
# `peers` (bench/peers_side_by_side.sh: CUDASW++4.0 side by side), `masa` (bench/masa_side_by_side.sh:
# MASA-CUDAlign 3.9.1 stage 1 side by side; MASA_LENGTHS, default 2000000), `serve` (bench/serve_latency.sh), `shared` (bench/serve_shared.sh: clients sharing the server's scans; ROUNDS, SCAN_QUERIES), `many` (bench/many_queries.sh), `sweep` (bench/gpu_threshold_sweep.sh), `cdp` (a second build with the
# device-side launcher: its GPU tests), `concurrency` (bench/gpu_concurrency.sh;
# needs `cdp` before it), `pairtest` (pairwise tests, GPU engine included),
# `pairbench` (bench/pair_gpu.sh), `pathgpu` (the alignment itself on the GPU: tests, memcheck, bench/pair_alignment.sh), `pairshape` (bench/pair_shape.sh: rows a lane side by side), `pairshapes` (bench/pair_shapes.sh), `pairtune` (bench/pair_tune.sh), `pairbest` (bench/pair_best.sh), `pairrepeat` (bench/pair_repeat.sh), `pathtune` (bench/pair_path_tune.sh), `pairmpi` (bench/pair_mpi.sh),
# `profiletest` (profile tests, GPU engine included, and its memcheck), `profilebench` (bench/profile_gpu.sh),
# `giants` (gpu_bench --qp-giants 1 against 0 on many short queries and on the 20),
# `mpisearch` (test_search_mpi and test_align_mpi, then bench/mpi_search.sh: ranks with a GPU each against
# one rank and against --gpus in one process; ROUNDS, SEQS, RANKS),
# `mpistart` (bench/mpi_start.sh: what mpirun itself costs),
# `team` (the tests of several slices and GPUs, test_gpu_team and test_gpu_report, and memcheck on
# slices of GPU 0), `multi` (bench/multi_gpu.sh: 1, 2 and 4 GPUs with CUDASW++4.0 from .peers;
# ROUNDS, SEQS, PEERS ("-": none), GPU_COUNTS, BASELINE), `streamed` (bench/streamed.sh: resident against
# --gpu-memory LIMIT, CUDASW++4.0 with --maxGpuMem beside; ROUNDS, SEQS, PEERS, LIMIT, GPUS), `start` (bench/gpu_start:
# the CUDA driver's start and teardown on this machine, twice, timed whole),
# `ab` (every tree in .ab/, made by scripts/ab-prepare.sh, built and timed against this one by bench/gpu_ab.sh;
# AB_ROUNDS, default 2; AB_ARGS: extra entries such as build-device@--columns,24).
# Logs go to $OUT when it is set. Usage: scripts/device-run.sh test bench ...
set -uo pipefail
. .deps/env.sh
out=${OUT:-/tmp}
build=build-device
cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build $build -j16 > "$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -60; exit 1; }
echo "build ok"
for step in "$@"; do
  case $step in
    test)
      (cd $build && ctest -L gpu -V) > "$out/gpu-test.log" 2>&1
      echo "gpu test rc=$?"; grep -E "FAIL|compared|best score|failure|Synthesis|GPU 0|Passed|Failed" "$out/gpu-test.log" ;;
    alltests)
      (cd $build && ctest --output-on-failure -j8) > "$out/all-tests.log" 2>&1
      echo "all tests rc=$?"; tail -15 "$out/all-tests.log" ;;
    sanitize)
      # racecheck instruments every shared-memory access: it gets the tiny set.
      # A mode picks a suite of the test (--quick: gpu_search_quick, --tiny:
      # gpu_search_tiny, none: gpu_search); Criterion runs each test in a
      # process of its own, which compute-sanitizer follows.
      for run in ${SANITIZE_RUNS:-memcheck:--quick racecheck:--tiny synccheck:--tiny initcheck:--tiny}; do
        tool=${run%%:*} mode=${run#*:}
        timeout ${SANITIZE_TIMEOUT:-280} compute-sanitizer --tool $tool --target-processes all --error-exitcode 9 \
          $build/tests/gpu/test_gpu_engine --jobs 1 --verbose --filter "gpu_search${mode:+_${mode#--}}/*" \
          > "$out/sanitize-$tool.log" 2>&1
        echo "compute-sanitizer $tool $mode rc=$?"; tail -6 "$out/sanitize-$tool.log"
      done ;;
    sweep)
      bash bench/gpu_threshold_sweep.sh $build ${SWEEP_DBS:-} > "$out/sweep.log" 2>&1
      echo "sweep rc=$?"; cat "$out/sweep.log" ;;
    cdp)
      cmake -S . -B $build-cdp -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSW_ENABLE_DEVICE_LAUNCH=ON > "$out/configure-cdp.log" 2>&1 &&
        cmake --build $build-cdp -j16 > "$out/build-cdp.log" 2>&1 || { grep -E "error" -A3 "$out/build-cdp.log" | head -60; exit 1; }
      (cd $build-cdp && ctest -L gpu -V) > "$out/gpu-test-cdp.log" 2>&1
      echo "gpu test (device-side launcher build) rc=$?"; grep -E "FAIL|device-side|failure|GPU scores|Passed|Failed" "$out/gpu-test-cdp.log" ;;
    concurrency)
      bash bench/gpu_concurrency.sh $build $build-cdp "$out" > "$out/concurrency.log" 2>&1
      echo "concurrency rc=$?"; cat "$out/concurrency.log" ;;
    pairtest)
      (cd $build && ctest -R "test_pair|test_align" --output-on-failure) > "$out/pair-test.log" 2>&1
      echo "pair tests rc=$?"; grep -E "FAIL|checks failed|tests passed|Failed|Passed" "$out/pair-test.log" | head -40 ;;
    profiletest)
      (cd $build && ctest -R "profile" --output-on-failure) > "$out/profile-test.log" 2>&1
      echo "profile tests rc=$?"; grep -E "FAIL|checks failed|tests passed|Failed|Passed|Synthesis" "$out/profile-test.log" | head -40
      timeout ${SANITIZE_TIMEOUT:-280} compute-sanitizer --tool memcheck --target-processes all --error-exitcode 9 \
        $build/tests/gpu/test_profile_gpu --jobs 1 > "$out/sanitize-profile.log" 2>&1
      echo "compute-sanitizer memcheck profile rc=$?"; tail -4 "$out/sanitize-profile.log" ;;
    profilebench)
      bash bench/profile_gpu.sh $build > "$out/profile-bench.log" 2>&1
      echo "profile bench rc=$?"; cat "$out/profile-bench.log" ;;
    giants)
      # The intra-task kernel's sequences across warps (--qp-giants 1)
      # against the default, on every 570th database sequence as queries
      # (1,004) and on the 20 queries, the Swiss-Prot-like database.
      work=$(mktemp -d)
      cc -O2 -o "$work/synthdb" bench/synthdb.c -lm
      "$work/synthdb" protein --plant bench/data/queries20.fasta > "$work/sp.fa"
      awk '/^>/ { keep = (n++ % 570 == 0) } keep' "$work/sp.fa" > "$work/many.fa"
      $build/tools/makedb/makedb -q "$work/sp.fa" "$work/sp" && rm "$work/sp.fa"
      for q in "$work/many.fa" bench/data/queries20.fasta; do
        for g in 0 1 0 1; do
          echo "$(basename $q) --qp-giants $g: $($build/bench/gpu_bench "$work/sp" "$q" --single 0 --repeat 1 --qp-giants $g | grep '^all')"
        done
      done
      rm -rf "$work" ;;
    pathgpu)
      $build/tests/gpu/test_pair_path_gpu --jobs 1 --verbose > "$out/path-test.log" 2>&1
      echo "path tests rc=$?"; grep -E "FAIL|PASS|Synthesis|Assertion" "$out/path-test.log" | head -40
      compute-sanitizer --tool memcheck --error-exitcode 9 $build/tests/gpu/test_pair_path_gpu --filter 'pair_path_gpu/runs*' > "$out/path-memcheck.log" 2>&1
      echo "path memcheck rc=$?"; tail -3 "$out/path-memcheck.log"
      TMPDIR=${TMPDIR:-/tmp} bash bench/pair_alignment.sh $build > "$out/pair-alignment.log" 2>&1
      echo "pair alignment rc=$?"; cat "$out/pair-alignment.log" ;;
    pairshape)
      TMPDIR=${TMPDIR:-/tmp} bash bench/pair_shape.sh $build > "$out/pair-shape.log" 2>&1
      echo "pair shape rc=$?"; cat "$out/pair-shape.log" ;;
    pairbench)
      bash bench/pair_gpu.sh $build > "$out/pair-bench.log" 2>&1
      echo "pair bench rc=$?"; cat "$out/pair-bench.log" ;;
    pairshapes)
      TMPDIR=${TMPDIR:-/tmp} bash bench/pair_shapes.sh $build > "$out/pair-shapes.log" 2>&1
      echo "pair shapes rc=$?"; cat "$out/pair-shapes.log"; cp /tmp/swsearch-pair-inputs/runs.jsonl "$out/" 2>/dev/null ;;
    pathtune)
      TMPDIR=${TMPDIR:-/tmp} bash bench/pair_path_tune.sh $build > "$out/pair-path-tune.log" 2>&1
      echo "path tune rc=$?"; cat "$out/pair-path-tune.log" ;;
    pairrepeat)
      # REPEAT_TREES: other source trees built and run beside this one.
      TMPDIR=${TMPDIR:-/tmp} bash bench/pair_repeat.sh $build ${REPEAT_TREES:-} > "$out/pair-repeat.log" 2>&1
      echo "pair repeat rc=$?"; cat "$out/pair-repeat.log" ;;
    pairbest)
      TMPDIR=${TMPDIR:-/tmp} bash bench/pair_best.sh $build > "$out/pair-best.log" 2>&1
      echo "pair best rc=$?"; cat "$out/pair-best.log" ;;
    pairmpi)
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TMPDIR=${TMPDIR:-/tmp} \
        bash bench/pair_mpi.sh $build ${MPI_NP:-2} > "$out/pair-mpi.log" 2>&1
      echo "pair mpi rc=$?"; cat "$out/pair-mpi.log" ;;
    pairtune)
      TMPDIR=${TMPDIR:-/tmp} bash bench/pair_tune.sh $build > "$out/pair-tune.log" 2>&1
      echo "pair tune rc=$?"; cat "$out/pair-tune.log" ;;
    alncost)
      bash bench/alignment_cost.sh $build gpu ${ROUNDS:-5} > "$out/alncost.log" 2>&1
      echo "alignment cost rc=$?"; cat "$out/alncost.log" ;;
    peers)
      # CUDASW++4.0 from .peers (see bench/peers_side_by_side.sh); its
      # binaries go to $out/peers-bin so a later run can bring them along.
      bash bench/peers_side_by_side.sh $build .peers ${ROUNDS:-3} > "$out/peers.log" 2>&1
      echo "peers rc=$?"; cat "$out/peers.log"
      mkdir -p "$out/peers-bin" && cp .peers/bin/* "$out/peers-bin/" 2>/dev/null ;;
    masa)
      # MASA-CUDAlign from .peers/masa (ported by bench/masa_port.py; built
      # there on first use), see bench/masa_side_by_side.sh.
      bash bench/masa_side_by_side.sh $build .peers/masa "${MASA_LENGTHS:-2000000}" > "$out/masa.log" 2>&1
      echo "masa rc=$?"; cat "$out/masa.log" ;;
    many)
      bash bench/many_queries.sh $build ${STEP:-57} > "$out/many.log" 2>&1
      echo "many rc=$?"; cat "$out/many.log" ;;
    serve)
      bash bench/serve_latency.sh $build ${RUNS:-20} > "$out/serve.log" 2>&1
      echo "serve rc=$?"; cat "$out/serve.log" ;;
    shared)
      bash bench/serve_shared.sh $build ${ROUNDS:-3} > "$out/shared.log" 2>&1
      echo "shared rc=$?"; cat "$out/shared.log" ;;
    ab)
      entries=()
      for tree in .ab/*/; do
        [ -d "$tree" ] || continue
        name=$(basename "$tree")
        cmake -S "$tree" -B "build-ab-$name" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
          > "$out/ab-$name-configure.log" 2>&1 &&
          cmake --build "build-ab-$name" -j16 --target gpu_bench makedb > "$out/ab-$name-build.log" 2>&1 ||
          { echo "ab: $name does not build"; tail -20 "$out/ab-$name-build.log"; continue; }
        entries+=("build-ab-$name")
      done
      bash bench/gpu_ab.sh ${AB_ROUNDS:-2} "${entries[@]}" $build ${AB_ARGS:-} > "$out/ab.log" 2>&1
      echo "ab rc=$?"; tail -12 "$out/ab.log" ;;
    team)
      (cd $build && ctest -R "test_gpu_team|test_gpu_report" -V) > "$out/team-test.log" 2>&1
      echo "team tests rc=$?"; grep -E "FAIL|Assertion|slices|GPUs|every GPU|Synthesis|Passed|Failed" "$out/team-test.log" | grep -v "bytes equal" | head -30
      grep -c "bytes equal" "$out/team-test.log"
      timeout ${SANITIZE_TIMEOUT:-280} compute-sanitizer --tool memcheck --target-processes all --error-exitcode 9 \
        $build/tests/gpu/test_gpu_team --jobs 1 --filter 'gpu_team/slices_equal_the_cpu' > "$out/sanitize-team.log" 2>&1
      echo "compute-sanitizer memcheck team rc=$?"; tail -4 "$out/sanitize-team.log" ;;
    mpisearch)
      (cd $build && ctest -R "test_search_mpi|test_align_mpi" --output-on-failure) > "$out/mpi-test.log" 2>&1
      echo "mpi tests rc=$?"; grep -E "FAIL|checks|skipped|Passed|Failed" "$out/mpi-test.log" | head -20
      bash bench/mpi_search.sh $build ${ROUNDS:-3} ${SEQS:-2288000} > "$out/mpisearch.log" 2>&1
      echo "mpi search rc=$?"; cat "$out/mpisearch.log" ;;
    mpistart)
      bash bench/mpi_start.sh $build ${ROUNDS:-5} > "$out/mpistart.log" 2>&1
      echo "mpi start rc=$?"; cat "$out/mpistart.log" ;;
    multi)
      bash bench/multi_gpu.sh $build ${ROUNDS:-3} ${SEQS:-2288000} ${PEERS:-.peers} > "$out/multi.log" 2>&1
      echo "multi rc=$?"; cat "$out/multi.log" ;;
    start)
      for i in 1 2; do /usr/bin/time -f "whole program %e s" $build/bench/gpu_start; done 2>&1 ;;
    streamed)
      bash bench/streamed.sh $build ${ROUNDS:-3} ${SEQS:-2288000} ${PEERS:-.peers} ${LIMIT:-} > "$out/streamed.log" 2>&1
      echo "streamed rc=$?"; cat "$out/streamed.log" ;;
    bench)
      bash bench/gpu_search.sh $build > "$out/bench.log" 2>&1
      echo "bench rc=$?"; cat "$out/bench.log" ;;
  esac
done
