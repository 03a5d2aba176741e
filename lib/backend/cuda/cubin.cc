#include "lib/backend/cuda/cubin.h"

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lib/internal/status_macros.h"

namespace jitk::internal {
namespace {

#ifndef EM_CUDA
#define EM_CUDA 190
#endif

// .nv.info / .nv.compat records: {u8 format, u8 attribute, u16 value}; the
// "sized" format is followed by `value` bytes of payload.
constexpr uint8_t kInfoFormatSized = 0x04;
constexpr uint8_t kInfoFormatByte = 0x02;
constexpr uint8_t kInfoMaxThreads = 0x05;      // EIATTR_MAX_THREADS: u32 x, y, z
constexpr uint8_t kInfoFrameSize = 0x11;       // EIATTR_FRAME_SIZE: u32 symbol, u32 bytes
constexpr uint8_t kInfoRegisterCount = 0x2f;   // EIATTR_REGCOUNT: u32 symbol, u32 registers
constexpr uint8_t kCompatArchSpecific = 0x09;  // 1 for sm_XYa code (observed, CUDA 13.0)

absl::Status NotACubin(absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("not a CUDA cubin: ", why));
}

// The image's ELF header and section table, bounds-checked.
class CubinImage {
 public:
  static absl::StatusOr<CubinImage> Parse(absl::string_view bytes) {
    CubinImage image;
    image.bytes_ = bytes;
    if (bytes.size() < sizeof(Elf64_Ehdr)) {
      return NotACubin(absl::StrCat(bytes.size(), " bytes is too short for an ELF header"));
    }
    std::memcpy(&image.header_, bytes.data(), sizeof(Elf64_Ehdr));
    const unsigned char* ident = image.header_.e_ident;
    if (std::memcmp(ident, ELFMAG, SELFMAG) != 0) return NotACubin("no ELF magic");
    if (ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB) {
      return NotACubin("not a 64-bit little-endian ELF image");
    }
    if (image.header_.e_machine != EM_CUDA) {
      return NotACubin(
          absl::StrCat("ELF e_machine is ", image.header_.e_machine, ", not EM_CUDA (190)"));
    }
    const Elf64_Ehdr& h = image.header_;
    if (h.e_shnum != 0) {
      if (h.e_shentsize < sizeof(Elf64_Shdr)) return NotACubin("bad section header size");
      if (h.e_shoff > bytes.size() || (bytes.size() - h.e_shoff) / h.e_shentsize < h.e_shnum) {
        return NotACubin("section table past the end of the image (truncated?)");
      }
      if (h.e_shstrndx >= h.e_shnum) return NotACubin("bad section name table index");
      for (uint16_t i = 0; i < h.e_shnum; ++i) {
        JITK_RETURN_IF_ERROR(image.Contents(image.SectionHeader(i)).status());
      }
    }
    if (h.e_phnum != 0) {
      if (h.e_phentsize < sizeof(Elf64_Phdr)) return NotACubin("bad program header size");
      if (h.e_phoff > bytes.size() || (bytes.size() - h.e_phoff) / h.e_phentsize < h.e_phnum) {
        return NotACubin("program headers past the end of the image (truncated?)");
      }
    }
    return image;
  }

  const Elf64_Ehdr& header() const { return header_; }

  // The contents of the section named `name`; nullopt when absent.
  absl::StatusOr<std::optional<absl::string_view>> Section(absl::string_view name) const {
    JITK_ASSIGN_OR_RETURN(std::optional<Elf64_Shdr> section, SectionNamed(name));
    if (!section.has_value()) return std::nullopt;
    JITK_ASSIGN_OR_RETURN(absl::string_view contents, Contents(*section));
    return std::optional<absl::string_view>(contents);
  }

  // The index of the symbol named `name` in .symtab; nullopt when absent.
  absl::StatusOr<std::optional<uint32_t>> SymbolIndex(absl::string_view name) const {
    JITK_ASSIGN_OR_RETURN(std::optional<Elf64_Shdr> symtab, SectionNamed(".symtab"));
    if (!symtab.has_value() || symtab->sh_entsize < sizeof(Elf64_Sym) ||
        symtab->sh_link >= header_.e_shnum) {
      return std::nullopt;
    }
    JITK_ASSIGN_OR_RETURN(absl::string_view symbols, Contents(*symtab));
    JITK_ASSIGN_OR_RETURN(absl::string_view strings, Contents(SectionHeader(symtab->sh_link)));
    for (size_t i = 0; (i + 1) * symtab->sh_entsize <= symbols.size(); ++i) {
      Elf64_Sym symbol;
      std::memcpy(&symbol, symbols.data() + i * symtab->sh_entsize, sizeof(symbol));
      if (symbol.st_name >= strings.size()) continue;
      absl::string_view symbol_name = strings.substr(symbol.st_name);
      if (symbol_name.substr(0, symbol_name.find('\0')) == name) {
        return std::optional<uint32_t>(static_cast<uint32_t>(i));
      }
    }
    return std::nullopt;
  }

 private:
  Elf64_Shdr SectionHeader(uint16_t index) const {
    Elf64_Shdr section;
    std::memcpy(&section, bytes_.data() + header_.e_shoff + size_t{index} * header_.e_shentsize,
                sizeof(section));
    return section;
  }

