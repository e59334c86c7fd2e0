#include "ui/shell/app_icon.h"

#include <QFile>
#include <QImageReader>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

namespace oomscope::ui {

namespace {

// Same drawing as oomscope.svg, on a 64-unit grid: a memory bar filled green to amber, with red spilling
// over its top edge.
QPixmap paintIcon(int size) {
  QPixmap pixmap(size, size);
  pixmap.fill(Qt::transparent);
  QPainter p(&pixmap);
  p.setRenderHint(QPainter::Antialiasing);
  p.scale(size / 64.0, size / 64.0);

  p.setPen(Qt::NoPen);
  p.setBrush(QColor(0x1f, 0x24, 0x30));
  p.drawRoundedRect(QRectF(2, 2, 60, 60), 12, 12);

  // Fill levels inside the bar, bottom to top.
  const QRectF bar(20, 14, 24, 42);
  p.setBrush(QColor(0x43, 0xa0, 0x47));
  p.drawRect(QRectF(22, 44, 20, 10));
  p.setBrush(QColor(0x9c, 0xcc, 0x65));
  p.drawRect(QRectF(22, 33, 20, 10));
  p.setBrush(QColor(0xf5, 0xa6, 0x23));
  p.drawRect(QRectF(22, 22, 20, 10));

  // The overflow: a red blob over the rim, running down the right side.
  QPainterPath spill;
  spill.moveTo(22, 21);
  spill.lineTo(22, 14);
  spill.cubicTo(22, 6, 42, 6, 44, 12);
  spill.cubicTo(48, 14, 50, 18, 50, 24);
  spill.lineTo(50, 34);
  spill.cubicTo(50, 37, 46, 37, 46, 34);
  spill.lineTo(46, 22);
  spill.lineTo(42, 21);
  spill.closeSubpath();
  p.setBrush(QColor(0xe5, 0x39, 0x35));
  p.drawPath(spill);

  QPen outline(QColor(0xd8, 0xde, 0xe9));
  outline.setWidthF(2.0);
  p.setPen(outline);
  p.setBrush(Qt::NoBrush);
  p.drawRoundedRect(bar, 3, 3);
  return pixmap;
}

}  // namespace

QIcon appIcon() {
  const QString svg = QStringLiteral(":/icons/oomscope.svg");
  if (QFile::exists(svg) && QImageReader::supportedImageFormats().contains("svg")) return QIcon(svg);
  QIcon icon;
  for (int size : {16, 24, 32, 48, 64, 128, 256}) icon.addPixmap(paintIcon(size));
  return icon;
}

}  // namespace oomscope::ui
