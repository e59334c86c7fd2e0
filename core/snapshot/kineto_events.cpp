// Reading a Chrome trace's events with JsonPull (detail/kineto_events.h).

#include "core/snapshot/detail/kineto_events.h"

#include <string_view>

namespace oomscope::snapshot::detail {

namespace {

using Kind = JsonPull::Kind;
using namespace std::string_view_literals;

// One member of "args": absent, present but not a number, or a number (the last occurrence counts).
struct Arg {
  bool present = false, number = false;
  JsonPull::Number value;
  std::int64_t or_else(std::int64_t fallback) const { return number ? value.as_int64() : fallback; }
};

struct Args {
  Arg bytes, total_allocated, total_reserved, addr, device_type, device_id;
};

class Reader {
 public:
  Reader(JsonPull& json, KinetoJson& out) : j_(json), out_(out) {}

  void top() {
    const Kind k = j_.peek_value();
    out_.array_form = k == Kind::Array && !j_.had_byte_order_mark();
    if (out_.array_form) {
      j_.enter_array();
      while (j_.next_element()) event_or_skip();
    } else if (k == Kind::Object) {
      out_.root_object = true;
      j_.enter_object();
      while (j_.next_key(key_, cut_)) {
        if (!cut_ && key_ == "traceEvents"sv) {
          out_.has_trace_events = true;
          members(&Reader::event);
        } else if (!cut_ && key_ == "deviceProperties"sv) {
          members(&Reader::device_properties);
        } else if (!cut_ && key_ == "distributedInfo"sv) {
          distributed_info();
        } else if (!cut_ && key_ == "baseTimeNanoseconds"sv) {
          out_.base_time_ns = 0;  // the last occurrence decides, a non-number one too
          if (j_.peek_value() == Kind::Number)
            out_.base_time_ns = j_.read_number().as_double();
          else
            j_.skip_value();
        } else {
          j_.skip_value();
        }
      }
    } else {
      j_.skip_value();
    }
    j_.expect_end();
  }

 private:
  using ObjectReader = void (Reader::*)();

  // The objects directly inside the value of a top-level member (an array's elements or an object's
  // values) go to `read`; anything else is checked and dropped.
  void members(ObjectReader read) {
    const Kind k = j_.peek_value();
    if (k == Kind::Array) {
      j_.enter_array();
      while (j_.next_element())
        if (j_.peek_value() == Kind::Object)
          (this->*read)();
        else
          j_.skip_value();
    } else if (k == Kind::Object) {
      j_.enter_object();
      std::string key;
      bool cut = false;
      while (j_.next_key(key, cut, 0))
        if (j_.peek_value() == Kind::Object)
          (this->*read)();
        else
          j_.skip_value();
    } else {
      j_.skip_value();
    }
  }

  void event_or_skip() {
    if (j_.peek_value() == Kind::Object)
      event();
    else
      j_.skip_value();
  }

  // One deviceProperties entry: its name (kept in `gpus` when it is a string) and, for every entry, the id,
  // totalGlobalMem and whether it is an AMD device (gpu_props). A key given twice counts by its last value,
  // as in nlohmann's DOM.
  void device_properties() {
    j_.enter_object();
    bool has_name = false, gcn = false;
    std::string name;
    KinetoGpu g;
    while (j_.next_key(key_, cut_)) {
      if (!cut_ && key_ == "name"sv) {
        has_name = j_.peek_value() == Kind::String;
        name.clear();
        if (has_name)
          j_.read_string(name);
        else
          j_.skip_value();
      } else if (!cut_ && key_ == "id"sv) {
        g.id = -1;
        if (j_.peek_value() == Kind::Number) {
          const JsonPull::Number v = j_.read_number();
          if (!v.is_float()) g.id = v.as_int64();
        } else {
          j_.skip_value();
        }
      } else if (!cut_ && key_ == "totalGlobalMem"sv) {
        g.total_global_mem = -1;
        if (j_.peek_value() == Kind::Number) {
          const JsonPull::Number v = j_.read_number();
          if (v.as_double() > 0)
            g.total_global_mem = v.is_float() ? static_cast<std::int64_t>(v.as_double()) : v.as_int64();
        } else {
          j_.skip_value();
        }
      } else {
        if (!cut_ && key_ == "gcnArchName"sv) gcn = true;
        j_.skip_value();
      }
    }
    g.name = has_name ? name : std::string();
    g.amd = gcn || g.name.find("AMD") != std::string::npos || g.name.find("Instinct") != std::string::npos ||
            g.name.find("Radeon") != std::string::npos;
    out_.gpu_props.push_back(std::move(g));
    if (has_name) out_.gpus.push_back(std::move(name));
  }

