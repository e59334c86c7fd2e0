#pragma once
// The device of one message as a bar: allocated by the framework, reserved but unused, this process outside
// the framework, other processes, free, and below it the request that failed, all to one scale (the capacity
// when the log states it, else the sum of what it states). Each part says in its tooltip whether the log
// printed it (read) or oomscope computed it (derived); a part the log does not give is left out, not guessed.

#include <QString>
#include <QWidget>
#include <vector>

#include "core/log/log_diagnosis.h"

namespace oomscope::ui {

class DeviceBarWidget : public QWidget {
  Q_OBJECT

 public:
  struct Part {
    QString name;
    qint64 bytes = 0;
    QColor color;
    QString provenance;  // "read" / "derived"
  };

  explicit DeviceBarWidget(QWidget* parent = nullptr);

  void setBar(const log::DeviceBar& bar);
  const std::vector<Part>& parts() const { return m_parts; }
  qint64 scaleBytes() const { return m_scale; }
  qint64 requestBytes() const { return m_request; }
  bool capacityStated() const { return m_capacity > 0; }
  const QString& capacityName() const { return m_capacityName; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;  // per-part tooltips

 private:
  QRectF barRect() const;
  QRectF requestRect() const;
  int partAt(QPointF pos) const;  // -1 none, parts().size() the request

  std::vector<Part> m_parts;
  qint64 m_capacity = 0;
  QString m_capacityName;  // "capacity", or the limit the message states instead ("max allowed")
  qint64 m_request = 0;
  qint64 m_free = 0;
  qint64 m_scale = 0;
};

}  // namespace oomscope::ui
