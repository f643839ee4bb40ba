#include "learners/learner_file.h"

#include "common/atomic_file.h"
#include "common/input_error.h"
#include "common/memory_limit.h"
#include "io/byte_source.h"
#include "learners/ridge_learner.h"
#include "learners/weighed_learner.h"
#include "learners/xgboost_learner.h"

namespace graphcost {

nlohmann::json learner_file_header(LearnerKind kind, const TpuGraph& graph) {
  return {{"graphcost_learner", 1},
          {"learner", name_of(learner_names(), kind)},
          {"kind", graph_kind_name(graph.kind)},
          {"nodes", graph.node_count},
          {"configurable", graph.kind == GraphKind::Layout ? graph.configurable_count() : 0}};
}

void write_learner_file(const std::string& path, const nlohmann::json& json, const std::vector<std::string>& inputs) {
  write_file_atomically(path, json.dump() + "\n", inputs);
}

bool is_learner_file(const std::string& path) {
  const ByteSource source = ByteSource::open_file(path);
  if (source.size() == 0) return false;
  return source.read(0, 1, "first byte").front() == '{';
}

std::unique_ptr<Learner> load_learner_file(const std::string& path, const TpuGraph& graph) {
  const ByteSource source = ByteSource::open_file(path);
  if (source.size() > input_memory_limit()) {
    throw InputError(path, "size", "at most the input memory limit (" + std::to_string(input_memory_limit()) + " bytes)",
                     std::to_string(source.size()));
  }
  const std::vector<uint8_t> bytes = source.read(0, static_cast<size_t>(source.size()), "learner file");
  const nlohmann::json json = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (json.is_discarded() || !json.is_object()) throw InputError(path, "contents", "a learner file (JSON object)", "not JSON");
  if (json.value("graphcost_learner", 0) != 1)
    throw InputError(path, "graphcost_learner", "1", json.value("graphcost_learner", nlohmann::json()).dump());
  const auto expect = [&](const char* field, const nlohmann::json& wanted) {
    if (json.value(field, nlohmann::json()) != wanted) {
      throw InputError(path, field, wanted.dump() + " (" + graph.source + ", the graph it is asked to rank)",
                       json.value(field, nlohmann::json()).dump());
    }
  };
  expect("kind", graph_kind_name(graph.kind));
  expect("nodes", graph.node_count);
  expect("configurable", graph.kind == GraphKind::Layout ? graph.configurable_count() : 0);
  const LearnerKind kind = value_named(learner_names(), json.value("learner", std::string()), path + ": learner");
  switch (kind) {
    case LearnerKind::Xgboost:
      return XgboostLearner::from_json(graph, json, path);
    case LearnerKind::Ridge: {
      if (!json.contains("ridge")) throw InputError(path, "ridge", "present", "missing");
      return std::make_unique<RidgeLearner>(graph, RidgeRanker::from_json(json.at("ridge"), path));
    }
    case LearnerKind::Blend:
    case LearnerKind::Weighed:
      return WeighedLearner::from_json(graph, json, path);
    case LearnerKind::Gnn:
    case LearnerKind::Auto:
    case LearnerKind::Python:
      break;
  }
  throw InputError(path, "learner", "xgboost, ridge, blend or weighed (a GNN is a model file; auto writes the learner it chose)",
                   name_of(learner_names(), kind));
}

}  // namespace graphcost
