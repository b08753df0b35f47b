#include "cli/offload_flags.h"

#include <cmath>
#include <sstream>
#include <vector>

#include "kvcache/base/error.h"
#include "kvcache/base/json_file.h"
#include "kvcache/base/quantity_parse.h"
#include "kvcache/base/text_format.h"
#include "kvcache/base/units.h"

namespace kvsim {
namespace po = boost::program_options;

void AddOffloadOptions(po::options_description& desc, OffloadFlags& f) {
  desc.add_options()
      ("kv-offload", po::value(&f.tiers),
       "KV tiers below the GPU, per replica (summed over its GPUs): cpu=SIZE[,disk=SIZE] (e.g. cpu=64GiB,disk=1TiB; "
       "GiB = 2^30 B). Prompt chunks are stored as computed, a prefix found there is loaded before the request runs")
      ("kv-offload-chunk-tokens", po::value(&f.chunk_tokens),
       "tokens per offloaded chunk, a multiple of --block-size (default: the block size; vLLM's block_size extra config)")
      ("kv-host-link", po::value(&f.host_link),
       "GB/s[,LATENCY_US]: one GPU's host link, each direction (default: the GPU table's host_link_GB_per_s, latency 0)")
      ("kv-disk", po::value(&f.disk),
       "READ_GB/s,WRITE_GB/s,LATENCY_US of the disk tier, per GPU (required with disk=; e.g. 7.45,6.9,80)")
      ("kv-offloading-size", po::value(&f.offloading_size),
       "vLLM: host KV buffer in GiB (2^30 B), summed over the TP ranks (= --kv-offload cpu=SIZEGiB)")
      ("kv-offloading-backend", po::value(&f.offloading_backend),
       "vLLM: native (OffloadingConnector) | lmcache (LMCacheConnectorV1); with --kv-offloading-size")
      ("kv-transfer-config", po::value(&f.transfer_config),
       "vLLM JSON: OffloadingConnector (kv_connector_extra_config: cpu_bytes_to_use or num_cpu_blocks, block_size) or "
       "LMCacheConnectorV1 (host tier from --kv-offload); other connectors are refused");
}

namespace {

// Sizes past what one machine holds are typos (TiB for GiB, a missing unit), refused before
// anything is sized from them: the token counts derived from them would overflow. Host memory: the
// largest shared-memory x86 system sold holds 32 sockets x 1.5 TB = 48 TB (HPE Superdome Flex,
// https://www.hpe.com/psnow/doc/a00036491enw), below 64 TiB. Disk: a 2U server of 24 drives of
// 122.88 TB (Solidigm D5-P5336, https://www.solidigm.com/products/data-center/d5/p5336.html) holds
// 2.9 PB, below 4 PiB.
constexpr double kMaxHostTierBytes = 64.0 * 1024 * 1024 * 1024 * 1024;
constexpr double kMaxDiskTierBytes = 4.0 * 1024 * 1024 * 1024 * 1024 * 1024;

// `host_flag`: the flag that sized the host tier.
void CheckTierSizes(const OffloadConfig& c, const std::string& host_flag) {
  for (const TierSpec& t : c.tiers) {
    const bool host = t.kind == TierKind::kHost;
    const std::string flag = host ? host_flag : "--kv-offload disk";
    const double max = host ? kMaxHostTierBytes : kMaxDiskTierBytes;
    if (!(t.capacity_bytes > 0))
      throw Error(flag + ": the tier's size must be positive");
    if (t.capacity_bytes > max)
      throw Error(Format("%s: %.4g GiB is more than any one machine holds (at most %.0f TiB of %s); "
                         "check the unit (GiB = 2^30 B, TiB = 2^40 B)",
                         flag.c_str(), t.capacity_bytes / (1024.0 * 1024 * 1024), max / (1024.0 * 1024 * 1024 * 1024),
                         host ? "host memory" : "disk"));
  }
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, sep);) out.push_back(item);
  return out;
}

double Positive(const std::string& text, const std::string& what) {
  const double v = ParseFiniteNumber(text, what);
  if (!(v > 0)) throw Error(what + ": must be positive (got " + text + ")");
  return v;
}

