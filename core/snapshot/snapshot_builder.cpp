// PickleTree -> Snapshot: walks the dict by the schema of every version (docs/snapshot-format.md section 2),
// never recursively beyond it, so a hostile tree (cycles through the memo, deep nesting) cannot loop.

#include "core/snapshot/snapshot_builder.h"

#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "core/snapshot/detail/snapshot_extras.h"
#include "core/util/error.h"

namespace oomscope::snapshot {

namespace {

class Builder {
 public:
  Builder(const PickleTree& t, Snapshot& s, ProgressSink& progress, std::stop_token stop,
          TraceEntrySink* sink)
      : t_(t), s_(s), progress_(progress), stop_(std::move(stop)), sink_(sink) {
    s_.frame_lists.emplace_back();  // id 0: no frames
  }

  void build() {
    const Ref root = t_.root();
    if (t_.tag(root) == Tag::List) {
      s_.format = SnapshotFormat::SegmentsOnly;
      read_segments(root);
      return;
    }
    if (!t_.is_dict(root)) not_snapshot("its top level is " + kind(root));
    const auto segments = t_.get(root, "segments");
    if (!segments) not_snapshot("its top-level dict has no 'segments' list");
    if (!t_.is_list(*segments)) damaged("'segments' is " + kind(*segments) + ", not a list");
    read_segments(*segments);
    if (auto traces = t_.get(root, "device_traces")) read_traces(*traces);
    if (auto settings = t_.get(root, "allocator_settings")) read_settings(*settings);
    if (auto ann = t_.get(root, "external_annotations")) read_annotations(*ann);
    read_host_memory(t_, root, s_.host);
    if (sink_) s_.compile_context_entries += sink_->compile_context_entries;
    bool any_history = false, any_address = false;
    for (const Block& b : s_.blocks) any_history |= b.history_count > 0;
    any_address = saw_block_address_;
    s_.format = s_.has_allocator_settings                                 ? SnapshotFormat::V2_3
                : (!any_address && (any_history || !saw_segment_frames_)) ? SnapshotFormat::V2_0
                                                                          : SnapshotFormat::V2_1;
  }

 private:
  [[noreturn]] void not_snapshot(const std::string& why) const {
    throw Error(ErrorKind::NotACapture, s_.path, "is a pickle but not a PyTorch memory snapshot: " + why);
  }
  [[noreturn]] void damaged(const std::string& why) const {
    throw Error(ErrorKind::Damaged, s_.path, "the snapshot is malformed: " + why);
  }
  std::string kind(Ref r) const {
    switch (t_.tag(r)) {
      case Tag::None:
        return "None";
      case Tag::Bool:
        return "a bool";
      case Tag::Int:
        return "an int";
      case Tag::Str:
        return "a str";
      case Tag::List:
        return "a list";
      case Tag::Dict:
        return "a dict";
      case Tag::Tuple:
        return "a tuple";
      default:
        return "a number or bytes";
    }
  }
  void tick() {
    if ((++work_ & 0xffff) == 0) {
      if (stop_.stop_requested()) throw Cancelled(s_.path);
      progress_.report(1.0, "building model");
    }
  }
  std::int64_t int_of(Ref v, const char* what, std::size_t where) const {
    if (auto i = t_.as_int(v)) return *i;
    // A 9-byte pickle integer within 64 bits but at 2^63 or above: no byte count, stream or time is that big.
    if (auto u = t_.as_uint(v))
      damaged(std::string(what) + " " + std::to_string(where) + " has the value " + std::to_string(*u) +
              ", 2^63 or more, where a byte count or another signed 64-bit figure belongs");
    if (auto d = t_.as_number(v)) return static_cast<std::int64_t>(static_cast<std::uint64_t>(*d));
    damaged(std::string(what) + " " + std::to_string(where) + " has a value that is " + kind(v) +
            ", not an integer");
  }
  std::uint64_t addr_of(Ref v, const char* what, std::size_t where) const {
    if (auto i = t_.as_int(v)) return static_cast<std::uint64_t>(*i);
    if (auto u = t_.as_uint(v)) return *u;  // 2^63 and above, exactly (not through a double)
    if (t_.tag(v) == Tag::None) return 0;
    if (auto d = t_.as_number(v)) return static_cast<std::uint64_t>(*d);
    damaged(std::string(what) + " " + std::to_string(where) + " has an address that is " + kind(v));
  }

