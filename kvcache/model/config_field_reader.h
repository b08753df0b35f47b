// FieldReader: typed access to the fields of one config.json object, naming the file and field
// in every error and collecting all missing required fields so one message can list them.
#ifndef KVSIM_KVCACHE_MODEL_CONFIG_FIELD_READER_H_
#define KVSIM_KVCACHE_MODEL_CONFIG_FIELD_READER_H_

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "kvcache/model/config_limits.h"

namespace kvsim {

// Reads integer fields of one JSON object, remembering every required field that is absent so a
// single error can list them all.
class FieldReader {
 public:
  FieldReader(const nlohmann::json& object, std::string source, std::string prefix)
      : object_(object), source_(std::move(source)), prefix_(std::move(prefix)) {}

  // First present key among `keys`; nullopt when none is present or the value is null. A value
  // outside the field's ConfigFieldRange (config_limits.h) is an error naming file, field and range.
  std::optional<int64_t> Find(std::initializer_list<const char*> keys) const {
    for (const char* key : keys) {
      auto it = object_.find(key);
      if (it == object_.end() || it->is_null()) continue;
      const FieldRange range = ConfigFieldRange(key);
      auto out_of_range = [&] {
        return Error(source_ + ": " + prefix_ + key + ": " + it->dump() + " is outside the valid range " +
                     RangeText(range));
      };
      if (it->is_number_unsigned()) {
        // nlohmann stores every non-negative literal (0 included) as unsigned.
        const uint64_t u = it->get<uint64_t>();
        if (u > static_cast<uint64_t>(range.hi) || static_cast<int64_t>(u) < range.lo) throw out_of_range();
        return static_cast<int64_t>(u);
      }
      int64_t v = 0;
      if (it->is_number_integer()) {
        v = it->get<int64_t>();
      } else if (it->is_number_float()) {
        // Compare as doubles first: casting an out-of-range double to int64 is undefined.
        const double d = it->get<double>();
        if (d != std::floor(d)) throw Error(source_ + ": " + prefix_ + key + ": expected an integer, got " + it->dump());
        if (d < static_cast<double>(range.lo) || d > static_cast<double>(range.hi)) throw out_of_range();
        v = static_cast<int64_t>(d);
      } else {
        throw Error(source_ + ": " + prefix_ + key + ": expected an integer, got " + it->dump());
      }
      if (v < range.lo || v > range.hi) throw out_of_range();
      return v;
    }
    return std::nullopt;
  }

  int64_t Required(std::initializer_list<const char*> keys) {
    if (auto v = Find(keys)) {
      if (*v <= 0) throw Error(source_ + ": " + prefix_ + *keys.begin() + ": must be positive, got " + std::to_string(*v));
      return *v;
    }
    missing_.push_back(prefix_ + *keys.begin());
    return 0;
  }

  int64_t Optional(std::initializer_list<const char*> keys, int64_t fallback) const {
    auto v = Find(keys);
    return v ? *v : fallback;
  }

  bool Bool(const char* key, bool fallback) const {
    auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) throw Error(source_ + ": " + prefix_ + key + ": expected true/false, got " + it->dump());
    return it->get<bool>();
  }

  // A real number (e.g. partial_rotary_factor); `fallback` when absent or null.
  double Number(const char* key, double fallback) const {
    auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return fallback;
    if (!it->is_number()) throw Error(source_ + ": " + prefix_ + key + ": expected a number, got " + it->dump());
    return it->get<double>();
  }

  // A name (model_type, torch_dtype, rope_type); `fallback` when absent or null.
  std::string String(const char* key, const std::string& fallback) const {
    auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return fallback;
    if (!it->is_string()) throw Error(source_ + ": " + prefix_ + key + ": expected a string, got " + Excerpt(*it));
    return it->get<std::string>();
  }

  // An object of settings (rope_scaling, quantization_config); null when absent or null.
  const nlohmann::json* Object(const char* key) const {
    auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return nullptr;
    if (!it->is_object()) throw Error(source_ + ": " + prefix_ + key + ": expected a JSON object, got " + Excerpt(*it));
    return &*it;
  }

  // A list of names (architectures); empty when absent or null.
  std::vector<std::string> Names(const char* key) const {
    std::vector<std::string> out;
    auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return out;
    auto wrong = [&] { return Error(source_ + ": " + prefix_ + key + ": expected a list of names, got " + Excerpt(*it)); };
    if (!it->is_array()) throw wrong();
    for (const auto& v : *it) {
      if (!v.is_string()) throw wrong();
      out.push_back(v.get<std::string>());
    }
    return out;
  }

  bool Has(const char* key) const {
    auto it = object_.find(key);
    return it != object_.end() && !it->is_null();
  }

  const nlohmann::json& object() const { return object_; }
  const std::string& source() const { return source_; }
  const std::string& prefix() const { return prefix_; }
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  static std::string Excerpt(const nlohmann::json& v) {
    std::string text = v.dump();
    return text.size() > 60 ? text.substr(0, 57) + "..." : text;
  }
  const nlohmann::json& object_;
  std::string source_;
  std::string prefix_;
  std::vector<std::string> missing_;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_CONFIG_FIELD_READER_H_
