#pragma once
// The "Open Recent" list, kept in QSettings (most recent first, at most kMaxRecent, absolute paths).
// Shared by every window of the process: each reads the list when its menu opens.

#include <QString>
#include <QStringList>

namespace oomscope::ui::recent_files {

inline constexpr int kMaxRecent = 10;

QStringList load();
// Puts path at the top (moving it if already listed) and trims the list to kMaxRecent.
void add(const QString& path);
void remove(const QString& path);
void clear();

}  // namespace oomscope::ui::recent_files
