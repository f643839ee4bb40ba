#!/usr/bin/env bash
# Runs libFuzzer targets for a number of seconds each (not part of the default test run).
# Usage: scripts/fuzz.sh [TARGET=all|fuzz_npz_reader|fuzz_submission_parser|fuzz_model_loader|fuzz_hlo_import|fuzz_hlo_proto|fuzz_parameter_space] [SECONDS=60]
# "all" (the default) runs every target in turn, SECONDS each, and stops at the first failure.
# The corpus lives in build/fuzz/corpus/TARGET, seeded with the small shared TpuGraphs files
# (npz reader), small valid and broken submissions (submission parser) or the shipped models
# (model loader).
# Crashes are written to build/fuzz/crashes/. Allocations over 100 MB count as failures.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-all}
seconds=${2:-60}
if [ "$target" = all ]; then
  for each in fuzz_npz_reader fuzz_submission_parser fuzz_model_loader fuzz_hlo_import fuzz_hlo_proto fuzz_parameter_space; do
    echo "=== $each, $seconds s ==="
    bash "$0" "$each" "$seconds"
  done
  exit 0
fi
data=${GRAPHCOST_DATA:-$(cd .. && pwd)/shared/data}
bash scripts/setup.sh >/dev/null
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target "$target"
corpus=build/fuzz/corpus/$target
mkdir -p "$corpus" build/fuzz/crashes
if [ -z "$(ls -A "$corpus")" ]; then
  case "$target" in
    fuzz_npz_reader)
      [ -d "$data/tpugraphs" ] && find "$data/tpugraphs" -name '*.npz' -size -64k -exec cp {} "$corpus/" \; ;;
    fuzz_submission_parser)
      printf 'ID,TopConfigs\ntile:xla:a,3;1;0;2;4\nlayout:xla:default:b,5;4;3;2;1;0\nlayout:nlp:random:c,0;1;2\n' >"$corpus/valid.csv"
      printf '\xef\xbb\xbfID,TopConfigs\r\n"tile:xla:a","1"\r\nlayout:nlp:random:c,2;1\r\n' >"$corpus/broken.csv" ;;
    fuzz_model_loader)
      cp models/*.npz "$corpus/" ;;
    fuzz_hlo_import)  # the small real modules (the large ones slow each run down)
      [ -d "$data/hlo" ] && find "$data/hlo" -name '*.hlo' -size -40k -exec cp {} "$corpus/" \; ;;
    fuzz_hlo_proto)  # XLA's binary test module and the raw tile records (the layout record is 620 KB)
      [ -d "$data/hlo" ] && cp "$data/hlo/hlo_opt_hlo_protobinary.pb" "$corpus/"
      [ -d "$data/tpugraphs-raw" ] && cp "$data/tpugraphs-raw/op_tuning_data.pb" "$corpus/" ;;
    fuzz_parameter_space)  # the T1 definition, a few results of a T4 file, and a small Kernel Tuner cache
      [ -d "$data/kernel-tuner" ] && cp "$data/kernel-tuner/convolution/convolution_milo.json" "$corpus/"
      [ -d "$data/kernel-tuner" ] && /usr/bin/python3 -c "
import gzip, json, sys
root = json.load(gzip.open(sys.argv[1], 'rt')); root['results'] = root['results'][:12]
json.dump(root, open(sys.argv[2], 'w'))" "$data/kernel-tuner/convolution/A100_T4.json.gz" "$corpus/a100_12.json"
      printf '{"tune_params_keys": ["x", "y"], "tune_params": {"x": [1, 2], "y": [3]}, "cache": {\n"1,3": {"time": 1.5, "times": [1.5]},\n"2,3": {"time": "RuntimeFailedConfig"},\n' >"$corpus/open_cache.json" ;;
  esac
fi
"build/fuzz/tests/fuzz/$target" "$corpus" -max_total_time="$seconds" -malloc_limit_mb=100 \
  -rss_limit_mb=2048 -timeout=10 -artifact_prefix=build/fuzz/crashes/ -print_final_stats=1
