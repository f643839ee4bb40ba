// `graphcost simulate --gemm FILE.csv`: single matrix multiplications priced by simulator/gemm_model.h,
// against their measured times when the file has them (docs/simulator.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/simulate_command.h"
#include "common/atomic_file.h"
#include "common/input_error.h"
#include "metrics/kendall_tau.h"
#include "simulator/gemm_model.h"
#include "simulator/hardware_profile.h"

namespace graphcost {
namespace {

struct GemmTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each row's own fields, as written
  std::vector<Gemm> gemms;
};

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  for (const char c : line) {
    if (c == ',') fields.emplace_back();
    else if (c != '\r') fields.back() += c;
  }
  return fields;
}

// A CSV of GEMMs: columns M, N, K and dtype (bf16 or int8) required, median_s (seconds) and family
// optional, others kept as they are. InputError names the line and the column.
GemmTable read_gemm_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable CSV file", "no such file");
  GemmTable table;
  std::string line;
  if (!std::getline(in, line)) throw InputError(path, "header", "M,N,K,dtype[,median_s][,family]...", "an empty file");
  table.header = split_csv_line(line);
  std::map<std::string, size_t> column;
  for (size_t c = 0; c < table.header.size(); ++c) column[table.header[c]] = c;
  for (const char* required : {"M", "N", "K", "dtype"}) {
    if (!column.count(required)) throw InputError(path, "header", std::string("a column ") + required, "none (" + excerpt(line) + ")");
  }
  int64_t line_number = 1;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> fields = split_csv_line(line);
    const std::string where = path + ":" + std::to_string(line_number);
    if (fields.size() != table.header.size()) {
      throw InputError(where, "fields", std::to_string(table.header.size()) + " (as the header)", std::to_string(fields.size()));
    }
    Gemm gemm;
    const auto whole = [&](const char* name, int64_t& value) {
      const std::string& text = fields[column[name]];
      size_t used = 0;
      try {
        value = std::stoll(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != text.size() || text.empty() || value < 1 || value > (int64_t{1} << 31)) {
        throw InputError(where, std::string("column ") + name, "a whole number in 1..2^31", excerpt(text));
      }
    };
    whole("M", gemm.m), whole("N", gemm.n), whole("K", gemm.k);
    const std::string& dtype = fields[column["dtype"]];
    if (dtype != "bf16" && dtype != "int8") throw InputError(where, "column dtype", "bf16 or int8", excerpt(dtype));
    gemm.type = dtype == "int8" ? GemmType::Int8 : GemmType::BF16;
    if (column.count("median_s")) {
      const std::string& text = fields[column["median_s"]];
      char* end = nullptr;
      gemm.measured_s = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !(gemm.measured_s > 0) || !std::isfinite(gemm.measured_s)) {
        throw InputError(where, "column median_s", "a positive number of seconds", excerpt(text));
      }
    }
    if (column.count("family")) gemm.family = fields[column["family"]];
    table.rows.push_back(std::move(fields));
    table.gemms.push_back(gemm);
  }
  if (table.gemms.empty()) throw InputError(path, "rows", "at least one GEMM", "none");
  return table;
}

void print_quality(const char* label, const GemmFit& fit, size_t rows) {
  std::printf("  %-34s %4zu rows: median |error| %5.1f%%, p90 %5.1f%%, Kendall tau-b %.3f\n", label, rows, 100 * fit.median_error,
              100 * fit.p90_error, fit.kendall_tau);
}

