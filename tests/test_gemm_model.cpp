// The GEMM model (simulator/gemm_model.h) against its formula on hand-worked shapes, and against the
// real TPU v5e timings it was fitted to (../shared/data/tpu-gemm), with held-out figures.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "simulator/gemm_model.h"
#include "simulator/hardware_profile.h"
#include "test_support.h"

using namespace graphcost;

namespace {

std::vector<Gemm> v5e_measurements() {
  std::ifstream in(testing::data_dir() + "/tpu-gemm/measurements_v5e.csv");
  std::string line;
  std::getline(in, line);  // sku,family,M,N,K,dtype,median_s,iqr_s,n_iters
  std::vector<Gemm> gemms;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string sku, family, m, n, k, dtype, median;
    std::getline(fields, sku, ','), std::getline(fields, family, ','), std::getline(fields, m, ','), std::getline(fields, n, ',');
    std::getline(fields, k, ','), std::getline(fields, dtype, ','), std::getline(fields, median, ',');
    gemms.push_back(
        {std::stoll(m), std::stoll(n), std::stoll(k), dtype == "int8" ? GemmType::Int8 : GemmType::BF16, family, std::stod(median)});
  }
  return gemms;
}

}  // namespace

TEST_CASE("gemm model: padding, residency and overlap as the formula says", "[gemm]") {
  HardwareModel h = hardware_profile("tpu-v5e");
  h.mxu_efficiency = h.hbm_efficiency = 1, h.overlap_share = 0, h.resident_read_speedup = 1, h.launch_seconds = 0;
  // 8192^3 bf16: compute bound, no padding
  const double compute = 2.0 * 8192 * 8192 * 8192 / 1.97e14;
  CHECK(gemm_seconds({8192, 8192, 8192, GemmType::BF16, "", 0}, h) == Approx(compute));
  // 129 rows pad to 136, K and N 129 to 256 (v5e's 128-wide MXU), 512-wide on v6e's 256
  const Gemm odd{129, 129, 129, GemmType::BF16, "", 0};
  h.hbm_bytes_per_second = 1e30;  // compute only
  CHECK(gemm_seconds(odd, h) == Approx(2.0 * 136 * 256 * 256 / 1.97e14));
  HardwareModel v6e = hardware_profile("tpu-v6e");
  v6e.mxu_efficiency = 1, v6e.hbm_bytes_per_second = 1e30, v6e.overlap_share = 0, v6e.launch_seconds = 0;
  CHECK(gemm_seconds(odd, v6e) == Approx(2.0 * 136 * 256 * 256 / 9.2e14));
  // a matrix-vector product streams its weights from HBM; with 8 rows they stay resident
  HardwareModel m = hardware_profile("tpu-v5e");
  m.launch_seconds = 0, m.overlap_share = 0, m.mxu_efficiency = 1, m.hbm_efficiency = 1, m.resident_read_speedup = 4;
  const double weights = 4096.0 * 4096 * 2;
  const double vector = gemm_seconds({1, 4096, 4096, GemmType::BF16, "", 0}, m),
               batch = gemm_seconds({8, 4096, 4096, GemmType::BF16, "", 0}, m);
  CHECK(vector > weights / 8.2e11);
  CHECK(batch < vector / 2);
}

TEST_CASE("gemm model: the tpu-v5e profile against the 450 real v5e timings", "[gemm][real]") {
  SKIP_WITHOUT_REAL_DATA();
  const std::vector<Gemm> gemms = v5e_measurements();
  REQUIRE(gemms.size() == 450);
  const GemmFit shipped = gemm_fit_quality(gemms, hardware_profile("tpu-v5e"));
  CHECK(shipped.median_error < 0.06);  // 4.8% with the fitted constants
  CHECK(shipped.p90_error < 0.15);     // 12.7%
  CHECK(shipped.kendall_tau > 0.9);    // 0.920
  // Fitted on four folds, scored on the fifth: what the fit does on rows it did not see.
  std::vector<double> errors;
  for (int fold = 0; fold < 5; ++fold) {
    std::vector<Gemm> train, test;
    for (size_t i = 0; i < gemms.size(); ++i) (static_cast<int>(i % 5) == fold ? test : train).push_back(gemms[i]);
    const HardwareModel fitted = fit_gemm_efficiencies(train, hardware_profile("tpu-v5e"));
    for (const Gemm& g : test) errors.push_back(std::fabs(gemm_seconds(g, fitted) / g.measured_s - 1));
  }
  std::sort(errors.begin(), errors.end());
  CHECK(errors[errors.size() / 2] < 0.08);
  CHECK(errors[errors.size() * 9 / 10] < 0.20);
  // The published constants alone (all efficiencies 1, no residency) do worse: the fit matters.
  HardwareModel nominal_efficiencies = hardware_profile("tpu-v5e");
  nominal_efficiencies.mxu_efficiency = nominal_efficiencies.hbm_efficiency = 1;
  nominal_efficiencies.overlap_share = 0, nominal_efficiencies.resident_read_speedup = 1;
  CHECK(gemm_fit_quality(gemms, nominal_efficiencies).median_error > shipped.median_error);
}
