// Parsers for the quantities users type: token counts with k/K suffixes, byte amounts with units,
// plain numbers. Strict: the whole text must parse, NaN and infinity are refused. Each throws
// kvsim::Error naming `what` (an option or a file:line: field).
#ifndef KVSIM_KVCACHE_BASE_QUANTITY_PARSE_H_
#define KVSIM_KVCACHE_BASE_QUANTITY_PARSE_H_

#include <cstdint>
#include <string>

namespace kvsim {

// "32768", "32k" (x1000), "32K" (x1024), "1m" (x10^6), "1M" (x2^20): a whole number.
int64_t ParseTokenCount(const std::string& text, const std::string& what);

// A positive byte amount: plain bytes, or with suffix k/m/g or KB/MB/GB (10^3..), K/M/G or
// KiB/MiB/GiB (2^10..).
double ParseByteAmount(const std::string& text, const std::string& what);

// A finite number, the whole text.
double ParseFiniteNumber(const std::string& text, const std::string& what);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_QUANTITY_PARSE_H_
