#pragma once
// Axes the analysis charts share: a byte axis in one binary unit chosen from the largest value (Qt Charts
// formats numbers, not byte sizes, so values are plotted in that unit and the title names it), and a time
// axis in seconds whose label precision follows the visible range as the user zooms.

#include <QString>

class QValueAxis;

namespace oomscope::ui {

struct ByteUnit {
  double bytes = 1;  // bytes per axis unit
  QString name;      // "B", "KiB", "MiB", "GiB", "TiB"
  double toAxis(qint64 value) const { return double(value) / bytes; }
  qint64 toBytes(double axisValue) const { return qint64(axisValue * bytes); }
};

// The largest binary unit in which maxBytes is at least 1.
ByteUnit byteUnitFor(qint64 maxBytes);

// Sets range [0, maxBytes * headroom] in `unit` with nice tick values and the title "<what> (<unit>), <tag>".
void setupByteAxis(QValueAxis* axis, const ByteUnit& unit, qint64 maxBytes, const QString& what,
                   const QString& tag = {}, double headroom = 1.08);

// A seconds axis: the label precision tracks the visible range (ms steps show 3 decimals, us steps 6).
void setupSecondsAxis(QValueAxis* axis, double firstSeconds, double lastSeconds, const QString& title);

// Ticks at round values (1, 2 or 5 x 10^k apart, about `target` of them) that follow the range as the user
// zooms; integers only for program-order axes. Replaces setupSecondsAxis's label handling.
void keepNiceTicks(QValueAxis* axis, int target, bool integers, const QString& suffix = {});

// Digits after the decimal point that tell apart ticks of a range this wide (0..9).
int decimalsForRange(double span, int ticks);

}  // namespace oomscope::ui
