#include "kvcache/model/gpu_catalog.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <libfccp/csv.h>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"

namespace kvsim {
namespace {

std::string Normalize(std::string s) {
  if (auto paren = s.find('('); paren != std::string::npos && paren > 0) s = s.substr(0, paren);
  std::string out;
  for (unsigned char c : s)
    if (!std::isspace(c) && c != '-' && c != '_') out.push_back(static_cast<char>(std::tolower(c)));
  return out;
}

double ParseNumber(const std::string& text, const std::string& path, unsigned line, const char* column) {
  if (text.empty()) return 0.0;
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && v >= 0 && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw Error(path + ":" + std::to_string(line) + ": column " + column + ": '" + text + "' is not a non-negative number");
}

}  // namespace

Interconnect GuessInterconnect(const std::string& gpu_name) {
  const std::string n = Normalize(gpu_name);  // lower case, no spaces or dashes
  auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
  if (has("amd") || has("instinct") || has("mi2") || has("mi3")) return Interconnect::kXgmi;
  if (has("pcie") || has("geforce") || has("rtx")) return Interconnect::kPcie;
  if (has("nvl")) return Interconnect::kNvlink;  // H100 NVL: bridged pairs, no NVSwitch
  if (has("h100") || has("h200") || has("h800") || has("h20") || has("b200") || has("b300")) return Interconnect::kNvls;
  if (has("a100") || has("a800") || has("v100")) return Interconnect::kNvlink;
  return Interconnect::kPcie;  // L4, L40S, A10, T4 and the rest of the PCIe cards
}

GpuCatalog GpuCatalog::Load(const std::string& path) {
  GpuCatalog catalog;
  try {
    io::CSVReader<13, io::trim_chars<' '>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_extra_column, "id", "name", "aliases", "marketed_gb", "cuda_total_gib", "mem_bandwidth_TB_per_s",
                   "bf16_dense_tflops", "fp8_dense_tflops", "int8_dense_tops", "fp16_dense_tflops", "sm_count",
                   "interconnect", "source");
    std::string id, name, aliases, marketed, total, bw, bf16, fp8, int8, fp16, sms, interconnect, source;
    while (in.read_row(id, name, aliases, marketed, total, bw, bf16, fp8, int8, fp16, sms, interconnect, source)) {
      const unsigned line = in.get_file_line();
      GpuSpec g;
      g.id = id;
      g.name = name;
      // Split on ';' by hand: a stringstream per row cost more than the rest of the row's parsing.
      for (size_t from = 0; from <= aliases.size();) {
        const size_t to = std::min(aliases.find(';', from), aliases.size());
        if (to > from) g.aliases.push_back(aliases.substr(from, to - from));
        from = to + 1;
      }
      g.marketed_gb = ParseNumber(marketed, path, line, "marketed_gb");
      g.cuda_total_gib = ParseNumber(total, path, line, "cuda_total_gib");
      if (g.cuda_total_gib <= 0) throw Error(path + ":" + std::to_string(line) + ": column cuda_total_gib: empty");
      g.mem_bandwidth_bytes_per_s = ParseNumber(bw, path, line, "mem_bandwidth_TB_per_s") * 1e12;
      g.bf16_dense_tflops = ParseNumber(bf16, path, line, "bf16_dense_tflops");
      g.fp8_dense_tflops = ParseNumber(fp8, path, line, "fp8_dense_tflops");
      g.int8_dense_tops = ParseNumber(int8, path, line, "int8_dense_tops");
      g.fp16_dense_tflops = ParseNumber(fp16, path, line, "fp16_dense_tflops");
      const double sm = ParseNumber(sms, path, line, "sm_count");
      if (sm != static_cast<double>(static_cast<int>(sm)) || sm > 100000)
        throw Error(path + ":" + std::to_string(line) + ": column sm_count: '" + sms + "' is not a whole number of SMs");
      g.sm_count = static_cast<int>(sm);
      if (id.empty()) throw Error(path + ":" + std::to_string(line) + ": column id: empty");
      g.interconnect = ParseEnum<Interconnect>(interconnect, path + ":" + std::to_string(line) + ": column interconnect");
      catalog.gpus_.push_back(std::move(g));
    }
  } catch (const io::error::base& e) {
    throw Error(path + ": " + e.what());
  }
  return catalog;
}

void GpuCatalog::Prepend(const GpuCatalog& other) {
  std::vector<GpuSpec> merged = other.gpus_;
  merged.insert(merged.end(), gpus_.begin(), gpus_.end());
  gpus_ = std::move(merged);
}

double DensePeakFlops(const GpuSpec& gpu, NumericFormat format) {
  double tflops = 0;
  switch (format) {
    case NumericFormat::kBFloat16: tflops = gpu.bf16_dense_tflops > 0 ? gpu.bf16_dense_tflops : gpu.fp16_dense_tflops; break;
    case NumericFormat::kFloat16: tflops = gpu.fp16_dense_tflops > 0 ? gpu.fp16_dense_tflops : gpu.bf16_dense_tflops; break;
    case NumericFormat::kFp8: tflops = gpu.fp8_dense_tflops; break;
    case NumericFormat::kInt8: tflops = gpu.int8_dense_tops; break;
    case NumericFormat::kFloat32:
    case NumericFormat::kInt4: tflops = 0; break;
  }
  return tflops * 1e12;
}

const GpuSpec* GpuCatalog::TryFind(const std::string& query) const {
  const std::string q = Normalize(query);
  if (q.empty()) return nullptr;
  for (const GpuSpec& g : gpus_) {
    if (Normalize(g.id) == q || Normalize(g.name) == q) return &g;
    for (const auto& a : g.aliases)
      if (Normalize(a) == q) return &g;
  }
  // Device names carry suffixes a table cannot list ("NVIDIA H100 80GB", "... HBM3 (rev a1)"):
  // take the GPU whose full name or alias is the longest prefix of the query, if it is a full name.
  const GpuSpec* best = nullptr;
  size_t best_len = 0;
  for (const GpuSpec& g : gpus_) {
    std::vector<std::string> names = g.aliases;
    names.push_back(g.name);
    for (const auto& n : names) {
      const std::string k = Normalize(n);
      if (k.size() > best_len && k.size() >= 6 && q.rfind(k, 0) == 0) {
        best = &g;
        best_len = k.size();
      }
    }
  }
  return best;
}

const GpuSpec& GpuCatalog::Find(const std::string& query) const {
  if (const GpuSpec* g = TryFind(query)) return *g;
  if (Normalize(query).empty()) throw Error("--gpu: no GPU given (use an id from kvsim gpus, or --gpu-memory-gib)");
  std::vector<std::string> names;
  for (const GpuSpec& g : gpus_) {
    names.push_back(g.id);
    names.push_back(g.name);
  }
  std::string hint;
  for (const auto& m : ClosestMatches(query, names, 4)) hint += (hint.empty() ? "" : ", ") + m;
  throw Error("--gpu: '" + query + "' is not a known GPU; closest: " + hint +
              " (kvsim gpus lists them; --gpu-memory-gib sets the memory of any other GPU)");
}

}  // namespace kvsim