  // A frames list's id: by its node in a small cache (a list shared through the memo is met again soon),
  // else by its content, which gives the same id (a trace's lists are mostly new lists of shared frames).
  FramesId frames(Ref list) {
    if (!t_.is_list(list) || t_.size(list) == 0) return 0;
    auto& cached = list_cache_[PickleTree::index(list) % list_cache_.size()];
    if (cached.first == PickleTree::index(list)) return cached.second;
    std::vector<std::uint32_t>& ids = ids_scratch_;
    ids.clear();
    t_.for_each(list, [&](Ref f) {
      if (!t_.is_dict(f)) return;
      auto& fcached = frame_cache_[PickleTree::index(f) % frame_cache_.size()];
      if (fcached.first == PickleTree::index(f)) {
        ids.push_back(fcached.second);
        return;
      }
      auto [fit, fadded] = frame_ids_.try_emplace(PickleTree::index(f), 0);
      if (fadded) {
        Frame fr;
        FrameFx fx;
        t_.for_each_pair(f, [&](Ref k, Ref v) {
          const auto key = t_.as_str(k);
          if (!key) return;
          if (*key == "filename")
            fr.filename = std::string(t_.as_str(v).value_or(""));
          else if (*key == "name")
            fr.name = std::string(t_.as_str(v).value_or(""));
          else if (*key == "line")
            fr.line = t_.as_int(v).value_or(0);
          else if (*key == "fx_node_op")
            fx.node_op = std::string(t_.as_str(v).value_or(""));
          else if (*key == "fx_node_name")
            fx.node_name = std::string(t_.as_str(v).value_or(""));
          else if (*key == "fx_original_trace")
            fx.original_trace = std::string(t_.as_str(v).value_or(""));
        });
        // Equal frames are one frame even when the file holds copies (a JSON snapshot shares nothing).
        std::string key = fr.filename;
        key += '\0';
        key += fr.name;
        key += '\0';
        key += std::to_string(fr.line);
        const bool has_fx = !fx.node_op.empty() || !fx.node_name.empty() || !fx.original_trace.empty();
        if (has_fx) key += '\0' + fx.node_op + '\0' + fx.node_name + '\0' + fx.original_trace;
        auto [cit, cadded] =
            frame_by_content_.try_emplace(std::move(key), static_cast<std::uint32_t>(s_.frames.size()));
        if (cadded) {
          if (has_fx) {
            fx.frame = static_cast<std::uint32_t>(s_.frames.size());
            s_.frame_fx.push_back(std::move(fx));
          }
          s_.frames.push_back(std::move(fr));
        }
        fit->second = cit->second;
      }
      fcached = {PickleTree::index(f), fit->second};
      ids.push_back(fit->second);
    });
    auto cit = list_by_content_.find(ids);
    if (cit == list_by_content_.end()) {
      cit = list_by_content_.emplace(ids, static_cast<FramesId>(s_.frame_lists.size())).first;
      s_.frame_lists.push_back(ids);
    }
    cached = {PickleTree::index(list), cit->second};
    return cit->second;
  }

  void read_segments(Ref list) {
    s_.segments.reserve(t_.size(list));
    std::size_t i = 0;
    t_.for_each(list, [&](Ref seg) {
      tick();
      if (!t_.is_dict(seg)) damaged("segment " + std::to_string(i) + " is " + kind(seg) + ", not a dict");
      Segment sg;
      std::optional<Ref> blocks;
      bool have_total = false;
      t_.for_each_pair(seg, [&](Ref k, Ref v) {
        const auto key = t_.as_str(k);
        if (!key) return;
        if (*key == "device")
          sg.device = int_of(v, "segment", i);
        else if (*key == "address")
          sg.address = addr_of(v, "segment", i);
        else if (*key == "total_size")
          sg.total_size = int_of(v, "segment", i), have_total = true;
        else if (*key == "allocated_size")
          sg.allocated_size = int_of(v, "segment", i);
        else if (*key == "active_size")
          sg.active_size = int_of(v, "segment", i);
        else if (*key == "requested_size")
          sg.requested_size = int_of(v, "segment", i);
        else if (*key == "stream")
          sg.stream = t_.as_int(v).value_or(0);
        else if (*key == "segment_type")
          sg.large = t_.as_str(v).value_or("large") != "small";
        else if (*key == "is_expandable")
          sg.is_expandable = t_.as_bool(v).value_or(false);
        else if (*key == "segment_pool_id" && t_.is_list(v) && t_.size(v) == 2) {
          int n = 0;
          t_.for_each(
              v, [&](Ref x) { (n++ ? sg.pool_id.second : sg.pool_id.first) = t_.as_int(x).value_or(0); });
        } else if (*key == "frames")
          sg.frames = frames(v), saw_segment_frames_ = true;
        else if (*key == "blocks")
          blocks = v;
      });
      if (!have_total) damaged("segment " + std::to_string(i) + " has no 'total_size'");
      sg.first_block = static_cast<std::uint32_t>(s_.blocks.size());
      if (blocks) read_blocks(*blocks, sg, i);
      sg.block_count = static_cast<std::uint32_t>(s_.blocks.size()) - sg.first_block;
      s_.segments.push_back(sg);
      ++i;
    });
  }

