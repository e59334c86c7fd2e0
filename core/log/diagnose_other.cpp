// Diagnosis of BFC allocator dumps and warnings, TensorFlow's OOM errors, XLA allocation failures, the
// stream executor's CUDA_ERROR_OUT_OF_MEMORY, vLLM's KV-cache failures and NCCL's allocation failures.

#include "core/log/detail/diagnose_other.h"

#include <algorithm>

#include "core/log/detail/diagnosis_helpers.h"

namespace oomscope::log::detail {

namespace {

using analysis::Provenance;

void diagnose_bfc(const Message& m, MessageDiagnosis& d) {
  const auto R = value(m, "rounded") ? value(m, "rounded") : value(m, "requested");
  const auto limit = value(m, "limit"), in_use = value(m, "in_use");
  d.bar.request = R.value_or(0);
  d.bar.capacity = limit.value_or(0);
  d.bar.capacity_name = "the allocator's Limit";
  d.bar.framework_allocated = in_use.value_or(0);
  if (limit && in_use) {
    const std::int64_t free = *limit - *in_use;
    derive(d, "pool_free", free, "Limit - InUse (read)");
    d.bar.free = std::max<std::int64_t>(free, 0);
    if (R && free >= *R) {
      auto l = line("bfc-fragmentation", Provenance::Derived,
                    "The pool had " + bytes(free) + " free (Limit - InUse), enough for the " + bytes(*R) +
                        " requested, but not in one chunk: the pool is fragmented.");
      l.fixes.push_back(fix("TF_GPU_ALLOCATOR=cuda_malloc_async (CUDA's own pool allocator)", free,
                            "at most the free part of the pool (derived)"));
      d.lines.push_back(std::move(l));
    } else if (R) {
      d.lines.push_back(line("bfc-full", Provenance::Derived,
                             "The pool is full for this request: InUse " + read(m, "in_use") + " of Limit " +
                                 read(m, "limit") + " bytes leaves " + bytes(free) + ", less than the " +
                                 bytes(*R) + " requested.",
                             ""));
    } else {
      d.lines.push_back(line("bfc-pool", Provenance::Derived,
                             "The pool: InUse " + read(m, "in_use") + " of Limit " + read(m, "limit") +
                                 " bytes, " + bytes(free) +
                                 " free (Limit - InUse); the failing request is not in the log, so "
                                 "whether it fitted in that cannot be told.",
                             ""));
    }
  } else if (R) {
    auto l = line("bfc-request", Provenance::Read,
                  "The allocator " + (m.device.empty() ? std::string("") : "(" + m.device + ") ") +
                      "could not find " + read(m, "requested") + " for " +
                      (m.op.empty() ? std::string("an op") : "op " + m.op) +
                      "; the log does not show its pool's "
                      "limit or use.");
    d.lines.push_back(std::move(l));
  }
  if (!limit && !R && m.chunks.empty())
    d.lines.push_back(
        line("bfc-dump-only", Provenance::Read,
             "Only part of a BFC allocator dump is in the log: neither the failing request nor the "
             "pool's Stats, so nothing about the failure can be computed.",
             ""));
  if (!m.chunks.empty()) {
    const auto big =
        std::max_element(m.chunks.begin(), m.chunks.end(), [](const BfcChunks& a, const BfcChunks& b) {
          return a.chunk_bytes * a.count < b.chunk_bytes * b.count;
        });
    std::string finding = "The largest in-use chunks: " + std::to_string(big->count) + " of " +
                          bytes(big->chunk_bytes) + " each, " + bytes(big->chunk_bytes * big->count) +
                          " (derived)";
    if (const auto sum = value(m, "in_use_chunks_total"))
      finding += ", of " + read(m, "in_use_chunks_total") + " in use in all";
    d.lines.push_back(line("bfc-chunks", Provenance::Derived, finding + ".", ""));
  }
  if (!m.tensor_shape.empty())
    d.lines.push_back(line("tensor-shape", Provenance::Read,
                           "The op that failed was allocating a tensor of shape" + m.tensor_shape + ".", ""));
}

}  // namespace

void diagnose_other(const Message& m, MessageDiagnosis& d) {
  switch (m.kind) {
    case MessageKind::Bfc:
      diagnose_bfc(m, d);
      return;
    case MessageKind::BfcWarning:
      d.lines.push_back(
          line("not-a-failure", Provenance::Read,
               "Not an out-of-memory error: the BFC allocator could not find " + read(m, "requested") +
                   " at once and says itself that this is not a failure; it went on (more memory "
                   "might only have made it faster).",
               ""));
      return;
    case MessageKind::TensorflowOom:
      d.lines.push_back(line("tensor-shape", Provenance::Read,
                             "TensorFlow could not allocate a tensor of shape" + m.tensor_shape +
                                 (m.device.empty() ? "" : " on " + m.device) + ".",
                             ""));
      return;
    case MessageKind::XlaAllocation:
    case MessageKind::StreamExecutor: {
      d.bar.request = value(m, "requested").value_or(0);
      auto l = line(
          m.kind == MessageKind::XlaAllocation ? "xla-allocation" : "driver-allocation", Provenance::Read,
          std::string(m.kind == MessageKind::XlaAllocation ? "XLA" : "The CUDA driver") +
              " could not allocate " + read(m, "requested") + (m.device.empty() ? "" : " on " + m.device) +
              "; the log does not say how much was in use or free.");
      l.fixes.push_back(
          fix("Keep fewer arrays alive at this point (batch, model size), or give XLA more of the "
              "device (XLA_PYTHON_CLIENT_MEM_FRACTION when JAX preallocates)",
              std::nullopt, "the log has no breakdown"));
      d.lines.push_back(std::move(l));
      return;
    }
    case MessageKind::VllmKvCache: {
      const auto A = value(m, "max_seq_len"), B = value(m, "kv_cache_tokens"), K = value(m, "kv_cache_size");
      if (A && B) {
        auto l = line("kv-cache-too-small", Provenance::Read,
                      "The model's max_model_len (" + std::to_string(*A) +
                          " tokens) is more than the KV cache holds (" + std::to_string(*B) +
                          " tokens): one full-length request would not fit.");
        if (K && *B > 0) {
          const std::int64_t needed = static_cast<std::int64_t>(
              static_cast<double>(*K) * static_cast<double>(*A) / static_cast<double>(*B));
          derive(d, "kv_cache_needed", needed, "kv_cache_size x max seq len / KV cache tokens (read)");
          l.cause = "The KV cache got " + read(m, "kv_cache_size") + "; " + std::to_string(*A) +
                    " tokens need about " + bytes(needed) + " (derived).";
        }
        l.fixes.push_back(fix("--max-model-len " + std::to_string(*B) + " (or less)", std::nullopt,
                              "fits the cache as it is"));
        l.fixes.push_back(fix("A higher --gpu-memory-utilization, or a smaller (quantised) model",
                              std::nullopt, "more memory for the KV cache"));
        d.lines.push_back(std::move(l));
      } else {
        auto l =
            line("no-kv-cache", Provenance::Read,
                 "vLLM found no GPU memory for a single KV-cache block after loading the model" +
                     (value(m, "weights") ? " (weights " + read(m, "weights") + ")" : std::string("")) + ".");
        l.fixes.push_back(
            fix("A higher --gpu-memory-utilization, a smaller max_model_len / max_num_seqs, or a "
                "smaller (quantised) model",
                std::nullopt, "the log does not give the device's size"));
        d.lines.push_back(std::move(l));
      }
      return;
    }
    case MessageKind::Nccl: {
      auto l =
          line("nccl-alloc", Provenance::Read,
               "NCCL could not allocate " +
                   (value(m, "requested") ? read(m, "requested") + " bytes" : std::string("its buffers")) +
                   " of device memory" + (m.source.empty() ? "" : " (" + m.source + ")") +
                   ": the device was already full when NCCL set up its connections.");
      l.fixes.push_back(
          fix("Create the process group and run a first collective before the model fills the device, "
              "or leave room (smaller batch); NCCL_BUFFSIZE lowers NCCL's buffers",
              std::nullopt, "the log does not say what holds the device"));
      d.lines.push_back(std::move(l));
      return;
    }
    default:
      return;
  }
}

}  // namespace oomscope::log::detail