  absl::StatusOr<std::optional<Elf64_Shdr>> SectionNamed(absl::string_view name) const {
    if (header_.e_shnum == 0) return std::nullopt;
    JITK_ASSIGN_OR_RETURN(absl::string_view names, Contents(SectionHeader(header_.e_shstrndx)));
    for (uint16_t i = 0; i < header_.e_shnum; ++i) {
      Elf64_Shdr section = SectionHeader(i);
      if (section.sh_name >= names.size()) continue;
      absl::string_view section_name = names.substr(section.sh_name);
      if (section_name.substr(0, section_name.find('\0')) == name) return section;
    }
    return std::nullopt;
  }

  absl::StatusOr<absl::string_view> Contents(const Elf64_Shdr& section) const {
    if (section.sh_type == SHT_NOBITS) return absl::string_view();
    if (section.sh_offset > bytes_.size() || section.sh_size > bytes_.size() - section.sh_offset) {
      return NotACubin("a section lies past the end of the image (truncated?)");
    }
    return bytes_.substr(section.sh_offset, section.sh_size);
  }

  absl::string_view bytes_;
  Elf64_Ehdr header_;
};

uint16_t Read16(absl::string_view bytes, size_t offset) {
  uint16_t v;
  std::memcpy(&v, bytes.data() + offset, sizeof(v));
  return v;
}

uint32_t Read32(absl::string_view bytes, size_t offset) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + offset, sizeof(v));
  return v;
}

// Calls `fn(format, attribute, value, payload)` for each record until it
// returns false; stops quietly at a malformed tail.
template <typename Fn>
void ForEachInfoRecord(absl::string_view info, Fn fn) {
  size_t offset = 0;
  while (offset + 4 <= info.size()) {
    uint8_t format = static_cast<uint8_t>(info[offset]);
    uint8_t attribute = static_cast<uint8_t>(info[offset + 1]);
    uint16_t value = Read16(info, offset + 2);
    offset += 4;
    absl::string_view payload;
    if (format == kInfoFormatSized) {
      if (value > info.size() - offset) return;
      payload = info.substr(offset, value);
      offset += value;
    }
    if (!fn(format, attribute, value, payload)) return;
  }
}

}  // namespace

absl::StatusOr<std::string> CubinArch(absl::string_view cubin) {
  JITK_ASSIGN_OR_RETURN(CubinImage image, CubinImage::Parse(cubin));
  const uint32_t flags = image.header().e_flags;
  const int abi_version = image.header().e_ident[EI_ABIVERSION];
  int sm;
  bool arch_specific;
  if (abi_version >= 8) {
    sm = (flags >> 8) & 0xff;
    arch_specific = (flags & 0x8) != 0;
  } else {
    sm = flags & 0xff;
    arch_specific = (flags & 0x800) != 0;
  }
  if (sm == 0) {
    return NotACubin(
        absl::StrFormat("e_flags 0x%08x (ELF ABI version %d) name no SM", flags, abi_version));
  }
  if (!arch_specific) {
    JITK_ASSIGN_OR_RETURN(std::optional<absl::string_view> compat, image.Section(".nv.compat"));
    if (compat.has_value()) {
      ForEachInfoRecord(*compat,
                        [&](uint8_t format, uint8_t attribute, uint16_t value, absl::string_view) {
                          if (format == kInfoFormatByte && attribute == kCompatArchSpecific) {
                            arch_specific = (value & 0xff) != 0;
                            return false;
                          }
                          return true;
                        });
    }
  }
  return absl::StrCat("sm_", sm, arch_specific ? "a" : "");
}

absl::StatusOr<int> CubinDeclaredMaxThreads(absl::string_view cubin, absl::string_view kernel) {
  JITK_ASSIGN_OR_RETURN(CubinImage image, CubinImage::Parse(cubin));
  JITK_ASSIGN_OR_RETURN(std::optional<absl::string_view> info,
                        image.Section(absl::StrCat(".nv.info.", kernel)));
  int max_threads = 0;
  if (!info.has_value()) return max_threads;
  ForEachInfoRecord(
      *info, [&](uint8_t format, uint8_t attribute, uint16_t, absl::string_view payload) {
        if (format == kInfoFormatSized && attribute == kInfoMaxThreads && payload.size() >= 12) {
          constexpr uint64_t kCap = uint64_t{1} << 30;
          uint64_t product = uint64_t{Read32(payload, 0)} * Read32(payload, 4);
          if (product < kCap) product *= Read32(payload, 8);
          max_threads = static_cast<int>(product < kCap ? product : kCap);
          return false;
        }
        return true;
      });
  return max_threads;
}

absl::StatusOr<CubinKernelInfo> CubinKernelResources(absl::string_view cubin,
                                                     absl::string_view kernel) {
  JITK_ASSIGN_OR_RETURN(CubinImage image, CubinImage::Parse(cubin));
  CubinKernelInfo result;
  JITK_ASSIGN_OR_RETURN(std::optional<uint32_t> symbol, image.SymbolIndex(kernel));
  JITK_ASSIGN_OR_RETURN(std::optional<absl::string_view> info, image.Section(".nv.info"));
  if (!symbol.has_value() || !info.has_value()) return result;
  ForEachInfoRecord(
      *info, [&](uint8_t format, uint8_t attribute, uint16_t, absl::string_view payload) {
        if (format != kInfoFormatSized || payload.size() < 8 || Read32(payload, 0) != *symbol) {
          return true;
        }
        const int value = static_cast<int>(std::min<uint32_t>(Read32(payload, 4), 1u << 30));
        if (attribute == kInfoRegisterCount) result.registers = value;
        if (attribute == kInfoFrameSize) result.frame_bytes = value;
        return true;
      });
  return result;
}

}  // namespace jitk::internal
