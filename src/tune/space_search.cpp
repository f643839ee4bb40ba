#include "tune/space_search.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace graphcost {
namespace {

double uniform(std::mt19937_64& random) { return static_cast<double>(random() >> 11) * 0x1.0p-53; }

// The nearest available config to `values` (fewest parameters differing; ties at random), or -1.
int32_t nearest_available(const ParameterSpace& space, const std::vector<int32_t>& values, const std::vector<bool>& unavailable,
                          std::mt19937_64& random) {
  int32_t best = -1;
  size_t best_distance = SIZE_MAX, ties = 0;
  for (int32_t c = 0; c < static_cast<int32_t>(space.configs.size()); ++c) {
    if (unavailable[static_cast<size_t>(c)]) continue;
    const std::vector<int32_t>& other = space.configs[static_cast<size_t>(c)].value_index;
    size_t distance = 0;
    for (size_t p = 0; p < values.size() && distance <= best_distance; ++p) distance += other[p] != values[p] ? 1 : 0;
    if (distance < best_distance) {
      best = c, best_distance = distance, ties = 1;
    } else if (distance == best_distance && random() % ++ties == 0) {  // reservoir: each tie equally likely
      best = c;
    }
  }
  return best;
}

}  // namespace

std::vector<float> neighbourhood_costs(const ParameterSpace& space, const std::vector<Measurement>& measured,
                                       const std::vector<float>& costs) {
  std::vector<const Measurement*> best;
  for (const Measurement& m : measured) {
    if (m.ok()) best.push_back(&m);
  }
  std::stable_sort(best.begin(), best.end(), [](const Measurement* a, const Measurement* b) { return a->seconds < b->seconds; });
  if (best.size() > static_cast<size_t>(kSpaceIncumbents)) best.resize(static_cast<size_t>(kSpaceIncumbents));
  std::vector<float> near(costs.size(), INFINITY);
  for (size_t c = 0; c < costs.size(); ++c) {
    const std::vector<int32_t>& values = space.configs[c].value_index;
    for (const Measurement* m : best) {
      const std::vector<int32_t>& incumbent = space.configs[static_cast<size_t>(m->config)].value_index;
      int differing = 0;
      for (size_t p = 0; p < values.size() && differing <= kSpaceRadius; ++p) differing += values[p] != incumbent[p] ? 1 : 0;
      if (differing <= kSpaceRadius) {
        near[c] = costs[c];
        break;
      }
    }
  }
  return near;
}

std::vector<int32_t> genetic_children(const ParameterSpace& space, const std::vector<Measurement>& measured,
                                      const std::vector<bool>& unavailable, size_t size, std::mt19937_64& random) {
  std::vector<const Measurement*> population;
  for (const Measurement& m : measured) population.push_back(&m);
  if (population.size() < 2) return {};
  std::stable_sort(population.begin(), population.end(), [](const Measurement* a, const Measurement* b) {
    if (a->ok() != b->ok()) return a->ok();  // failed configs rank last
    return a->ok() && a->seconds < b->seconds;
  });
  const size_t parameters = space.parameters.size();
  const auto parent = [&]() -> const std::vector<int32_t>& {
    // Beta(1, 2.5) by its inverse CDF: 1 - (1 - u)^(1/2.5); the best configs drawn most often.
    const double draw = 1.0 - std::pow(1.0 - uniform(random), 1.0 / 2.5);
    const size_t rank = std::min(population.size() - 1, static_cast<size_t>(draw * static_cast<double>(population.size())));
    return space.configs[static_cast<size_t>(population[rank]->config)].value_index;
  };
  std::vector<bool> taken = unavailable;
  std::vector<int32_t> children;
  for (size_t attempt = 0; children.size() < size && attempt < 4 * size; ++attempt) {
    const std::vector<int32_t>& mother = parent();
    const std::vector<int32_t>& father = parent();
    const size_t cut = parameters > 1 ? 1 + random() % (parameters - 1) : 0;  // single-point crossover
    std::vector<int32_t> child(parameters);
    for (size_t p = 0; p < parameters; ++p) child[p] = p < cut ? mother[p] : father[p];
    for (size_t p = 0; p < parameters; ++p) {
      const size_t values = space.parameters[p].values.size();
      if (values > 1 && uniform(random) < 1.0 / static_cast<double>(parameters)) {
        child[p] = static_cast<int32_t>((static_cast<size_t>(child[p]) + 1 + random() % (values - 1)) % values);
      }
    }
    const int32_t config = nearest_available(space, child, taken, random);
    if (config < 0) break;  // every config measured
    taken[static_cast<size_t>(config)] = true;
    children.push_back(config);
  }
  return children;
}

}  // namespace graphcost
