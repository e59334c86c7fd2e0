// The log reader on the shared logs (tests/data/logs, figures as tests/data/tools/read_oom_logs.py reads
// them) and on hand-written text: every kind, wrapped and prefixed lines, chunk boundaries, long lines,
// NUL bytes, binary data, cancellation.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/log/log.h"
#include "core/util/error.h"

namespace oomscope::log {
namespace {

std::string data(const std::string& name) { return std::string(OOMSCOPE_TEST_DATA) + "/logs/" + name; }

LogFile read(const std::string& name) {
  NullProgress none;
  return read_log(data(name), none);
}

std::int64_t fig(const Message& m, std::string_view key) {
  const Figure* f = m.figure(key);
  return f ? f->value : -1;
}

std::int64_t GiB(double x) { return std::llround(x * (1LL << 30)); }
std::int64_t MiB(double x) { return std::llround(x * (1LL << 20)); }

TEST(LogReader, TorchWordingsOfEveryGeneration) {
  const LogFile old = read("torch-cuda_StructureFlow_35.log");  // torch <= 1.3, "cached"
  ASSERT_EQ(old.messages.size(), 1u);
  EXPECT_EQ(old.messages[0].kind, MessageKind::PytorchCuda);
  EXPECT_EQ(old.messages[0].wording, "cached");
  EXPECT_EQ(fig(old.messages[0], "requested"), GiB(8.13));
  EXPECT_EQ(fig(old.messages[0], "reserved_unallocated"), MiB(32.43));

  const LogFile mid = read("torch-cuda_AnimateDiff_312.log");  // 1.4 to 2.0
  ASSERT_EQ(mid.messages.size(), 1u);
  EXPECT_EQ(mid.messages[0].wording, "reserved-in-total");
  EXPECT_EQ(fig(mid.messages[0], "reserved"), GiB(39.59));
  EXPECT_EQ(mid.messages[0].exception, "RuntimeError");

  const LogFile capacty = read("torch-cuda_GenerateU_10.log");  // 2.1, misspelt
  ASSERT_EQ(capacty.messages.size(), 1u);
  EXPECT_EQ(fig(capacty.messages[0], "capacity"), GiB(14.75));
  EXPECT_EQ(fig(capacty.messages[0], "process_20398_in_use"), GiB(14.52));
  EXPECT_EQ(capacty.messages[0].exception, "torch.cuda.OutOfMemoryError");

  const LogFile hip = read("torch-hip_TheRock_2118.log");  // allowed cap, private pools
  ASSERT_EQ(hip.messages.size(), 1u);
  EXPECT_EQ(hip.messages[0].kind, MessageKind::PytorchHip);
  EXPECT_EQ(fig(hip.messages[0], "allowed"), GiB(1.05));
  EXPECT_EQ(fig(hip.messages[0], "private_pools"), MiB(17.0));
  EXPECT_EQ(fig(hip.messages[0], "allocated"), MiB(1017.01));
}

TEST(LogReader, WrappedMessageIsJoined) {
  const LogFile l = read("torch-cuda_RecDiff_4.log");
  ASSERT_EQ(l.messages.size(), 1u);
  EXPECT_EQ(l.messages[0].line, 1);
  EXPECT_EQ(l.messages[0].end_line, 2);
  EXPECT_EQ(fig(l.messages[0], "free"), 0);
  EXPECT_EQ(fig(l.messages[0], "reserved"), GiB(9.23));
  EXPECT_TRUE(l.messages[0].complete);
}

TEST(LogReader, MpsDividesByPowersOfTwoForGB) {
  const LogFile gb = read("torch-mps_clip-interrogator-ext_74.log");
  ASSERT_EQ(gb.messages.size(), 1u);
  EXPECT_EQ(fig(gb.messages[0], "max_allowed"), GiB(6.77));
  EXPECT_EQ(fig(gb.messages[0], "requested"), MiB(459.07));
  EXPECT_EQ(gb.messages[0].allocation_pool, "private");
  const LogFile shared = read("handmade_vllm_mps_shared.log");
  bool seen = false;
  for (const Message& m : shared.messages)
    if (m.kind == MessageKind::PytorchMps) {
      seen = true;
      EXPECT_EQ(m.allocation_pool, "shared");
      EXPECT_EQ(fig(m, "other_allocations"), 512 * 1024);
    }
  EXPECT_TRUE(seen);
}

TEST(LogReader, XlaGpuDumpWithBuffers) {
  const LogFile l = read("xla-gpu_jax_13428.log");
  ASSERT_EQ(l.messages.size(), 1u);
  const Message& m = l.messages[0];
  EXPECT_EQ(m.kind, MessageKind::XlaGpu);
  EXPECT_EQ(fig(m, "requested"), 6291456);
  EXPECT_EQ(fig(m, "total"), MiB(12));
  ASSERT_EQ(m.buffers.size(), 2u);
  EXPECT_EQ(m.buffers[0].shape, "f32[4096,128,3]");
  EXPECT_EQ(m.buffers[0].source_line, 689);
  EXPECT_TRUE(m.buffers[1].entry_parameter);
  EXPECT_EQ(m.buffers[1].size.value, 384 * 1024);
}

TEST(LogReader, RayPrefixedDumpWithoutItsRequestLine) {
  const LogFile l = read("xla-gpu_alpa_759.log");
  ASSERT_EQ(l.messages.size(), 1u);
  const Message& m = l.messages[0];
  EXPECT_EQ(m.source, "MeshHostWorker pid 489");
  EXPECT_FALSE(m.complete);
  EXPECT_EQ(fig(m, "temp_fragmentation"), 0);
  EXPECT_EQ(fig(m, "parameters"), GiB(7.78));
  ASSERT_EQ(m.buffers.size(), 1u);
  EXPECT_EQ(m.buffers[0].shape, "f32[250880,4096]");
}

TEST(LogReader, TpuCompileReportAndRowsBeforeItsTrigger) {
  const LogFile l = read("xla-tpu_EasyDeL_142.log");
  ASSERT_EQ(l.messages.size(), 1u);
  EXPECT_EQ(fig(l.messages[0], "used"), GiB(30.21));
  EXPECT_EQ(fig(l.messages[0], "usage_arguments"), GiB(15.90));
  EXPECT_EQ(fig(l.messages[0], "program_hlo_temp_fragmentation"), MiB(62.60));
  const LogFile trax = read("xla-tpu_trax_1343.log");  // starts mid "Total hbm usage" block
  ASSERT_EQ(trax.messages.size(), 1u);
  EXPECT_EQ(trax.messages[0].line, 1);
  EXPECT_EQ(fig(trax.messages[0], "usage_program"), GiB(97.92));
  EXPECT_EQ(fig(trax.messages[0], "usage_arguments"), 0);
  const LogFile pad = read("xla-tpu_pytorch-xla_3041.log");
  ASSERT_EQ(pad.messages.size(), 1u);
  ASSERT_EQ(pad.messages[0].buffers.size(), 2u);
  ASSERT_TRUE(pad.messages[0].buffers[1].padding_extra);
  EXPECT_EQ(pad.messages[0].buffers[1].padding_expansion, "2.0x");
}

TEST(LogReader, RuntimeReservePrintedTwiceIsOneMessage) {
  const LogFile l = read("other_pytorch-xla_3470.log");
  ASSERT_EQ(l.messages.size(), 1u);
  EXPECT_EQ(l.messages[0].wording, "runtime-reserve");
  ASSERT_EQ(l.messages[0].notes.size(), 1u);
  EXPECT_EQ(l.messages[0].notes[0], "printed again at line 8");
}

TEST(LogReader, BfcWarningIsNotAnOutOfMemoryError) {
  const LogFile l = read("bfc_thera_10.log");
  ASSERT_EQ(l.messages.size(), 3u);
  for (const Message& m : l.messages) EXPECT_EQ(m.kind, MessageKind::BfcWarning);
  EXPECT_FALSE(l.first_oom());
  EXPECT_NE(l.looks_like.find("3 BFC allocator warnings"), std::string::npos);
}

TEST(LogReader, BfcDumpWithStatsAndTheOpsError) {
  const LogFile l = read("handmade_xla_replica_and_bfc_stats.log");
  ASSERT_EQ(l.messages.size(), 3u);
  EXPECT_EQ(l.messages[0].kind, MessageKind::StreamExecutor);
  EXPECT_EQ(fig(l.messages[0], "requested"), 4190066688LL);
  EXPECT_EQ(l.messages[1].kind, MessageKind::Bfc);
  EXPECT_EQ(fig(l.messages[1], "limit"), 4294967296LL);
  EXPECT_EQ(fig(l.messages[1], "in_use"), 3221225472LL);
  EXPECT_EQ(l.messages[1].tensor_shape, "[16384,32768]");
  EXPECT_EQ(l.messages[2].kind, MessageKind::XlaGpu);
  EXPECT_EQ(l.messages[2].wording, "replica-execution");
  EXPECT_EQ(fig(l.messages[2], "requested"), 1LL << 30);
}

TEST(LogReader, RanksAreSourcesAndTheFirstIsNamed) {
  const LogFile l = read("handmade_torchrun_two_ranks_crlf.log");
  ASSERT_EQ(l.messages.size(), 2u);
  EXPECT_EQ(l.messages[0].source, "rank 0");
  EXPECT_EQ(l.messages[1].source, "rank 1");
  EXPECT_EQ(l.messages[1].device, "GPU 1");
  EXPECT_EQ(l.sources(), (std::vector<std::string>{"rank 0", "rank 1"}));
  ASSERT_TRUE(l.first_oom());
  EXPECT_EQ(*l.first_oom(), 0u);
  EXPECT_EQ(l.messages[0].exception, "torch.OutOfMemoryError");  // colour codes around it removed
  EXPECT_EQ(fig(l.messages[1], "process_4242_in_use"), GiB(10));
}

TEST(LogReader, MemorySummaryTable) {
  const LogFile l = read("handmade_memory_summary.log");
  ASSERT_EQ(l.messages.size(), 2u);
  const Message& s = l.messages[1];
  EXPECT_EQ(s.kind, MessageKind::PytorchMemorySummary);
  EXPECT_EQ(fig(s, "ooms"), 58);
  EXPECT_EQ(fig(s, "alloc_retries"), 66);
  EXPECT_EQ(fig(s, "allocated_current"), 14935LL << 20);
  EXPECT_EQ(fig(s, "reserved_peak"), 15560LL << 20);
  EXPECT_EQ(fig(s, "allocations_peak"), 1310);
  EXPECT_TRUE(is_out_of_memory(s));
}

TEST(LogReader, ServingAndCommunicationStacks) {
  const LogFile v = read("other_vllm_10517.log");
  ASSERT_EQ(v.messages.size(), 1u);
  EXPECT_EQ(fig(v.messages[0], "max_seq_len"), 29000);
  EXPECT_EQ(fig(v.messages[0], "kv_cache_tokens"), 23648);
  EXPECT_EQ(fig(v.messages[0], "kv_cache_size"), GiB(2.89));
  const LogFile q = read("other_QAnything_302.log");
  ASSERT_EQ(q.messages.size(), 1u);
  EXPECT_EQ(q.messages[0].wording, "no-gpu-blocks");
  const LogFile n = read("other_nccl_1235.log");
  ASSERT_EQ(n.messages.size(), 1u);
  EXPECT_EQ(fig(n.messages[0], "requested"), 6291456);
  EXPECT_EQ(n.messages[0].source, "ng30903 pid 3063028");
}

TEST(LogReader, TextWithoutAMessage) {
  const LogFile l = read("handmade_no_oom.log");
  EXPECT_TRUE(l.messages.empty());
  EXPECT_EQ(l.looks_like, "a Python traceback without an out-of-memory error");
  EXPECT_EQ(l.lines, 5);
  // Prose that names the error without its figures is not a message.
  EXPECT_TRUE(read_log_text("if you see CUDA out of memory, lower the batch\n", "t").messages.empty());
  EXPECT_EQ(read_log_text("\x01\x02\x03\x04\x05\x06\x07\x08", "b").looks_like, "binary data, not a text log");
}

const std::string kCuda =
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "7.50 GiB of which 1.00 GiB is free. Of the allocated memory 6.00 GiB is allocated by PyTorch, and "
    "100.00 MiB is reserved by PyTorch but unallocated.";

TEST(LogReader, MessagesAcrossChunkBoundariesAndAfterALongLine) {
  // About 9 MiB: filler lines of odd lengths with a message every 997 of them, so that some messages
  // straddle the boundaries of the reader's chunks.
  std::string text;
  int expected = 0;
  std::int64_t line = 0;
  std::vector<std::int64_t> lines;
  for (int i = 0; i < 9000; ++i) {
    text += std::string(1000 + i % 7, 'x') + "\n";
    ++line;
    if (i % 997 == 0) {
      text += kCuda + "\n";
      lines.push_back(++line);
      ++expected;
    }
  }
  // A line longer than kMaxLineBytes, with an OOM message at its start, and another one after it; each with
  // its own figures (the same message again within 50 lines is folded into the first as a repeat).
  std::string first_long = kCuda, after_long = kCuda;
  first_long.replace(first_long.find("1.00 GiB is free"), 4, "1.25");
  after_long.replace(after_long.find("1.00 GiB is free"), 4, "1.50");
  text += first_long + std::string(kMaxLineBytes * 3, 'y') + "\n" + after_long + "\n";
  lines.push_back(line + 1);
  lines.push_back(line + 2);
  expected += 2;
  const LogFile l = read_log_text(text, "big");
  ASSERT_EQ(l.messages.size(), static_cast<std::size_t>(expected));
  for (std::size_t i = 0; i < l.messages.size(); ++i) {
    EXPECT_EQ(l.messages[i].line, lines[i]);
    EXPECT_EQ(fig(l.messages[i], "requested"), 2LL << 30);
    EXPECT_EQ(fig(l.messages[i], "reserved_unallocated"), MiB(100));
  }
  EXPECT_EQ(l.long_lines, 1);
  EXPECT_EQ(l.lines, line + 2);
}

TEST(LogReader, NulBytesAndInvalidUtf8AreTolerated) {
  std::string message =
      "CUDA out of memory. Tried to allocate 1.00 GiB (GPU 0; 2.00 GiB total capacity; 1.00 GiB already "
      "allocated; 0 bytes free; 1.50 GiB reserved in total by PyTorch)\n";
  message.insert(11, 1, '\0');  // "CUDA out of\0 memory."
  const std::string text = "\xff\xfe garbage \x80\n" + message;
  const LogFile l = read_log_text(text, "nul");
  EXPECT_TRUE(l.nul_bytes);
  ASSERT_EQ(l.messages.size(), 1u);
  EXPECT_EQ(fig(l.messages[0], "reserved"), GiB(1.5));
}

// The NUL check rides on the passes that count lines and parse them (log_reader.cpp): a NUL is seen wherever
// it lies (between anchors, in a parsed line, in the skipped rest of a long line, in an unfinished last
// line, at a 4 MiB chunk's edge), and a file without one is not said to hold one.
TEST(LogReader, NulBytesAreSeenWhereverTheyLie) {
  const std::string filler = std::string(200, 'a') + "\n";
  std::string plain;
  while (plain.size() < (9u << 20)) plain += filler;  // more than two of the reader's 4 MiB chunks
  plain += kCuda + "\n" + kCuda + std::string(kMaxLineBytes * 2, 'y') + "\n" + "tail without newline";
  const LogFile clean = read_log_text(plain, "clean");
  EXPECT_FALSE(clean.nul_bytes);
  ASSERT_FALSE(clean.messages.empty());
  const std::size_t anchor_line = plain.find(kCuda);
  const std::size_t long_tail = plain.find(std::string(100, 'y')) + kMaxLineBytes + 10;
  for (const std::size_t at : {std::size_t{0}, std::size_t{4} << 20, (std::size_t{4} << 20) - 1,
                               std::size_t{777}, anchor_line + 3, long_tail, plain.size() - 1}) {
    std::string text = plain;
    const bool was_newline = text[at] == '\n';
    text[at] = '\0';
    const LogFile l = read_log_text(text, "nul");
    EXPECT_TRUE(l.nul_bytes) << "a NUL at byte " << at;
    EXPECT_EQ(l.lines, clean.lines - (was_newline ? 1 : 0)) << "a NUL at byte " << at;
  }
}

TEST(LogReader, StopTokenCancels) {
  const std::string path = (std::filesystem::temp_directory_path() / "oomscope_log_cancel.log").string();
  {
    std::ofstream out(path);
    out << std::string(1 << 20, 'z') << "\n" << kCuda << "\n";
  }
  std::stop_source stop;
  stop.request_stop();
  NullProgress none;
  EXPECT_THROW(read_log(path, none, stop.get_token()), Cancelled);
  std::filesystem::remove(path);
}

TEST(LogReader, ErrorsNameTheFile) {
  NullProgress none;
  try {
    read_log(data("no-such.log"), none);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotFound);
    EXPECT_NE(std::string(e.what()).find("no-such.log"), std::string::npos);
  }
  try {
    read_log(std::string(OOMSCOPE_TEST_DATA) + "/logs", none);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotAFile);
  }
}

TEST(LogReader, HasOomMarker) {
  EXPECT_TRUE(has_oom_marker(kCuda));
  EXPECT_FALSE(
      has_oom_marker("Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.01GiB with "
                     "freed_by_count=0. The caller indicates that this is not a failure"));
  EXPECT_FALSE(has_oom_marker("hello"));
}

}  // namespace
}  // namespace oomscope::log
