#pragma once
// The per-rank snapshots of tests/data/ranks (tests/data/README.md: tools/make_rank_sets.py), shared by the
// Ranks window's tests.

#include <QString>
#include <QStringList>

namespace oomscope::ui {

inline const QString kRanks = QStringLiteral(OOMSCOPE_TEST_DATA) + QStringLiteral("/ranks");

// ranks/oom_job's four snapshots, rank 0 first: ranks 0 and 2 ran out of memory, rank 2 first.
inline QStringList oomJob() {
  QStringList out;
  for (int r = 0; r < 4; ++r) out << kRanks + QStringLiteral("/oom_job/rank%1_oom.pickle").arg(r);
  return out;
}

}  // namespace oomscope::ui