  void read_blocks(Ref list, const Segment& sg, std::size_t seg_index) {
    std::uint64_t next_addr = sg.address;
    t_.for_each(list, [&](Ref blk) {
      tick();
      if (!t_.is_dict(blk)) damaged("a block of segment " + std::to_string(seg_index) + " is " + kind(blk));
      Block b;
      b.segment = static_cast<std::uint32_t>(s_.segments.size());
      bool have_addr = false, have_req = false, have_frames = false;
      std::optional<Ref> history;
      t_.for_each_pair(blk, [&](Ref k, Ref v) {
        const auto key = t_.as_str(k);
        if (!key) return;
        if (*key == "size")
          b.size = int_of(v, "block of segment", seg_index);
        else if (*key == "requested_size")
          b.requested_size = int_of(v, "block of segment", seg_index), have_req = true;
        else if (*key == "address")
          b.address = addr_of(v, "block of segment", seg_index), have_addr = true;
        else if (*key == "frames")
          b.frames = frames(v), have_frames = true;
        else if (*key == "history")
          history = v;
        else if (*key == "state") {
          b.state = parse_enum(kBlockStateNames, t_.as_str(v).value_or("")).value_or(BlockState::Inactive);
        }
      });
      if (!have_addr)
        b.address = next_addr;
      else
        saw_block_address_ = true;
      next_addr = b.address + static_cast<std::uint64_t>(b.size);
      b.history_begin = static_cast<std::uint32_t>(s_.history.size());
      if (history && t_.is_list(*history)) {
        t_.for_each(*history, [&](Ref h) {
          if (!t_.is_dict(h)) return;
          HistoryEntry e;
          t_.for_each_pair(h, [&](Ref k, Ref v) {
            const auto key = t_.as_str(k);
            if (!key) return;
            if (*key == "addr")
              e.addr = addr_of(v, "history entry of segment", seg_index);
            else if (*key == "real_size")
              e.real_size = t_.as_int(v).value_or(0);
            else if (*key == "frames")
              e.frames = frames(v);
          });
          s_.history.push_back(e);
        });
      }
      b.history_count = static_cast<std::uint32_t>(s_.history.size()) - b.history_begin;
      if (!have_frames && b.history_count) b.frames = s_.history[b.history_begin].frames;
      b.effective_requested = b.requested_size;
      if (!have_req || b.requested_size == 0)
        b.effective_requested = b.history_count ? s_.history[b.history_begin].real_size : b.size;
      s_.blocks.push_back(b);
    });
  }

  Action action_of(Ref v) {
    auto [it, added] = actions_.try_emplace(PickleTree::index(v), Action::Other);
    if (added) it->second = action_named(t_.as_str(v).value_or(""));
    return it->second;
  }

  // A record's frames field holds the list's node index + 1; map it to a FramesId.
  void fix_frames(TraceEntry& te) {
    if (te.frames == 0) return;
    const std::uint32_t node = te.frames - 1;
    if (node != last_node_) {
      last_node_ = node;
      last_id_ = frames(Ref{(static_cast<std::uint64_t>(node) << 3) | static_cast<std::uint64_t>(Tag::List)});
    }
    te.frames = last_id_;
  }

