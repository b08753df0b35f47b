#include "sim/cli/variant_options.h"

#include <boost/program_options.hpp>
#include <map>

#include "kvcache/error.h"

namespace kvsim {
namespace po = boost::program_options;

std::vector<std::string> SplitOptionString(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  bool in_token = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
      else cur += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_token = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_token) out.push_back(cur), cur.clear(), in_token = false;
    } else {
      cur += c;
      in_token = true;
    }
  }
  if (quote) throw Error("unterminated quote in '" + text + "'");
  if (in_token) out.push_back(cur);
  return out;
}

Variant ParseVariant(const std::string& label, const std::vector<std::string>& base_args,
                     const std::vector<std::string>& overrides, const std::string& data_dir, ResolveCache* cache) {
  Variant v;
  v.label = label;
  DeploymentOptions dep;
  po::options_description desc;
  AddReplayOptions(desc, v.replay);
  AddDeploymentOptions(desc, dep);
  std::vector<std::string> args = base_args;
  args.insert(args.end(), overrides.begin(), overrides.end());
  po::parsed_options parsed = po::command_line_parser(ExpandShortParallelFlags(args)).options(desc).run();
  // Last occurrence wins: keep only each option's final value.
  std::map<std::string, size_t> last;
  for (size_t i = 0; i < parsed.options.size(); ++i) last[parsed.options[i].string_key] = i;
  std::vector<po::option> kept;
  for (size_t i = 0; i < parsed.options.size(); ++i)
    if (last[parsed.options[i].string_key] == i) kept.push_back(parsed.options[i]);
  parsed.options = kept;
  po::variables_map vm;
  po::store(parsed, vm);
  po::notify(vm);
  if (vm.count("no-enable-prefix-caching")) dep.enable_prefix_caching = false;
  ValidateReplayOptions(v.replay, data_dir);
  v.deployment = ResolveDeployment(dep, data_dir, cache);
  return v;
}

bool SameTraceInput(const ReplayOptions& a, const ReplayOptions& b) {
  return a.trace == b.trace && a.trace_format == b.trace_format && a.reader.path == b.reader.path &&
         a.reader.model_filter == b.reader.model_filter && a.reader.skip_bad_rows == b.reader.skip_bad_rows &&
         a.reader.arrival_column == b.reader.arrival_column && a.reader.prompt_column == b.reader.prompt_column &&
         a.reader.output_column == b.reader.output_column && a.reader.time_unit == b.reader.time_unit &&
         a.synthetic == b.synthetic && a.arrival == b.arrival && a.rate == b.rate && a.cv == b.cv &&
         a.prompt_len == b.prompt_len && a.output_len == b.output_len && a.seed == b.seed &&
         a.window.max_requests == b.window.max_requests && a.window.start_s == b.window.start_s &&
         a.window.duration_s == b.window.duration_s && a.window.repeat == b.window.repeat;
}

}  // namespace kvsim