  // distributedInfo: the rank, world size and backend of a torch.distributed job (the last value counts).
  void distributed_info() {
    if (j_.peek_value() != Kind::Object) return j_.skip_value();
    KinetoDistributed d;
    j_.enter_object();
    while (j_.next_key(key_, cut_)) {
      const Kind k = j_.peek_value();
      std::int64_t* field = cut_                     ? nullptr
                            : key_ == "rank"sv       ? &d.rank
                            : key_ == "world_size"sv ? &d.world_size
                                                     : nullptr;
      if (field) {
        *field = -1;
        if (k == Kind::Number) {
          const JsonPull::Number v = j_.read_number();
          if (!v.is_float() && v.as_int64() >= 0) *field = v.as_int64();
        } else {
          j_.skip_value();
        }
      } else if (!cut_ && key_ == "backend"sv && k == Kind::String) {
        j_.read_string(d.backend, 64);
      } else {
        j_.skip_value();
      }
    }
    out_.distributed = std::move(d);
  }

  // N of "ProfilerStep#N", or -1.
  static std::int64_t step_number(std::string_view name) {
    constexpr std::string_view kPrefix = "ProfilerStep#";
    if (!name.starts_with(kPrefix) || name.size() == kPrefix.size() || name.size() > kPrefix.size() + 12)
      return -1;
    std::int64_t n = 0;
    for (const char c : name.substr(kPrefix.size())) {
      if (c < '0' || c > '9') return -1;
      n = n * 10 + (c - '0');
    }
    return n;
  }

  void arg(Arg& a) {
    a.present = true;
    a.number = j_.peek_value() == Kind::Number;
    if (a.number)
      a.value = j_.read_number();
    else
      j_.skip_value();
  }

  void args(Args& a) {
    a = Args{};
    j_.enter_object();
    while (j_.next_key(key_, cut_)) {
      if (cut_)
        j_.skip_value();
      else if (key_ == "Bytes"sv)
        arg(a.bytes);
      else if (key_ == "Total Allocated"sv)
        arg(a.total_allocated);
      else if (key_ == "Total Reserved"sv)
        arg(a.total_reserved);
      else if (key_ == "Addr"sv)
        arg(a.addr);
      else if (key_ == "Device Type"sv)
        arg(a.device_type);
      else if (key_ == "Device Id"sv)
        arg(a.device_id);
      else
        j_.skip_value();
    }
  }

  void event() {
    // Most events are not [memory]: checked and dropped in one pass, unless their last "name" could be one
    // that is kept, [memory], [OutOfMemory] or a ProfilerStep#N (then read below from the start; an escape
    // anywhere in a name or key counts as could).
    JsonPull::MemberPeek peek;
    peek.key = "name"sv;
    if (j_.scan_in_chunk(&peek)) {
      const bool maybe_kept =
          peek.escaped_key || (peek.found && peek.is_string &&
                               (peek.raw == "[memory]"sv || peek.raw == "[OutOfMemory]"sv ||
                                step_number(peek.raw) >= 0 || peek.raw.find('\\') != std::string_view::npos));
      if (!maybe_kept) {
        j_.skip_scanned();
        ++out_.events;
        return;
      }
    }
    enum { NotString, Other, Memory, Oom, Step } name = NotString;
    std::int64_t step = -1;
    bool has_ts = false, has_args = false;
    Args a;
    j_.enter_object();
    while (j_.next_key(key_, cut_)) {
      const Kind k = j_.peek_value();
      if (!cut_ && key_ == "name"sv) {
        if (k == Kind::String) {
          bool long_name = false;
          j_.read_string(name_, 32, &long_name);
          step = long_name ? -1 : step_number(name_);
          name = long_name                    ? Other
                 : name_ == "[memory]"sv      ? Memory
                 : name_ == "[OutOfMemory]"sv ? Oom
                 : step >= 0                  ? Step
                                              : Other;
        } else {
          name = NotString;
          j_.skip_value();
        }
      } else if (!cut_ && key_ == "ts"sv) {
        // Checked now, converted only for the events kept (most events are not [memory]).
        has_ts = k == Kind::Number;
        if (has_ts)
          j_.read_number_text(ts_);
        else
          j_.skip_value();
      } else if (!cut_ && key_ == "args"sv) {
        has_args = k == Kind::Object;
        if (has_args)
          args(a);
        else
          j_.skip_value();
      } else {
        j_.skip_value();
      }
    }
    ++out_.events;
    if (name == Step && has_ts) out_.steps.emplace_back(step, JsonPull::number_of(ts_).as_double());
    if ((name != Memory && name != Oom) || !has_args) return;
    RawEvent e;
    e.ts = has_ts ? JsonPull::number_of(ts_).as_double() : 0.0;
    e.bytes = a.bytes.or_else(0);
    e.total_allocated = a.total_allocated.or_else(-1);
    e.total_reserved = a.total_reserved.or_else(-1);
    if (a.addr.present) e.has_addr = true, e.addr = a.addr.or_else(0);
    e.oom = name == Oom;
    (name == Memory ? out_.memory_events : out_.oom_events)++;
    out_.groups[{static_cast<int>(a.device_type.or_else(0)), a.device_id.or_else(-1)}].push_back(e);
  }

  JsonPull& j_;
  KinetoJson& out_;
  std::string key_, name_, ts_;
  bool cut_ = false;
};

}  // namespace

KinetoJson read_kineto_json(JsonPull& json) {
  KinetoJson out;
  Reader(json, out).top();
  return out;
}

}  // namespace oomscope::snapshot::detail