  // True when the device's list is exactly the sink's records, in order (then they are moved, not copied).
  bool list_is_all_records(Ref dev) const {
    if (!sink_ || t_.size(dev) != sink_->records.size() || sink_->records.empty()) return false;
    std::uint32_t expected = 0;
    bool ok = true;
    t_.for_each(dev, [&](Ref e) {
      const auto r = t_.record_of(e);
      ok = ok && r && *r == expected++;
    });
    return ok;
  }

  void read_traces(Ref traces) {
    if (!t_.is_list(traces)) damaged("'device_traces' is " + kind(traces) + ", not a list");
    std::size_t others = 0;
    t_.for_each(traces, [&](Ref dev) {
      auto& out = s_.device_traces.emplace_back();
      if (!t_.is_list(dev)) damaged("'device_traces' holds " + kind(dev) + ", not a list per device");
      if (list_is_all_records(dev)) {
        out = std::move(sink_->records);
        sink_->records = {};
        for (TraceEntry& te : out) {
          tick();
          fix_frames(te);
          if (te.action == Action::Other) ++others;
        }
        return;
      }
      out.reserve(t_.size(dev));
      t_.for_each(dev, [&](Ref e) {
        tick();
        if (auto rec = t_.record_of(e); rec && sink_ && *rec < sink_->records.size()) {
          TraceEntry te = sink_->records[*rec];
          fix_frames(te);
          if (te.action == Action::Other) ++others;
          out.push_back(te);
          return;
        }
        if (!t_.is_dict(e))
          damaged("a trace entry of device " + std::to_string(s_.device_traces.size() - 1) + " is " +
                  kind(e));
        TraceEntry te;
        EntryExtra extra;
        bool have_action = false;
        t_.for_each_pair(e, [&](Ref k, Ref v) {
          const auto key = t_.as_str(k);
          if (!key || key->empty()) return;
          switch ((*key)[0]) {
            case 'a':
              if (*key == "action")
                te.action = action_of(v), have_action = true;
              else if (*key == "addr" && te.action != Action::Oom)
                te.addr = addr_of(v, "trace entry", out.size());
              break;
            case 's':
              if (*key == "size")
                te.size = int_of(v, "trace entry", out.size());
              else if (*key == "stream")
                te.stream = stream_index(s_, t_.as_int(v).value_or(0));
              break;
            case 't':
              if (*key == "time_us") te.time_us = t_.as_int(v).value_or(-1);
              break;
            case 'f':
              if (*key == "frames")
                te.frames = frames(v);
              else if (*key == "forward_frames")
                extra.forward_frames = frames(v);
              break;
            case 'c':
              if (*key == "compile_context") {
                ++s_.compile_context_entries;
                const auto text = t_.as_str(v).value_or("");
                if (text != "N/A") extra.compile_context = intern(text);
              }
              break;
            case 'u':
              if (*key == "user_metadata") extra.user_metadata = intern(t_.as_str(v).value_or(""));
              break;
            case 'd':
              if (*key == "device_free") te.addr = addr_of(v, "trace entry", out.size()), device_free_ = true;
              break;
            default:
              break;
          }
        });
        if (!have_action)
          damaged("trace entry " + std::to_string(out.size()) + " of device " +
                  std::to_string(s_.device_traces.size() - 1) + " has no 'action'");
        if (te.action == Action::Other) ++others;
        if (extra.compile_context || extra.user_metadata || extra.forward_frames) {
          extra.device = static_cast<std::uint32_t>(s_.device_traces.size() - 1);
          extra.index = static_cast<std::uint32_t>(out.size());
          s_.entry_extras.push_back(extra);
        }
        out.push_back(te);
      });
    });
    if (others)
      s_.notes.push_back(std::to_string(others) +
                         " trace entries have an action oomscope does not know; they are listed as 'other' "
                         "and not replayed");
  }

  std::string text_of(Ref v, int depth = 0) const {
    if (auto b = t_.as_bool(v)) return *b ? "True" : "False";
    if (auto i = t_.as_int(v)) return std::to_string(*i);
    if (auto d = t_.as_number(v)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", *d);
      if (std::strtod(buf, nullptr) != *d) std::snprintf(buf, sizeof buf, "%.17g", *d);
      std::string text = buf;
      if (text.find_first_of(".eni") == std::string::npos) text += ".0";  // Python's repr of a float
      return text;
    }
    if (auto s = t_.as_str(v)) return "'" + std::string(*s) + "'";
    if (t_.tag(v) == Tag::None) return "None";
    if (t_.is_dict(v) && depth < 2) {
      std::string out = "{";
      t_.for_each_pair(v, [&](Ref k, Ref x) {
        if (out.size() > 1) out += ", ";
        out += text_of(k, depth + 1) + ": " + text_of(x, depth + 1);
      });
      return out + "}";
    }
    return kind(v);
  }