// Fits the efficiencies on all rows, then says how they hold on rows left out: five folds (every
// fifth row) and, when the file has families, each family left out in turn.
HardwareModel fit_and_report(const GemmTable& table, const HardwareModel& start) {
  const HardwareModel fitted = fit_gemm_efficiencies(table.gemms, start);
  std::printf("fitted on all %zu rows: mxu_efficiency %.4f, hbm_efficiency %.4f, overlap_share %.4f, resident_read_speedup %.4f\n",
              table.gemms.size(), fitted.mxu_efficiency, fitted.hbm_efficiency, fitted.overlap_share, fitted.resident_read_speedup);
  HardwareModel per_fold[5];
  for (int fold = 0; fold < 5; ++fold) {
    std::vector<Gemm> train;
    for (size_t i = 0; i < table.gemms.size(); ++i) {
      if (static_cast<int>(i % 5) != fold) train.push_back(table.gemms[i]);
    }
    per_fold[fold] = fit_gemm_efficiencies(train, start);
  }
  // Each row priced by the fit that did not see it.
  std::vector<double> errors, predicted, measured;
  for (size_t i = 0; i < table.gemms.size(); ++i) {
    const double p = gemm_seconds(table.gemms[i], per_fold[i % 5]);
    errors.push_back(std::fabs(p / table.gemms[i].measured_s - 1));
    predicted.push_back(p);
    measured.push_back(table.gemms[i].measured_s);
  }
  std::sort(errors.begin(), errors.end());
  std::printf("  %-34s %4zu rows: median |error| %5.1f%%, p90 %5.1f%%, Kendall tau-b %.3f\n", "5-fold held-out (every fifth row)",
              errors.size(), 100 * errors[errors.size() / 2], 100 * errors[std::min(errors.size() - 1, errors.size() * 9 / 10)],
              kendall_tau_b(predicted.data(), measured.data(), predicted.size()));
  std::map<std::string, std::vector<Gemm>> families;
  for (const Gemm& g : table.gemms) {
    if (!g.family.empty()) families[g.family].push_back(g);
  }
  if (families.size() > 1) {
    for (const auto& [family, held_out] : families) {
      std::vector<Gemm> train;
      for (const Gemm& g : table.gemms) {
        if (g.family != family) train.push_back(g);
      }
      print_quality(("family " + family + " left out").c_str(), gemm_fit_quality(held_out, fit_gemm_efficiencies(train, start)),
                    held_out.size());
    }
  }
  return fitted;
}

}  // namespace

int run_simulate_gemm(const SimulateCommandOptions& options) {
  if (!options.out.empty()) check_output_path(options.out, {options.gemm});
  const GemmTable table = read_gemm_csv(options.gemm);
  HardwareModel hardware = hardware_profile(options.hardware);
  if (hardware.mxu_dim <= 0) {
    throw InputError(options.hardware, "mxu_dim", "a profile with the matrix unit's size (tpu-v5e, tpu-v6e, or a JSON file setting it)",
                     "0 (the nominal model prices no GEMM padding)");
  }
  std::printf("%s: %zu GEMMs priced with --hardware %s\n", printable(options.gemm).c_str(), table.gemms.size(),
              printable(options.hardware).c_str());
  if (options.fit) hardware = fit_and_report(table, hardware);
  const bool measured = table.gemms.front().measured_s > 0;
  if (measured) {
    print_quality("against the measured medians", gemm_fit_quality(table.gemms, hardware), table.gemms.size());
    std::map<std::string, std::vector<Gemm>> families;
    for (const Gemm& g : table.gemms) families[g.family].push_back(g);
    if (families.size() > 1) {
      for (const auto& [family, gemms] : families)
        print_quality(("family " + family).c_str(), gemm_fit_quality(gemms, hardware), gemms.size());
    }
  }
  if (options.json)
    std::cout << nlohmann::json({{"hardware", options.hardware}, {"constants", hardware_profile_json(hardware)}}).dump(2) << "\n";
  if (!options.out.empty()) {
    std::ostringstream csv;
    csv.precision(9);
    for (size_t c = 0; c < table.header.size(); ++c) csv << table.header[c] << ',';
    csv << "predicted_s\n";
    for (size_t r = 0; r < table.rows.size(); ++r) {
      for (const std::string& field : table.rows[r]) csv << field << ',';
      csv << gemm_seconds(table.gemms[r], hardware) << '\n';
    }
    write_file_atomically(options.out, csv.str(), {options.gemm});
    std::printf("wrote %s\n", printable(options.out).c_str());
  }
  return 0;
}

}  // namespace graphcost
