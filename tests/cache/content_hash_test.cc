#include "cache/content_hash.h"

#include <string>

#include "gtest/gtest.h"

namespace jitk::cache {
namespace {

TEST(ContentHasherTest, EmptyInputIsXxh128TestVector) {
  // XXH3-128 of no bytes, seed 0, canonical (big-endian) hex: the reference
  // value of the xxHash project. Equal on every machine and build.
  EXPECT_EQ(ContentHasher().HexDigest(), "99aa06d3014798d86001c324468d497f");
}

TEST(ContentHasherTest, PinnedDigestOfFieldsNeverChanges) {
  // Cache files are shared between machines: this value must not change
  // unless kCodeObjectKeyVersion and the schema are bumped with it.
  ContentHasher h;
  h.AddField("jitk").AddInt(1).AddDouble(0.5);
  EXPECT_EQ(h.HexDigest(), "b60f1bb3cb60f4160156999e57653a70");
}

TEST(ContentHasherTest, LengthPrefixSeparatesFields) {
  ContentHasher a, b;
  a.AddField("ab").AddField("c");
  b.AddField("a").AddField("bc");
  EXPECT_NE(a.HexDigest(), b.HexDigest());
}

TEST(ContentHasherTest, SameInputSameDigest) {
  ContentHasher a, b;
  a.AddField("source").AddInt(-7);
  b.AddField("source").AddInt(-7);
  EXPECT_EQ(a.HexDigest(), b.HexDigest());
  EXPECT_EQ(a.Digest64(), b.Digest64());
  EXPECT_EQ(a.HexDigest().size(), 32u);
}

TEST(ContentHasherTest, DoubleBitsMatter) {
  ContentHasher a, b;
  a.AddDouble(0.0);
  b.AddDouble(-0.0);
  EXPECT_NE(a.Digest64(), b.Digest64());
}

}  // namespace
}  // namespace jitk::cache
