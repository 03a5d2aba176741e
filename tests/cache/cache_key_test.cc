#include "cache/cache_key.h"

#include <set>
#include <string>
#include <vector>

#include "cache_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace jitk::cache {
namespace {

using ::jitk::cache::testing::StatusIs;
using ::testing::HasSubstr;

struct Inputs {
  std::string source = "template <int B, typename T> __global__ void scaled_add() {}";
  std::vector<std::pair<std::string, std::string>> headers = {{"prelude.h", "#pragma once"}};
  std::string name_expression = "scaled_add<256, float>";
  std::vector<std::string> options = {"-O3", "-DJITK=1"};
  std::string compiler = "hiprtc 5.2.21153";
  std::string target = "gfx90a:sramecc+:xnack-";

  absl::StatusOr<std::string> Key() const {
    std::vector<HeaderText> h;
    for (const auto& [name, text] : headers) h.push_back({name, text});
    CodeObjectKeyInputs in;
    in.source = source;
    in.headers = h;
    in.name_expression = name_expression;
    in.options = options;
    in.compiler = compiler;
    in.target = target;
    return MakeCodeObjectKey(in);
  }
};

TEST(CodeObjectKeyTest, SameInputsSameKey) {
  absl::StatusOr<std::string> a = Inputs().Key(), b = Inputs().Key();
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(a->size(), 32u);
  EXPECT_EQ(a->find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(CodeObjectKeyTest, PinnedKeyIsStableAcrossBuilds) {
  // Shipped DBs are looked up with keys computed by other builds on other
  // machines. Changing this value needs a kCodeObjectKeyVersion bump.
  EXPECT_EQ(*Inputs().Key(), "73f29e04fb32e7d44fd563c696e9d158");
}

TEST(CodeObjectKeyTest, EveryInputChangesTheKey) {
  const std::string base = *Inputs().Key();
  std::vector<Inputs> variants(9);
  variants[0].source += " ";
  variants[1].headers[0].second += "\n";
  variants[2].headers.push_back({"extra.h", ""});
  variants[3].name_expression = "scaled_add<128, float>";
  variants[4].options.push_back("-ffast-math");
  variants[5].options = {"-DJITK=1", "-O3"};  // order matters
  variants[6].compiler = "hiprtc 5.2.21154";
  variants[7].target = "gfx90a:sramecc+:xnack+";
  variants[8].target = "gfx90a";
  std::set<std::string> keys = {base};
  for (size_t i = 0; i < variants.size(); ++i) {
    absl::StatusOr<std::string> key = variants[i].Key();
    ASSERT_TRUE(key.ok()) << key.status();
    EXPECT_NE(*key, base) << "variant " << i;
    keys.insert(*key);
  }
  EXPECT_EQ(keys.size(), variants.size() + 1) << "two variants collided";
}

TEST(CodeObjectKeyTest, HeaderOrderDoesNotMatter) {
  Inputs a, b;
  a.headers = {{"a.h", "1"}, {"b.h", "2"}};
  b.headers = {{"b.h", "2"}, {"a.h", "1"}};
  EXPECT_EQ(*a.Key(), *b.Key());
}

TEST(CodeObjectKeyTest, FieldBoundariesAreUnambiguous) {
  Inputs a, b;
  a.options = {"-DA", "B"};
  b.options = {"-DAB"};
  EXPECT_NE(*a.Key(), *b.Key());
}

TEST(CodeObjectKeyTest, RequiredFieldsMustBeSet) {
  for (const char* field : {"source", "name_expression", "compiler", "target"}) {
    Inputs in;
    if (std::string(field) == "source") in.source.clear();
    if (std::string(field) == "name_expression") in.name_expression.clear();
    if (std::string(field) == "compiler") in.compiler.clear();
    if (std::string(field) == "target") in.target.clear();
    EXPECT_THAT(in.Key(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(field)));
  }
}

}  // namespace
}  // namespace jitk::cache
