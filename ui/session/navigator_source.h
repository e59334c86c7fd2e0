#pragma once
// What a page that does not show a capture (the Live page's ranks, the Simulator's runs) offers the
// navigator: a titled list of entries with one current, kept in sync both ways. The page owns one as a
// direct child; the main window finds it when the page is added, lists its entries under the title, and
// when the user picks an entry there it switches to the page and calls activate(), which the page answers
// by selecting that entry itself. The page reports its own selection back with setCurrent().
//
//   auto* source = new NavigatorSource(tr("Live ranks"), page);
//   source->setEntries({{"rank 0", "1.20 GiB free", "unix:/tmp/r0.sock"}}, 0);
//   connect(source, &NavigatorSource::activated, page, [page](int i) { page->selectRank(i); });

#include <QObject>
#include <QString>
#include <utility>
#include <vector>

namespace oomscope::ui {

class NavigatorSource : public QObject {
  Q_OBJECT

 public:
  struct Entry {
    QString label;    // "rank 3", "A: original"
    QString detail;   // the size column: "1.20 GiB free", "42 steps"
    QString tooltip;  // where it comes from

    bool operator==(const Entry&) const = default;
  };

  explicit NavigatorSource(const QString& title, QObject* parent = nullptr)
      : QObject(parent), m_title(title) {
    setObjectName(QStringLiteral("navigatorSource"));
  }

  QString title() const { return m_title; }
  const std::vector<Entry>& entries() const { return m_entries; }
  int current() const { return m_current; }  // -1: none

  // The page's side. Emit changed() only when something differs (a 4 Hz refresh costs nothing otherwise).
  void setEntries(std::vector<Entry> entries, int current) {
    if (current < -1 || current >= int(entries.size())) current = -1;
    if (entries == m_entries && current == m_current) return;
    m_entries = std::move(entries);
    m_current = current;
    emit changed();
  }
  void setCurrent(int current) {
    if (current < -1 || current >= int(m_entries.size())) current = -1;
    if (current == m_current) return;
    m_current = current;
    emit changed();
  }
  // The navigator's side: the user picked entry `index`; the page selects it (emits activated).
  void activate(int index) {
    if (index >= 0 && index < int(m_entries.size())) emit activated(index);
  }

 signals:
  void changed();
  void activated(int index);

 private:
  QString m_title;
  std::vector<Entry> m_entries;
  int m_current = -1;
};

}  // namespace oomscope::ui
