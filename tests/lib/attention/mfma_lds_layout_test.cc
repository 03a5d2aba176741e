// The MFMA engine's LDS tiles (kernel_templates/sparse_attn_params.h): the
// swizzle permutes each row's 8-byte units, the engine's split offsets are
// the same offsets, and its reads and writes meet no bank conflicts under
// CDNA's LDS model: 32 banks of 4 bytes, 128 bytes per cycle, so a wave's
// 8-byte accesses go through in phases of 16 lanes and its 16-byte ones in
// phases of 8.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernel_templates/sparse_attn_params.h"

namespace jitk::attn {
namespace {

struct Access {
  int lane;
  int byte_offset;
};

// The most distinct 4-byte words one bank serves in one phase of a wave's
// access of `bytes` per lane (1: conflict-free; lanes reading the same word
// share it).
int ConflictDegree(const std::vector<Access>& wave, int bytes) {
  const int lanes_per_phase = 128 / bytes;
  std::map<int, std::map<int, std::set<int>>> words;  // phase -> bank -> words
  for (const Access& a : wave) {
    for (int w = 0; w < bytes / 4; ++w) {
      const int word = a.byte_offset / 4 + w;
      words[a.lane / lanes_per_phase][word % 32].insert(word);
    }
  }
  int degree = 0;
  for (const auto& [phase, banks] : words) {
    for (const auto& [bank, distinct] : banks) degree = std::max(degree, int(distinct.size()));
  }
  return degree;
}

// Units per row: head dims and BLOCK_N from 32 to 256, multiples of 32.
const std::vector<int>& RowUnits() {
  static const std::vector<int> units = {8, 16, 24, 32, 40, 48, 56, 64};
  return units;
}

TEST(MfmaLdsLayoutTest, EachRowKeepsItsUnits) {
  for (int units : RowUnits()) {
    for (int row = 0; row < 64; ++row) {
      std::set<int> positions;
      for (int u = 0; u < units; ++u) {
        const int at = MfmaTileOffset(units, row, u);
        EXPECT_EQ(at % 4, 0);
        positions.insert(at / 4 - row * units);
      }
      ASSERT_EQ(positions.size(), size_t(units)) << units << " units, row " << row;
      EXPECT_EQ(*positions.begin(), 0);
      EXPECT_EQ(*positions.rbegin(), units - 1);
    }
  }
}

// The engine's K and V^T reads: lane l reads unit 2 pair + l / 32 of row
// 32 i + l % 32 (an MFMA A operand), through the split offsets. Each 8-byte
// read alone: the compiler pairs them (ds_read2_b64), and how the hardware
// serves a pair is not modelled.
TEST(MfmaLdsLayoutTest, ReadsAreConflictFree) {
  for (int units : RowUnits()) {
    for (int i = 0; i < 2; ++i) {
      for (int pair = 0; pair < units / 2; ++pair) {
        std::vector<Access> wave;
        for (int lane = 0; lane < 64; ++lane) {
          const int col = lane % 32, hi = lane / 32;
          const int split = (MfmaTileOffset(units, col, hi) ^ MfmaPairXor(units, pair)) +
                            MfmaPairStep(units, 32 * i, pair);
          ASSERT_EQ(split, MfmaTileOffset(units, 32 * i + col, 2 * pair + hi))
              << units << " units, rows " << 32 * i << "+, pair " << pair << ", lane " << lane;
          wave.push_back({lane, 2 * split});
        }
        EXPECT_EQ(ConflictDegree(wave, 8), 1) << units << " units, pair " << pair;
      }
    }
  }
}

// StagedRows::store: chunk c = thread + k THREADS is the 16-byte unit pair
// c % (units / 2) of row c / (units / 2), its halves swapped where the
// swizzle is odd.
TEST(MfmaLdsLayoutTest, RowStoresAreConflictFree) {
  for (int units : RowUnits()) {
    for (int threads : {64, 128, 256}) {
      const int per_row = units / 2, rows = 64;
      for (int k = 0; k < rows * per_row / threads; ++k) {
        for (int wave_start = 0; wave_start < threads; wave_start += 64) {
          std::vector<Access> wave;
          for (int lane = 0; lane < 64; ++lane) {
            const int c = wave_start + lane + k * threads;
            const int row = c / per_row, unit = 2 * (c % per_row);
            const bool swap = MfmaSwizzle(units, row) & 1;
            const int at = MfmaTileOffset(units, row, unit) - 4 * swap;
            ASSERT_EQ(at % 8, 0) << "16-byte aligned";
            ASSERT_EQ(at, MfmaTileOffset(units, row, unit + 1) - 4 * !swap);
            wave.push_back({lane, 2 * at});
          }
          EXPECT_EQ(ConflictDegree(wave, 16), 1)
              << units << " units, " << threads << " threads, chunk " << k;
        }
      }
    }
  }
}

// StagedColumns::store: unit u = thread + k THREADS writes unit u % groups
// of rows 8 (u / groups) + e, e < 8 (groups = BLOCK_N / 4 units per row of
// V^T). Rows of 8 (mod 16) units (BLOCK_N = 32 mod 64) start on half a
// 128-byte line by parity alone, so two rows eight apart share its banks:
// 2-way.
TEST(MfmaLdsLayoutTest, TransposedStoresAreConflictFreeAtMultiplesOf64Keys) {
  for (int groups : RowUnits()) {
    const int expected = groups % 16 == 8 ? 2 : 1;
    int worst = 0;
    for (int head_dim : {32, 64, 96, 128, 160, 192, 224, 256}) {
      for (int threads : {64, 256}) {
        const int total = groups * head_dim / 8;
        for (int k = 0; k * threads < total; ++k) {
          for (int e = 0; e < 8; ++e) {
            std::vector<Access> wave;
            for (int lane = 0; lane < 64 && k * threads + lane < total; ++lane) {
              const int u = lane + k * threads;
              const int g = u % groups, c = u / groups;
              const int at = MfmaTileOffset(groups, 8 * c, g);
              const int split = (at ^ MfmaRowXor(groups, e)) + 4 * e * groups;
              ASSERT_EQ(split, MfmaTileOffset(groups, 8 * c + e, g));
              wave.push_back({lane, 2 * split});
            }
            const std::string what =
                absl::StrCat(groups, " units, d=", head_dim, ", unit ", k, ", row +", e);
            const int degree = ConflictDegree(wave, 8);
            EXPECT_LE(degree, expected) << what;
            worst = std::max(worst, degree);
          }
        }
      }
    }
    EXPECT_EQ(worst, expected) << groups << " units";
  }
}

// The tile pair fills half a CU's 64 KiB at the CDNA default (128x64, d =
// 128): two blocks per CU.
TEST(MfmaLdsLayoutTest, DefaultTilePairTakesHalfTheLds) {
  EXPECT_EQ(SmemBytes(kEngineMfma, 128, 64, 2, 128, 2), 32 * 1024);
  EXPECT_EQ(SmemBytes(kEngineMfma, 64, 64, 2, 128, 2), 32 * 1024);
}

}  // namespace
}  // namespace jitk::attn
