// What `graphcost tune` tunes: a program and the configs it may measure (the candidates), read from
// a TpuGraphs .npz (its configs; its recorded runtimes, when it has them, are what the replay
// oracle reveals), tuning records (the same, labelled), or a module (HLO text or proto: config 0 its
// own layouts, then `candidates` random ones, as `graphcost import` draws them), or a kernel's
// parameter space (T4 results, a Kernel Tuner cache or a T1 definition: tune/space_target.h). A
// module target keeps the module, so a config can be written back into its text
// (hlo/hlo_layout_writer.h); a space target keeps the space (its parameters, outcomes, repeats).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/tpu_graph.h"
#include "hlo/hlo_module.h"
#include "spaces/parameter_space.h"

namespace graphcost {

struct TuningTarget {
  std::string path;
  TpuGraph graph;                                           // the candidates are its configs
  std::optional<HloModule> module;                          // module targets: the program, for writing configs into it
  std::vector<int32_t> computation_first;                   // module targets: hlo_graph.h's node offsets
  std::shared_ptr<const ParameterSpace> space;              // space targets: the space (the graph holds its values as config columns)
  std::vector<float> prior;                                 // space targets with a warm start: its cost of each config
  bool recorded() const { return !graph.runtimes_hidden; }  // runtimes the replay oracle can reveal
  // A short fingerprint of what the candidates are (node count, configs, a hash of the features
  // and configs): a journal written for one target is not resumed on another.
  std::string fingerprint;
};

// Reads `path` (InputError as the loaders). `candidates`: for module targets, how many random
// configs beside config 0 (seeded by `seed`); ignored for files that hold their configs.
// `warm_start`: for a space, another space of the same parameters whose measurements start the
// search (tune/space_target.h); InputError for other targets. `kernel`: for a module, the
// instruction of that name tuned as a module of its own (hlo/fusion_kernels.h, named_kernel: a dot
// or fusion of a module too large to run whole); InputError for other targets.
TuningTarget load_tuning_target(const std::string& path, int candidates, uint64_t seed, const std::string& warm_start = "",
                                const std::string& kernel = "");

// A graph already in memory (a generated file, one kernel of a TuningData) as a target.
TuningTarget tuning_target_from_graph(TpuGraph graph, const std::string& label);

// Config `config` described for a measuring script (docs/tuning.md): the config's index, and for a
// layout graph every configurable node with its name (when the file has names), opcode and the
// minor_to_major of its output, input and kernel (values as node_config_feat holds them: -1 is the
// compiler's choice); for a tile graph the 24 config_feat values (kernel, output and input bounds).
nlohmann::json describe_config(const TuningTarget& target, int32_t config);

}  // namespace graphcost
