// The log report as text, and `info`'s list of messages (log_text.h).

#include "core/log/log_text.h"

#include <algorithm>

#include "core/log/detail/scan.h"
#include "core/util/bytes.h"

namespace oomscope::log {

namespace {

std::string wording_text(const Message& m) {
  if (m.wording == "cached") return "torch <= 1.3 wording";
  if (m.wording == "reserved-in-total") return "torch 1.4 to 2.0 wording";
  if (m.wording == "total-capacity") return "torch >= 2.1 wording";
  if (m.wording == "mps-gb") return "MPS wording with GB/MB (binary)";
  if (m.wording == "mps-gib") return "MPS wording with GiB/MiB";
  return m.wording;
}

std::string pad(std::string s, std::size_t width) {
  s.append(s.size() < width ? width - s.size() : 1, ' ');
  return s;
}

std::string heading(const Message& m, std::size_t index) {
  std::string h = "-- message " + std::to_string(index + 1) + ": " + to_string(m.kind) + " at line " +
                  std::to_string(m.line);
  if (m.end_line > m.line) h += "-" + std::to_string(m.end_line);
  std::vector<std::string> parts;
  if (!m.wording.empty()) parts.push_back(wording_text(m));
  if (!m.source.empty()) parts.push_back("from " + m.source);
  if (!m.device.empty()) parts.push_back(m.device);
  if (!m.exception.empty()) parts.push_back(m.exception);
  for (std::size_t i = 0; i < parts.size(); ++i) h += (i ? ", " : " (") + parts[i];
  if (!parts.empty()) h += ")";
  return h;
}

void write_buffers(std::ostream& o, const Message& m) {
  if (m.buffers.empty()) return;
  o << "  buffers listed (read):\n";
  for (const PeakBuffer& b : m.buffers) {
    o << "    " << pad("#" + std::to_string(b.index), 5) << pad(b.size.printed, 10) << " "
      << (b.shape.empty() ? std::string("(no shape)") : b.shape);
    if (b.entry_parameter) o << "  entry parameter";
    if (!b.xla_label.empty()) o << "  label " << detail::clip(b.xla_label, 60);
    if (!b.source_file.empty()) o << "  at " << b.source_file << ":" << b.source_line;
    if (b.unpadded) o << "  unpadded " << b.unpadded->printed;
    if (b.padding_extra) o << "  padding +" << b.padding_extra->printed << " (" << b.padding_expansion << ")";
    if (!b.allocation_type.empty()) o << "  " << b.allocation_type;
    if (!b.complete) o << "  (cut short in the log)";
    o << "\n";
    if (!b.op_name.empty()) o << "         op " << detail::clip(b.op_name, 160) << "\n";
  }
}

void write_line(std::ostream& o, const analysis::DiagnosisLine& l) {
  o << "    [" << analysis::to_string(l.provenance) << "] " << l.finding << "\n";
  if (!l.cause.empty()) o << "      " << l.cause << "\n";
  for (const analysis::Fix& f : l.fixes) {
    o << "      fix: " << f.action;
    if (f.saving_bytes)
      o << " (saves up to " << format_bytes(*f.saving_bytes) << " [derived]: " << f.saving_note << ")";
    else if (!f.saving_note.empty())
      o << " (saving not known: " << f.saving_note << ")";
    if (f.fits_after)
      o << (*f.fits_after ? "; the request would then fit" : "; the request would still not fit");
    if (!f.cost.empty()) o << "; cost: " << f.cost;
    o << "\n";
  }
  if (!l.confirm.empty()) o << "      confirm: " << l.confirm << "\n";
}

}  // namespace

void write_log_text(std::ostream& o, const LogFile& log, const LogDiagnosis& d) {
  std::size_t ooms = 0;
  for (const Message& m : log.messages) ooms += is_out_of_memory(m);
  const std::string name = log.path.empty() ? "(pasted text)" : log.path == "-" ? "standard input" : log.path;
  o << "== " << name << ": log of " << log.lines << (log.lines == 1 ? " line" : " lines") << ", "
    << log.messages.size() << (log.messages.size() == 1 ? " message" : " messages") << " (" << ooms
    << " out of memory)\n";
  if (log.long_lines > 0)
    o << "   " << log.long_lines << " line" << (log.long_lines == 1 ? " is" : "s are") << " longer than "
      << kMaxLineBytes / 1024 << " KiB; only their first " << kMaxLineBytes / 1024 << " KiB were read\n";
  if (log.nul_bytes) o << "   the file holds NUL bytes (read as text, the NUL bytes left out)\n";
  const std::vector<std::string> sources = log.sources();
  if (sources.size() > 1 || (sources.size() == 1 && !sources[0].empty())) {
    o << "   sources:";
    for (std::size_t i = 0; i < sources.size(); ++i) {
      std::size_t count = 0;
      for (const Message& m : log.messages) count += m.source == sources[i];
      o << (i ? ", " : " ") << (sources[i].empty() ? std::string("(no prefix)") : sources[i]) << " (" << count
        << ")";
    }
    o << "\n";
  }
  if (const auto first = log.first_oom(); first && ooms > 1) {
    const Message& m = log.messages[*first];
    o << "   first out-of-memory message: " << *first + 1 << " (line " << m.line
      << (m.source.empty() ? "" : ", " + m.source) << ")\n";
  }
  if (log.messages.empty())
    o << "   no out-of-memory message found; it looks like " << log.looks_like << "\n";
  for (std::size_t i = 0; i < log.messages.size(); ++i) {
    const Message& m = log.messages[i];
    o << "\n" << heading(m, i) << "\n";
    o << "  " << detail::clip(m.first_line, 300) << "\n";
    if (!m.figures.empty()) {
      o << "  figures (read, as printed):\n";
      for (const Figure& f : m.figures) o << "    " << pad(f.key, 34) << f.printed << "\n";
    }
    if (i < d.messages.size() && !d.messages[i].derived.empty()) {
      o << "  figures (derived):\n";
      for (const DerivedFigure& f : d.messages[i].derived)
        o << "    " << pad(f.key, 34) << pad(format_bytes(f.bytes), 11) << " = " << f.how << "\n";
    }
    write_buffers(o, m);
    if (!m.hints.empty()) {
      o << "  the message suggests:";
      for (std::size_t h = 0; h < m.hints.size(); ++h) o << (h ? ", " : " ") << m.hints[h];
      o << "\n";
    }
    for (const std::string& n : m.notes) o << "  note: " << n << "\n";
    if (!m.complete)
      o << "  note: the message is incomplete in the log; figures it did not reach are missing\n";
    if (i < d.messages.size() && !d.messages[i].lines.empty()) {
      o << "  diagnosis:\n";
      for (const analysis::DiagnosisLine& l : d.messages[i].lines) write_line(o, l);
    }
  }
  if (!d.next_steps.empty()) {
    o << "\nwhat to run next:\n";
    for (const std::string& s : d.next_steps) o << "  - " << s << "\n";
  }
}

void write_log_info(std::ostream& o, const LogFile& log) {
  o << (log.path.empty() ? std::string("(pasted text)") : log.path) << ": text log, " << log.bytes
    << " bytes, " << log.lines << (log.lines == 1 ? " line, " : " lines, ") << log.messages.size()
    << (log.messages.size() == 1 ? " message" : " messages") << "\n";
  if (log.messages.empty()) o << "  no out-of-memory message found; it looks like " << log.looks_like << "\n";
  for (const Message& m : log.messages) {
    o << "  line " << pad(std::to_string(m.line), 6) << pad(to_string(m.kind), 24);
    if (!m.source.empty()) o << "[" << m.source << "] ";
    if (!m.device.empty()) o << m.device << ": ";
    o << detail::clip(m.first_line, 120) << "\n";
  }
}

}  // namespace oomscope::log