  void read_settings(Ref settings) {
    if (!t_.is_dict(settings)) return;
    s_.has_allocator_settings = true;
    t_.for_each_pair(settings, [&](Ref k, Ref v) {
      const std::string key(t_.as_str(k).value_or("?"));
      if (key == "expandable_segments") s_.expandable_segments = t_.as_bool(v).value_or(false);
      s_.allocator_settings.emplace_back(key, text_of(v));
    });
  }

  // A trace entry's compile_context or user_metadata, stored once per distinct text ("" is id 0).
  TextId intern(std::string_view text) {
    if (text.empty()) return 0;
    auto [it, added] = text_ids_.try_emplace(std::string(text), static_cast<TextId>(s_.texts.size()));
    if (added) s_.texts.emplace_back(text);
    return it->second;
  }

  void read_annotations(Ref list) {
    t_.for_each(list, [&](Ref a) {
      if (!t_.is_dict(a)) return;
      Annotation an;
      t_.for_each_pair(a, [&](Ref k, Ref v) {
        const auto key = t_.as_str(k).value_or("");
        if (key == "name")
          an.name = std::string(t_.as_str(v).value_or(""));
        else if (key == "stage")
          an.stage = std::string(t_.as_str(v).value_or(""));
        else if (key == "device")
          an.device = t_.as_int(v).value_or(0);
        else if (key == "time_us")
          an.time_us = t_.as_int(v).value_or(-1);
      });
      s_.annotations.push_back(std::move(an));
    });
  }

