// One name table per enumeration, declared next to the enum, that flags, JSON and HTML all use:
//
//   enum class Stepping { kEvent, kToken };
//   template <> struct EnumNames<Stepping> {
//     static constexpr EnumEntry<Stepping> kEntries[] = {{Stepping::kEvent, "event"}, {Stepping::kToken, "token"}};
//   };
//
// The first entry of a value is its canonical name (what outputs print); later entries with the
// same value are accepted aliases (e.g. "tensorrt-llm" for trtllm). `label` is an optional
// human-readable form for reports ("cached (prefix)"); it defaults to the name.
#ifndef KVSIM_KVCACHE_BASE_ENUM_NAMES_H_
#define KVSIM_KVCACHE_BASE_ENUM_NAMES_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvcache/base/error.h"

namespace kvsim {

template <typename E>
struct EnumEntry {
  E value;
  const char* name;
  const char* label = nullptr;
};

// Specialised for every enumeration that has names.
template <typename E>
struct EnumNames;

template <typename E>
const char* NameOf(E value) {
  for (const auto& e : EnumNames<E>::kEntries)
    if (e.value == value) return e.name;
  return "?";
}

template <typename E>
const char* LabelOf(E value) {
  for (const auto& e : EnumNames<E>::kEntries)
    if (e.value == value) return e.label ? e.label : e.name;
  return "?";
}

template <typename E>
std::optional<E> TryParseEnum(std::string_view text) {
  for (const auto& e : EnumNames<E>::kEntries)
    if (text == e.name) return e.value;
  return std::nullopt;
}

// Every value once, in table order.
template <typename E>
std::vector<E> EnumValues() {
  std::vector<E> out;
  for (const auto& e : EnumNames<E>::kEntries) {
    bool seen = false;
    for (E v : out) seen = seen || v == e.value;
    if (!seen) out.push_back(e.value);
  }
  return out;
}

// The canonical names joined by `separator`: "event | token".
template <typename E>
std::string EnumChoices(const char* separator = " | ") {
  std::string out;
  for (E v : EnumValues<E>()) out += (out.empty() ? "" : separator) + std::string(NameOf(v));
  return out;
}

// Throws kvsim::Error "`what`: 'text' is not one of a, b, c".
template <typename E>
E ParseEnum(std::string_view text, const std::string& what) {
  if (auto v = TryParseEnum<E>(text)) return *v;
  throw Error(what + ": '" + std::string(text) + "' is not one of " + EnumChoices<E>(", "));
}

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_ENUM_NAMES_H_
