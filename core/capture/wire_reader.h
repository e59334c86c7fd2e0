#pragma once
// A bounds-checked reader of the protobuf wire format over bytes that stay where they are (the mapping).
// The capture reader walks XSpace with it instead of parsing whole messages: a length-delimited field is
// handed back as a sub-range that a nested WireReader walks in place. Everything is inline because the
// scan calls these a few times per event; the reader never allocates.
//
// Problems are thrown as WireError carrying the byte offset in the file, so the reader can turn them into
// one user-facing sentence. "Truncated" is reserved for the outermost message running off the end of the
// file (the file was cut); any inconsistency inside a message is "damaged".

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace oomscope::capture::wire {

enum class WireType : std::uint8_t {
  Varint = 0,
  Fixed64 = 1,
  Len = 2,
  StartGroup = 3,
  EndGroup = 4,
  Fixed32 = 5
};

// The largest field number the format allows (2^29 - 1: the tag's top 29 bits).
inline constexpr std::uint64_t kMaxFieldNumber = (1ull << 29) - 1;

// The tag byte of field `number` (below 16) with wire type `type`: (number << 3) | type.
constexpr std::uint8_t tag_byte(int number, WireType type) {
  return static_cast<std::uint8_t>((number << 3) | static_cast<int>(type));
}

// The largest message the format allows (2 GiB); a longer length field cannot come from a cut file.
inline constexpr std::uint64_t kMaxMessageBytes = 2ull * 1024 * 1024 * 1024;

struct WireError {
  bool truncated = false;  // false: damaged
  std::uint64_t offset = 0;
  std::string what;
};

struct Field {
  std::uint32_t number = 0;
  WireType type = WireType::Varint;
};

class WireReader {
 public:
  // base: the first byte of the file (for offsets in errors); [begin, end): this message.
  // outermost: a field running past `end` means the file was cut (Truncated) rather than damaged.
  WireReader(const std::uint8_t* base, const std::uint8_t* begin, const std::uint8_t* end,
             bool outermost = false)
      : base_(base), p_(begin), end_(end), outermost_(outermost) {}

  bool done() const { return p_ >= end_; }
  const std::uint8_t* pos() const { return p_; }
  const std::uint8_t* end() const { return end_; }
  std::uint64_t offset() const { return static_cast<std::uint64_t>(p_ - base_); }

  Field field() {
    const std::uint8_t* at = p_;
    const std::uint64_t tag = varint();
    const auto type = static_cast<std::uint32_t>(tag & 7);
    const std::uint64_t number = tag >> 3;
    if (number == 0 || number > kMaxFieldNumber)
      fail_at(at, false, "field number " + std::to_string(number) + " is invalid");
    if (type == 6 || type == 7) fail_at(at, false, "wire type " + std::to_string(type) + " does not exist");
    // Groups are proto2-only and never written by the profiler; a group tag means damaged bytes.
    if (type == 3 || type == 4) fail_at(at, false, "a deprecated group field was found where none can be");
    return Field{static_cast<std::uint32_t>(number), static_cast<WireType>(type)};
  }

  std::uint64_t varint() {
    // Fast path for the common one-byte case.
    if (p_ < end_ && *p_ < 0x80) return *p_++;
    const std::uint8_t* at = p_;
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) fail_at(at, outermost_, "a number runs past the end of its message");
      const std::uint8_t byte = *p_++;
      value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
    fail_at(at, false, "a number is longer than 10 bytes");
  }

  std::uint64_t fixed64() {
    if (end_ - p_ < 8) fail_at(p_, outermost_, "an 8-byte value runs past the end of its message");
    std::uint64_t v;
    std::memcpy(&v, p_, 8);  // little-endian hosts only (x86-64, aarch64)
    p_ += 8;
    return v;
  }

  std::uint32_t fixed32() {
    if (end_ - p_ < 4) fail_at(p_, outermost_, "a 4-byte value runs past the end of its message");
    std::uint32_t v;
    std::memcpy(&v, p_, 4);
    p_ += 4;
    return v;
  }

  // A length-delimited field's payload; the reader moves past it.
  std::string_view bytes() {
    const std::uint8_t* at = p_;
    const std::uint64_t length = varint();
    const auto left = static_cast<std::uint64_t>(end_ - p_);
    if (length > left) {
      const bool cut = outermost_ && length <= kMaxMessageBytes;
      fail_at(at, cut,
              "a field claims " + std::to_string(length) + " bytes where only " + std::to_string(left) +
                  " are left in its message");
    }
    std::string_view out(reinterpret_cast<const char*>(p_), static_cast<std::size_t>(length));
    p_ += length;
    return out;
  }

  // Offset in the file of the first byte of `bytes`, a view into the same mapping.
  std::uint64_t offset_of(std::string_view bytes) const {
    return static_cast<std::uint64_t>(reinterpret_cast<const std::uint8_t*>(bytes.data()) - base_);
  }

  WireReader sub(std::string_view payload) const {
    const auto* b = reinterpret_cast<const std::uint8_t*>(payload.data());
    return WireReader(base_, b, b + payload.size());
  }

  void skip(WireType type) {
    switch (type) {
      case WireType::Varint:
        varint();
        return;
      case WireType::Fixed64:
        fixed64();
        return;
      case WireType::Len:
        bytes();
        return;
      case WireType::Fixed32:
        fixed32();
        return;
      case WireType::StartGroup:
      case WireType::EndGroup:
        fail_at(p_, false, "a deprecated group field was found where none can be");
    }
  }

  // Throws the damaged-file error for a structurally valid field that cannot be what the schema says.
  [[noreturn]] void fail(const std::string& what) const { fail_at(p_, false, what); }

 private:
  [[noreturn]] void fail_at(const std::uint8_t* at, bool truncated, std::string what) const {
    throw WireError{truncated, static_cast<std::uint64_t>(at - base_), std::move(what)};
  }

  const std::uint8_t* base_;
  const std::uint8_t* p_;
  const std::uint8_t* end_;
  bool outermost_;
};

inline std::int64_t as_int64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

inline double as_double(std::uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

}  // namespace oomscope::capture::wire