  const PickleTree& t_;
  Snapshot& s_;
  ProgressSink& progress_;
  std::stop_token stop_;
  std::uint64_t work_ = 0;
  bool saw_block_address_ = false, saw_segment_frames_ = false, device_free_ = false;
  // Node -> id caches in front of the maps (~0: empty slot).
  std::vector<std::pair<std::uint64_t, FramesId>> list_cache_ =
      std::vector<std::pair<std::uint64_t, FramesId>>(4096, {~0ull, 0});
  std::vector<std::pair<std::uint64_t, std::uint32_t>> frame_cache_ =
      std::vector<std::pair<std::uint64_t, std::uint32_t>>(4096, {~0ull, 0});
  std::vector<std::uint32_t> ids_scratch_;
  std::unordered_map<std::uint64_t, std::uint32_t> frame_ids_;
  struct IdsHash {
    std::size_t operator()(const std::vector<std::uint32_t>& v) const noexcept {
      std::uint64_t h = 1469598103934665603ull;
      for (std::uint32_t x : v) h = (h ^ x) * 1099511628211ull;
      return static_cast<std::size_t>(h);
    }
  };
  std::unordered_map<std::string, std::uint32_t> frame_by_content_;
  std::unordered_map<std::vector<std::uint32_t>, FramesId, IdsHash> list_by_content_;
  std::unordered_map<std::uint64_t, Action> actions_;
  std::unordered_map<std::string, TextId> text_ids_;
  TraceEntrySink* sink_ = nullptr;
  std::uint32_t last_node_ = 0xffffffffu;
  FramesId last_id_ = 0;
};

enum Field {
  kAction,
  kAddr,
  kSize,
  kStream,
  kTime,
  kFrames,
  kDeviceFree,
  kCompileContext,
  kUserMetadata,
  kIgnored,
  kUnknown
};

}  // namespace

Action action_named(std::string_view s) { return parse_enum(kActionNames, s).value_or(Action::Other); }

std::uint16_t stream_index(Snapshot& snap, std::int64_t stream) {
  for (std::size_t i = 0; i < snap.streams.size(); ++i)
    if (snap.streams[i] == stream) return static_cast<std::uint16_t>(i);
  if (snap.streams.size() >= 65536) return 0;
  snap.streams.push_back(stream);
  return static_cast<std::uint16_t>(snap.streams.size() - 1);
}

int TraceEntrySink::field_of(const PickleTree& tree, Ref key) {
  if (key.tag() != Tag::Str) return kUnknown;
  const std::uint64_t node = PickleTree::index(key);
  auto& cached = key_cache_[node % key_cache_.size()];
  if (cached.first == node) return cached.second;
  for (const auto& [n, f] : keys_)
    if (n == node) {
      cached = {node, f};
      return f;
    }
  const std::string_view k = *tree.as_str(key);
  int f = kUnknown;
  if (k == "action")
    f = kAction;
  else if (k == "addr")
    f = kAddr;
  else if (k == "size")
    f = kSize;
  else if (k == "stream")
    f = kStream;
  else if (k == "time_us")
    f = kTime;
  else if (k == "frames")
    f = kFrames;
  else if (k == "device_free")
    f = kDeviceFree;
  else if (k == "compile_context")
    f = kCompileContext;
  else if (k == "user_metadata")
    f = kUserMetadata;
  else if (k == "internal_metadata" || k == "pool_id" || k == "cpp_frames")
    f = kIgnored;
  if (keys_.size() < 64) keys_.emplace_back(node, f);
  cached = {node, f};
  return f;
}

bool TraceEntrySink::take(const PickleTree& tree, const Ref* pairs, std::size_t count,
                          std::uint32_t& record) {
  if (count > 32 || records.size() >= 0xfffffff0u) return false;
  TraceEntry te;
  bool have_action = false, have_device_free = false, saw_compile_context = false;
  std::uint64_t device_free = 0;
  for (std::size_t i = 0; i + 1 < count; i += 2) {
    const Ref v = pairs[i + 1];
    const int field = field_of(tree, pairs[i]);
    switch (field) {
      case kAction: {
        if (v.tag() != Tag::Str) return false;
        const std::uint64_t node = PickleTree::index(v);
        Action a = Action::Other;
        bool found = false;
        if (last_action_.first == node) {
          a = last_action_.second, found = true;
        } else {
          for (const auto& [n, act] : actions_)
            if (n == node) a = act, found = true;
        }
        if (!found) {
          a = action_named(*tree.as_str(v));
          if (actions_.size() < 64) actions_.emplace_back(node, a);
        }
        if (found) last_action_ = {node, a};
        te.action = a;
        have_action = true;
        break;
      }
      case kAddr:
      case kSize:
      case kStream:
      case kTime:
      case kDeviceFree: {
        const auto x = tree.as_int(v);
        if (!x) return false;
        const int f = field;
        if (f == kAddr)
          te.addr = static_cast<std::uint64_t>(*x);
        else if (f == kSize)
          te.size = *x;
        else if (f == kStream)
          te.stream = stream_index(snap_, *x);
        else if (f == kTime)
          te.time_us = *x;
        else
          device_free = static_cast<std::uint64_t>(*x), have_device_free = true;
        break;
      }
      case kFrames:
        if (v.tag() != Tag::List || PickleTree::index(v) >= 0xfffffffeull) return false;
        te.frames = static_cast<FramesId>(PickleTree::index(v) + 1);
        break;
      case kCompileContext:
        // 'N/A' (outside compiled regions) is counted here; any other text goes to the full reader.
        if (v.tag() != Tag::Str || *tree.as_str(v) != "N/A") return false;
        saw_compile_context = true;
        break;
      case kUserMetadata:
        if (v.tag() != Tag::Str || !tree.as_str(v)->empty()) return false;
        break;
      case kIgnored:
        break;
      default:
        return false;
    }
  }
  if (!have_action) return false;
  if (have_device_free) te.addr = device_free;
  compile_context_entries += saw_compile_context;
  record = static_cast<std::uint32_t>(records.size());
  if ((records.size() & 0xffff) == 0)  // every 2 MiB of records
    warm_reserved(records.data(), records.size() * sizeof(TraceEntry),
                  records.capacity() * sizeof(TraceEntry), warmed_);
  records.push_back(te);
  return true;
}

void build_snapshot(const PickleTree& tree, Snapshot& out, ProgressSink& progress, std::stop_token stop,
                    TraceEntrySink* sink) {
  Builder(tree, out, progress, std::move(stop), sink).build();
}

}  // namespace oomscope::snapshot