void ParseTiers(const std::string& text, OffloadConfig& c) {
  for (const std::string& item : Split(text, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) throw Error("--kv-offload: '" + item + "' is not TIER=SIZE (cpu=64GiB, disk=1TiB)");
    const std::string name = item.substr(0, eq);
    TierSpec t;
    if (name == "cpu") t.kind = TierKind::kHost;
    else if (name == "disk") t.kind = TierKind::kDisk;
    else throw Error("--kv-offload: tier '" + name + "' is not cpu or disk");
    for (const TierSpec& seen : c.tiers)
      if (seen.kind == t.kind) throw Error("--kv-offload: tier '" + name + "' given twice");
    const std::string size = item.substr(eq + 1);
    // TiB is not among ParseByteAmount's units.
    const bool tib = size.size() > 3 && size.compare(size.size() - 3, 3, "TiB") == 0;
    t.capacity_bytes = tib ? ParseByteAmount(size.substr(0, size.size() - 3) + "GiB", "--kv-offload " + name) * 1024
                           : ParseByteAmount(size, "--kv-offload " + name);
    c.tiers.push_back(t);
  }
  // Fastest first: host memory, then disk.
  if (c.tiers.size() == 2 && c.tiers[0].kind == TierKind::kDisk) std::swap(c.tiers[0], c.tiers[1]);
}

// --kv-transfer-config: the offloading connectors configure tiers; a P/D connector is not a tier.
void ParseTransferConfig(const std::string& text, OffloadConfig& c) {
  std::string why;
  const std::optional<nlohmann::json> j = ParseJsonText(text, &why);
  if (!j || !j->is_object()) throw Error("--kv-transfer-config: not a JSON object (" + why + ")");
  // The types vLLM's KVTransferConfig declares (vllm/config/kv_transfer.py): a field of another type
  // is refused there, so here too, naming the field, instead of read as absent.
  const auto connector_it = j->find("kv_connector");
  if (connector_it == j->end() || !connector_it->is_string())
    throw Error("--kv-transfer-config: kv_connector: expected the connector's name, got " +
                (connector_it == j->end() ? std::string("nothing") : connector_it->dump()));
  const std::string connector = connector_it->get<std::string>();
  if (const auto role = j->find("kv_role"); role != j->end() && !role->is_null()) {
    const std::string name = role->is_string() ? role->get<std::string>() : role->dump();
    if (name != "kv_producer" && name != "kv_consumer" && name != "kv_both")
      throw Error("--kv-transfer-config: kv_role: '" + name + "' is not kv_producer, kv_consumer or kv_both");
  }
  nlohmann::json extra = nlohmann::json::object();
  if (const auto e = j->find("kv_connector_extra_config"); e != j->end() && !e->is_null()) {
    if (!e->is_object())
      throw Error("--kv-transfer-config: kv_connector_extra_config: expected a JSON object, got " + e->dump());
    extra = *e;
  }
  if (connector == "OffloadingConnector") {
    const std::string sized_by = c.tiers.empty()                ? ""
                                 : c.connector == "--kv-offload" ? "--kv-offload"
                                                                 : "--kv-offloading-size";
    c.connector = connector;
    if (const auto block = extra.find("block_size"); block != extra.end() && !block->is_null()) {
      if (!block->is_number_integer() || block->get<int64_t>() < 1 || block->get<int64_t>() > (int64_t{1} << 20))
        throw Error("--kv-transfer-config: kv_connector_extra_config.block_size: " + block->dump() +
                    " is not a whole number of tokens from 1 to 1048576");
      c.chunk_tokens = block->get<int64_t>();
    }
    if (extra.contains("cpu_bytes_to_use")) {
      TierSpec t;
      if (!extra.at("cpu_bytes_to_use").is_number())
        throw Error("--kv-transfer-config: kv_connector_extra_config.cpu_bytes_to_use: not a number of bytes");
      // Both size the one host tier; which one vLLM reads depends on its release, so neither is guessed.
      if (extra.contains("num_cpu_blocks"))
        throw Error("--kv-transfer-config: kv_connector_extra_config gives both cpu_bytes_to_use and num_cpu_blocks; "
                    "they size the same host tier, give one");
      if (!sized_by.empty())
        throw Error("--kv-transfer-config: kv_connector_extra_config.cpu_bytes_to_use and " + sized_by +
                    " both size the host tier; give one");
      t.capacity_bytes = extra.at("cpu_bytes_to_use").get<double>();
      c.tiers = {t};
    } else if (c.tiers.empty()) {
      throw Error("--kv-transfer-config: OffloadingConnector without cpu_bytes_to_use; give the host tier's size "
                  "with --kv-offload cpu=SIZE (num_cpu_blocks counts blocks of a size kvsim does not know here)");
    }
    return;
  }
  if (connector == "LMCacheConnectorV1") {
    // LMCache's sizes live in its own config file (max_local_cpu_size, local_disk): taken from --kv-offload.
    if (c.tiers.empty())
      throw Error("--kv-transfer-config: LMCacheConnectorV1 keeps its sizes in LMCache's config; give them with "
                  "--kv-offload cpu=SIZE[,disk=SIZE] (LMCache's max_local_cpu_size, max_local_disk_size)");
    c.connector = connector;
    if (c.chunk_tokens == 0) c.chunk_tokens = 256;  // LMCache's chunk_size default (lmcache/v1/config.py)
    return;
  }
  // Any other name: one of vLLM's transfer connectors, an out-of-tree one (kv_connector_module_path) or a typo,
  // which vLLM refuses ("Unsupported connector type"); kvsim cannot tell them apart by name, so it claims neither.
  throw Error("--kv-transfer-config: connector '" + connector +
              "' is not an offloading tier kvsim models (OffloadingConnector, LMCacheConnectorV1); a connector that "
              "moves KV between prefill and decode instances (NixlConnector, P2pNcclConnector, MooncakeConnector) is "
              "modelled with --prefill-replicas/--decode-replicas and --kv-link");
}

}  // namespace

