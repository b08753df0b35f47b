// JsonBrackets and JsonValueEnd on hand-made texts: where a JSON value typed into an option ends,
// and how deep a text nests, with strings, escapes and mismatched brackets.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "kvcache/base/error.h"
#include "kvcache/base/json_brackets.h"

namespace kvsim {
namespace {

TEST(JsonBracketsTest, DepthCountsOnlyBracketsOutsideStrings) {
  // { "a": "[{\"", "b": [1, {}] }: the string holds two brackets and an escaped quote.
  const std::string text = R"({"a": "[{\"", "b": [1, {}]})";
  JsonBrackets b;
  size_t deepest = 0;
  for (const char c : text) {
    ASSERT_TRUE(b.Feed(c)) << c;
    deepest = std::max(deepest, b.depth());
  }
  EXPECT_EQ(deepest, 3u);  // the object, the array, the inner object
  EXPECT_TRUE(b.closed());
}

TEST(JsonBracketsTest, AMismatchedBracketIsRefusedAndLeavesTheStateAlone) {
  JsonBrackets b;
  ASSERT_TRUE(b.Feed('['));
  EXPECT_FALSE(b.Feed('}'));
  EXPECT_EQ(b.depth(), 1u);
  EXPECT_TRUE(b.Feed(']'));
  EXPECT_TRUE(b.closed());
  EXPECT_FALSE(b.Feed(']'));  // closes nothing
}

TEST(JsonBracketsTest, ValueEndIsOnePastTheClosingBracket) {
  // 0123456789...: the object {"m": "a}b"} spans 0..13; then ",x".
  const std::string text = R"({"m": "a}b"},x)";
  EXPECT_EQ(JsonValueEnd(text, 0, "--sweep k"), 12u);
  EXPECT_EQ(JsonValueEnd("x=[1,[2,3]] y", 2, "w"), 11u);
}

TEST(JsonBracketsTest, ValueEndNamesWhatWasNotClosedOrMismatched) {
  try {
    JsonValueEnd(R"({"m": "ngram")", 0, "--a");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), R"(--a: the JSON value '{"m": "ngram"' is not closed)");
  }
  try {
    JsonValueEnd("[1}", 0, "--b");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--b: '[1}' has an unmatched '}'");
  }
}

}  // namespace
}  // namespace kvsim
