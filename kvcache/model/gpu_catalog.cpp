#include "kvcache/model/gpu_catalog.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>
#include <utility>

#include "kvcache/base/csv_cells.h"
#include "kvcache/base/error.h"
#include "kvcache/base/line_reader.h"
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
  // std::stod also reads hexadecimal ("0x10" is 16): a figure of the table is a decimal.
  if (text.find_first_of("xX") != std::string::npos)
    throw Error(path + ":" + std::to_string(line) + ": column " + column + ": '" + text + "' is not a non-negative number");
  // speed: from_chars first (the table's plain decimals; both parsers round correctly, so the value
  // is the same), std::stod for whatever else it accepts (leading blanks, '+'), then the same checks.
  double parsed = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (ec == std::errc() && end == text.data() + text.size() && parsed >= 0 && std::isfinite(parsed)) return parsed;
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && v >= 0 && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw Error(path + ":" + std::to_string(line) + ": column " + column + ": '" + text + "' is not a non-negative number");
}

// The compute capability of each generation a row may name (what vLLM checks a weight format against).
constexpr std::pair<const char*, int> kCapabilities[] = {
    {"volta", 70}, {"turing", 75}, {"ampere", 80}, {"ada", 89}, {"hopper", 90}, {"blackwell", 100},
    {"cdna3", 94}, {"cdna4", 95}};

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
  // kvsim's own CSV cells (kvcache/base/csv_cells.h) rather than a general CSV library: every
  // command reads this file, and the library's character-by-character parse of its long `source`
  // column was a third of `kvsim capacity`'s instructions.
  static constexpr const char* kColumns[] = {"id", "name", "aliases", "marketed_gb", "cuda_total_gib",
                                              "mem_bandwidth_TB_per_s", "bf16_dense_tflops", "fp8_dense_tflops",
                                              "int8_dense_tops", "fp16_dense_tflops", "sm_count", "interconnect"};
  enum Column : size_t { kId, kName, kAliases, kMarketed, kTotal, kBandwidth, kBf16, kFp8, kInt8, kFp16, kSms, kInterconnect };
  constexpr size_t kNumColumns = std::size(kColumns);
  GpuCatalog catalog;
  LineReader in(path, "GPU catalog CSV");
  std::string line;
  std::vector<std::string> header, cells;
  if (!in.Next(line)) throw Error(path + ": empty file (expected a CSV header)");
  if (!SplitCsvLine(line, header)) throw Error(path + ":1: the CSV header has an unterminated quote");
  size_t index[kNumColumns];
  // A column named twice would have one of its cells ignored without a word, and so would one kvsim
  // does not read: a misspelt optional column (pcie_gn) would leave its figure unknown.
  static constexpr const char* kOptional[] = {"pcie_gen", "host_link_GB_per_s", "generation", "fp4_dense_tflops",
                                               "nvlink_GB_per_s", "nvlink_domain_gpus", "nic_Gb_per_s"};
  static constexpr const char* kNotes[] = {"source", "fabric_source"};  // citations, read by people
  std::vector<std::string> known(std::begin(kColumns), std::end(kColumns));
  known.insert(known.end(), std::begin(kOptional), std::end(kOptional));
  known.insert(known.end(), std::begin(kNotes), std::end(kNotes));
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (!it->empty() && std::find(it + 1, header.end(), *it) != header.end())
      throw Error(path + ":1: column '" + PrintableExcerpt(*it) + "' appears twice in the header");
    if (std::find(known.begin(), known.end(), *it) == known.end()) {
      const std::vector<std::string> close = ClosestMatches(*it, known, 3);
      throw Error(path + ":1: column '" + PrintableExcerpt(*it) + "' is not one kvsim reads" +
                  (close.empty() ? std::string() : " (did you mean " + Join(close, ", ") + "?)"));
    }
  }
  for (size_t i = 0; i < kNumColumns; ++i) {
    const auto it = std::find(header.begin(), header.end(), kColumns[i]);
    if (it == header.end()) throw Error(path + ":1: missing column '" + kColumns[i] + "'");
    index[i] = static_cast<size_t>(it - header.begin());
  }
  // The host link columns are optional (a --gpu-file written before they existed).
  auto optional_column = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? header.size() : static_cast<size_t>(it - header.begin());
  };
  // A whole number in [0, hi] (PCIe generations, GPUs per NVLink domain): casting a larger double
  // to int is undefined.
  auto whole = [&](const std::string& text, unsigned row, const char* column, double hi, const char* what) {
    const double v = ParseNumber(text, path, row, column);
    if (v != std::floor(v) || v > hi)
      throw Error(path + ":" + std::to_string(row) + ": column " + column + ": '" + text + "' is not " + what);
    return static_cast<int>(v);
  };
  // A tensor peak or a link rate is bounded as the flags that override them are (--gpu-tflops; the memory
  // bandwidth's bound for a link): past it the step times and transfers it divides vanish.
  auto peak = [&](const std::string& text, unsigned row, const char* column) {
    const double v = ParseNumber(text, path, row, column);
    if (v > kMaxGpuTflops)
      throw Error(path + ":" + std::to_string(row) + ": column " + column + ": '" + text + "' is not a dense tensor peak (at most " +
                  Format("%g", kMaxGpuTflops) + ")");
    return v;
  };
  auto link = [&](const std::string& text, unsigned row, const char* column, double bytes_per_unit) {
    const double v = ParseNumber(text, path, row, column) * bytes_per_unit;
    if (v >= kMaxGpuBandwidthBytesPerS)
      throw Error(path + ":" + std::to_string(row) + ": column " + column + ": '" + text + "' is not a link rate (below " +
                  Format("%g", kMaxGpuBandwidthBytesPerS / 1e12) + " TB/s)");
    return v;
  };
  const size_t pcie_column = optional_column(kOptional[0]), host_link_column = optional_column(kOptional[1]);
  const size_t generation_column = optional_column("generation");
  const size_t fp4_column = optional_column("fp4_dense_tflops"), nvlink_column = optional_column("nvlink_GB_per_s"),
               domain_column = optional_column("nvlink_domain_gpus"), nic_column = optional_column("nic_Gb_per_s");
  while (in.Next(line)) {
    if (IsBlankLine(line)) continue;
    const unsigned row = static_cast<unsigned>(in.line_number());
    const std::string where = path + ":" + std::to_string(row);
    if (!SplitCsvLine(line, cells)) throw Error(where + ": unterminated quote");
    if (cells.size() != header.size())
      throw Error(where + ": " + std::to_string(cells.size()) + " cells, the header has " + std::to_string(header.size()));
    auto cell = [&](Column c) -> const std::string& { return cells[index[c]]; };
    GpuSpec g;
    g.id = cell(kId);
    g.name = cell(kName);
    const std::string& aliases = cell(kAliases);
    for (size_t from = 0; from <= aliases.size();) {
      const size_t to = std::min(aliases.find(';', from), aliases.size());
      if (to > from) g.aliases.push_back(aliases.substr(from, to - from));
      from = to + 1;
    }
    g.marketed_gb = ParseNumber(cell(kMarketed), path, row, "marketed_gb");
    g.cuda_total_gib = ParseNumber(cell(kTotal), path, row, "cuda_total_gib");
    if (cell(kTotal).empty()) throw Error(where + ": column cuda_total_gib: empty");
    // The bound --gpu-memory-gib has (the capacity planner's): past it every byte figure loses meaning.
    if (!(g.cuda_total_gib > 0 && g.cuda_total_gib < kMaxGpuMemoryGib))
      throw Error(where + ": column cuda_total_gib: '" + cell(kTotal) + "' is not a GPU's memory in GiB (above 0, below " +
                  Format("%g", kMaxGpuMemoryGib) + ")");
    g.mem_bandwidth_bytes_per_s = ParseNumber(cell(kBandwidth), path, row, "mem_bandwidth_TB_per_s") * 1e12;
    if (g.mem_bandwidth_bytes_per_s >= kMaxGpuBandwidthBytesPerS)
      throw Error(where + ": column mem_bandwidth_TB_per_s: '" + cell(kBandwidth) + "' is not a memory bandwidth (below " +
                  Format("%g", kMaxGpuBandwidthBytesPerS / 1e12) + " TB/s)");
    g.bf16_dense_tflops = peak(cell(kBf16), row, "bf16_dense_tflops");
    g.fp8_dense_tflops = peak(cell(kFp8), row, "fp8_dense_tflops");
    g.int8_dense_tops = peak(cell(kInt8), row, "int8_dense_tops");
    g.fp16_dense_tflops = peak(cell(kFp16), row, "fp16_dense_tflops");
    const std::string& sms = cell(kSms);
    g.sm_count = whole(sms, row, "sm_count", 100000, "a whole number of SMs");
    if (g.id.empty()) throw Error(where + ": column id: empty");
    for (const GpuSpec& earlier : catalog.gpus_)
      if (Normalize(earlier.id) == Normalize(g.id))
        throw Error(where + ": column id: '" + g.id + "' is already a row of this file; each GPU needs one row");
    g.interconnect = ParseEnum<Interconnect>(cell(kInterconnect), where + ": column interconnect");
    if (pcie_column < cells.size()) g.pcie_gen = whole(cells[pcie_column], row, "pcie_gen", 16, "a PCIe generation (0 to 16)");
    if (host_link_column < cells.size())
      g.host_link_bytes_per_s = link(cells[host_link_column], row, "host_link_GB_per_s", 1e9);
    if (generation_column < cells.size()) {
      g.generation = cells[generation_column];
      for (char ch : g.generation)
        if (!std::islower(static_cast<unsigned char>(ch)) && !std::isdigit(static_cast<unsigned char>(ch)))
          throw Error(where + ": column generation: '" + g.generation + "' is not a lower-case architecture name (hopper)");
      // An unknown name would give no compute capability, and every check of a weight format against the
      // GPU would pass without a word (fp8 on a "pascal" row).
      if (!g.generation.empty() && ComputeCapability(g) == 0) {
        std::vector<std::string> generations;
        for (const auto& [name, capability] : kCapabilities) generations.emplace_back(name);
        throw Error(where + ": column generation: '" + g.generation + "' is not a generation kvsim knows the compute "
                    "capability of (" + Join(generations, ", ") + "); leave it empty for a GPU of none of these");
      }
    }
    if (fp4_column < cells.size()) g.fp4_dense_tflops = peak(cells[fp4_column], row, "fp4_dense_tflops");
    if (nvlink_column < cells.size())
      g.nvlink_bytes_per_s = link(cells[nvlink_column], row, "nvlink_GB_per_s", 1e9);
    if (domain_column < cells.size()) {
      g.nvlink_domain_gpus = whole(cells[domain_column], row, "nvlink_domain_gpus", 100000, "a whole number of GPUs");
    }
    if (nic_column < cells.size()) g.nic_bytes_per_s = link(cells[nic_column], row, "nic_Gb_per_s", 1e9 / 8);
    catalog.gpus_.push_back(std::move(g));
  }
  return catalog;
}

void GpuCatalog::Prepend(const GpuCatalog& other) {
  std::vector<GpuSpec> merged = other.gpus_;
  merged.insert(merged.end(), gpus_.begin(), gpus_.end());
  gpus_ = std::move(merged);
}

int ComputeCapability(const GpuSpec& gpu) {
  for (const auto& [generation, capability] : kCapabilities)
    if (gpu.generation == generation) return capability;
  return 0;
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