OffloadConfig ResolveOffloadFlags(const OffloadFlags& f) {
  OffloadConfig c;
  if (!f.tiers.empty()) {
    ParseTiers(f.tiers, c);
    c.connector = "--kv-offload";
  }
  if (!f.offloading_size.empty()) {
    if (!c.tiers.empty()) throw Error("--kv-offloading-size: give the host tier once (--kv-offload or --kv-offloading-size)");
    const double gib = Positive(f.offloading_size, "--kv-offloading-size");
    TierSpec t;
    t.capacity_bytes = GiBToBytes(gib);
    c.tiers = {t};
    c.connector = "OffloadingConnector";
  }
  if (!f.offloading_backend.empty()) {
    if (f.offloading_size.empty()) throw Error("--kv-offloading-backend: only with --kv-offloading-size (as vLLM)");
    if (f.offloading_backend == "lmcache") {
      c.connector = "LMCacheConnectorV1";
      c.chunk_tokens = 256;  // LMCache's chunk_size default (lmcache/v1/config.py)
    } else if (f.offloading_backend != "native") {
      throw Error("--kv-offloading-backend: '" + f.offloading_backend + "' is not native or lmcache");
    }
  }
  if (!f.transfer_config.empty()) ParseTransferConfig(f.transfer_config, c);
  if (f.chunk_tokens != 0) {
    if (f.chunk_tokens < 0) throw Error("--kv-offload-chunk-tokens: must be positive");
    c.chunk_tokens = f.chunk_tokens;
  }
  if (!f.host_link.empty()) {
    const std::vector<std::string> v = Split(f.host_link, ',');
    if (v.empty() || v.size() > 2) throw Error("--kv-host-link: expected GB/s[,LATENCY_US]");
    for (TierSpec& t : c.tiers) {
      if (t.kind != TierKind::kHost) continue;
      t.read_bytes_per_s = t.write_bytes_per_s = Positive(v[0], "--kv-host-link") * 1e9;
      if (v.size() == 2) t.latency_ns = static_cast<int64_t>(std::llround(ParseFiniteNumber(v[1], "--kv-host-link latency") * 1e3));
    }
  }
  for (TierSpec& t : c.tiers) {
    if (t.kind != TierKind::kDisk) continue;
    const std::vector<std::string> v = Split(f.disk, ',');
    if (v.size() != 3)
      throw Error("--kv-disk: the disk tier needs READ_GB/s,WRITE_GB/s,LATENCY_US (e.g. 7.45,6.9,80 for a PCIe 4.0 NVMe "
                  "drive's datasheet figures); kvsim has no default disk");
    t.read_bytes_per_s = Positive(v[0], "--kv-disk read") * 1e9;
    t.write_bytes_per_s = Positive(v[1], "--kv-disk write") * 1e9;
    const double us = ParseFiniteNumber(v[2], "--kv-disk latency");
    if (us < 0) throw Error("--kv-disk: latency must not be negative");
    t.latency_ns = static_cast<int64_t>(std::llround(us * 1e3));
  }
  if (c.tiers.empty() && (f.chunk_tokens != 0 || !f.host_link.empty() || !f.disk.empty()))
    throw Error("--kv-offload-chunk-tokens/--kv-host-link/--kv-disk: only with a tier (--kv-offload)");
  const bool json_sized = f.transfer_config.find("cpu_bytes_to_use") != std::string::npos;
  CheckTierSizes(c, json_sized                    ? "--kv-transfer-config cpu_bytes_to_use"
                    : !f.offloading_size.empty() ? "--kv-offloading-size"
                                                 : "--kv-offload cpu");
  return c;
}

}  // namespace kvsim
