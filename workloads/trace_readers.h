// Readers for the public trace formats, all streaming (constant memory in the file's size):
//
//   azure     TIMESTAMP,ContextTokens,GeneratedTokens            absolute datetimes
//   burstgpt  Timestamp,Model,Request tokens,Response tokens,...  seconds; rows with 0 response
//             tokens are failed requests and skipped; --model-filter keeps one model
//   vidur     arrived_at,num_prefill_tokens,num_decode_tokens    seconds (Vidur / Splitwise)
//   mooncake  JSONL: timestamp (ms), input_length, output_length, hash_ids (512-token blocks)
//   csv       generic: columns named by --arrival-column, --prompt-column, --output-column, with
//             --time-unit s|ms|us|ns|datetime
//   lengths   num_prefill_tokens,num_decode_tokens (no arrivals; paired with an arrival process)
// Arrivals are rebased so the first request arrives at 0. Timestamps must not go backwards.
#ifndef KVSIM_WORKLOADS_TRACE_READERS_H_
#define KVSIM_WORKLOADS_TRACE_READERS_H_

#include <memory>
#include <optional>
#include <string>

#include "kvcache/base/enum_names.h"
#include "workloads/request_source.h"
#include "workloads/synthetic.h"

namespace kvsim {

enum class TraceFormat { kAzure, kBurstGpt, kVidur, kMooncake, kGenericCsv, kLengths };
template <>
struct EnumNames<TraceFormat> {
  static constexpr EnumEntry<TraceFormat> kEntries[] = {
      {TraceFormat::kAzure, "azure"},       {TraceFormat::kBurstGpt, "burstgpt"},   {TraceFormat::kVidur, "vidur"},
      {TraceFormat::kMooncake, "mooncake"}, {TraceFormat::kGenericCsv, "csv"},      {TraceFormat::kLengths, "lengths"},
      {TraceFormat::kVidur, "splitwise"}};
};

// The arrival column's unit in a generic CSV trace.
enum class TimeUnit { kSeconds, kMillis, kMicros, kNanos, kDateTime };
template <>
struct EnumNames<TimeUnit> {
  static constexpr EnumEntry<TimeUnit> kEntries[] = {{TimeUnit::kSeconds, "s"},
                                                     {TimeUnit::kMillis, "ms"},
                                                     {TimeUnit::kMicros, "us"},
                                                     {TimeUnit::kNanos, "ns"},
                                                     {TimeUnit::kDateTime, "datetime"}};
};

// Looks at the first line: JSON object -> mooncake; else the CSV header's column names.
// Throws kvsim::Error naming the file when it cannot be read or recognised. Reads the file, so
// call it only for a regular file (a pipe or stdin would lose its first line): OpenTraceReader
// with no format detects from the same stream it reads.
TraceFormat DetectTraceFormat(const std::string& path);
TraceFormat DetectTraceFormatFromHeader(const std::string& header, const std::string& path);

struct TraceReaderOptions {
  std::string path;  // a file, a FIFO or "-" (stdin); read once
  std::optional<TraceFormat> format = TraceFormat::kAzure;  // nullopt: detected from the first line
  bool skip_bad_rows = false;
  std::string model_filter;                 // burstgpt
  std::string arrival_column = "arrival";   // csv
  std::string prompt_column = "prompt_tokens";
  std::string output_column = "output_tokens";
  TimeUnit time_unit = TimeUnit::kSeconds;  // csv
  // Any format: the column (a CSV header name, a Mooncake key) naming each request's LoRA adapter;
  // an empty cell or absent key is the base model. Empty: no column, every request on the base model.
  std::string adapter_column;
  char delimiter = 0;                       // CSV formats; 0: from the header (DetectCsvDelimiter)
};

// `arrivals` is required for the lengths format and ignored otherwise. Token counts above
// kMaxRequestTokens, arrivals past 2^62 ns, lines over 1 MiB and binary data are bad rows.
std::unique_ptr<RequestSource> OpenTraceReader(const TraceReaderOptions& options,
                                               std::optional<ArrivalGenerator> arrivals = std::nullopt);

}  // namespace kvsim

#endif  // KVSIM_WORKLOADS_TRACE_READERS_H_
