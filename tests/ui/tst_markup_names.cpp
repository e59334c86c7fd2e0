// Names from files are text, never markup: a capture file named "<u>run.xplane.pb" whose module names start
// with "<u>" (same length as "jit_", so the protobuf stays valid) is opened in the main window; every page
// is shown, and every label, widget tooltip and item tooltip that holds one of these names must show "<u>"
// literally, as Qt renders it: a label or tooltip that Qt takes for rich text (Qt::mightBeRichText) must
// hold the name escaped, any other must hold it as it is. The same for a snapshot window's status line and
// the error box of a load that fails. Screenshot of the Modules page.
#include <QAbstractItemView>
#include <QLabel>
#include <QMessageBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QtTest>
#include <fstream>

#include "tests/ui/screenshots.h"
#include "ui/pages/analysis_pages.h"
#include "ui/pages/main_window.h"
#include "ui/pages/table_page.h"

using namespace oomscope::ui;

namespace {

constexpr auto kGemm = OOMSCOPE_TEST_DATA "/jax0.8_rocm_mi300x_gemm.xplane.pb";
const QString kMarker = QStringLiteral("<u>");

// What the user reads: the text itself, or what Qt renders of it when it takes it for rich text.
QString rendered(const QString& text, Qt::TextFormat format = Qt::AutoText) {
  const bool rich = format == Qt::RichText || (format == Qt::AutoText && Qt::mightBeRichText(text));
  if (!rich) return text;
  QTextDocument doc;
  doc.setHtml(text);
  return doc.toPlainText();
}

// A text that holds a crafted name (raw or escaped) must show the marker.
bool showsMarker(const QString& text, Qt::TextFormat format = Qt::AutoText) {
  if (!text.contains(kMarker) && !text.contains(QLatin1String("&lt;u&gt;"))) return true;
  return rendered(text, format).contains(kMarker);
}

void collectItemTips(const QAbstractItemModel& model, const QModelIndex& parent, QStringList& bad,
                     int& seen) {
  for (int r = 0; r < model.rowCount(parent); ++r)
    for (int c = 0; c < model.columnCount(parent); ++c) {
      const QModelIndex i = model.index(r, c, parent);
      const QString tip = i.data(Qt::ToolTipRole).toString();
      if (tip.contains(kMarker) || tip.contains(QLatin1String("&lt;u&gt;"))) ++seen;
      if (!showsMarker(tip)) bad << QStringLiteral("item tooltip: ") + tip;
      if (c == 0 && model.hasChildren(i)) collectItemTips(model, i, bad, seen);
    }
}

}  // namespace

class TestMarkupNames : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qputenv("XDG_CONFIG_HOME", m_config.path().toLocal8Bit());
    QCoreApplication::setOrganizationName(QStringLiteral("oomscope-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_markup_names"));
  }

  void namesWithMarkupShowLiterally() {
    std::ifstream in(kGemm, std::ios::binary);
    std::string bytes(std::istreambuf_iterator<char>(in), {});
    for (std::size_t at = bytes.find("jit_"); at != std::string::npos; at = bytes.find("jit_", at + 4))
      bytes.replace(at, 4, "<u>j");
    const QString path = m_dir.filePath(QStringLiteral("<u>run.xplane.pb"));
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;

    MainWindow window;
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    QSignalSpy analysed(window.analysis(), &AnalysisPages::resultChanged);
    window.openFile(path);
    QVERIFY(finished.wait(20000));
    QVERIFY(finished.last().at(0).toBool());
    QVERIFY(analysed.wait(20000));
    QTabWidget* tabs = window.tabs();
    for (int i = 0; i < tabs->count(); ++i) {
      tabs->setCurrentIndex(i);
      QTRY_VERIFY(tabs->currentWidget()->isVisible());
    }

    QStringList bad;
    int labels = 0, tips = 0;
    for (const QLabel* label : window.findChildren<QLabel*>()) {
      if (label->text().contains(kMarker) || label->text().contains(QLatin1String("&lt;u&gt;"))) ++labels;
      if (!showsMarker(label->text(), label->textFormat()))
        bad << QStringLiteral("label %1: %2").arg(label->objectName(), label->text());
    }
    for (const QWidget* w : window.findChildren<QWidget*>()) {
      if (w->toolTip().contains(kMarker) || w->toolTip().contains(QLatin1String("&lt;u&gt;"))) ++tips;
      if (!showsMarker(w->toolTip()))
        bad << QStringLiteral("tooltip of %1: %2").arg(w->objectName(), w->toolTip());
    }
    for (const QAbstractItemView* view : window.findChildren<QAbstractItemView*>())
      if (view->model()) collectItemTips(*view->model(), {}, bad, tips);
    qInfo("labels with a crafted name: %d, tooltips: %d", labels, tips);
    QVERIFY(labels > 0 && tips > 0);  // the names did reach labels and tooltips: the check checked something
    for (const QString& b : bad) qWarning("shown as markup: %s", qPrintable(b.left(200)));
    QVERIFY2(bad.isEmpty(), qPrintable(QStringLiteral("%1 texts show a name as markup").arg(bad.size())));

    tabs->setCurrentWidget(window.modulesPage());
    shoot(window, QStringLiteral("markup-names-modules.png"));
  }

  void failedLoadOfAMarkupNameShowsItLiterally() {
    const QString path = m_dir.filePath(QStringLiteral("<u>cut.xplane.pb"));
    std::ifstream in(kGemm, std::ios::binary);
    std::string bytes(std::istreambuf_iterator<char>(in), {});
    std::ofstream(path.toStdString(), std::ios::binary) << bytes.substr(0, bytes.size() / 3);
    MainWindow window;
    window.resize(1000, 640);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy finished(&window, &MainWindow::loadFinished);
    window.openFile(path);
    QVERIFY(finished.wait(20000));
    QVERIFY(!finished.last().at(0).toBool());
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = window.findChild<QMessageBox*>(QStringLiteral("messageBox"))) != nullptr);
    QTRY_VERIFY(box->isVisible());
    int shown = 0;
    for (const QLabel* label : box->findChildren<QLabel*>()) {
      if (label->text().contains(kMarker)) ++shown;
      QVERIFY2(showsMarker(label->text(), label->textFormat()), qPrintable(label->text()));
    }
    QCOMPARE(shown, 2);  // the title and the text
    const auto* status = window.findChild<QLabel*>(QStringLiteral("statusText"));
    QVERIFY(showsMarker(status->text(), status->textFormat()));
    shoot(*box, QStringLiteral("markup-names-error.png"));
  }

 private:
  QTemporaryDir m_config;
  QTemporaryDir m_dir;
};

QTEST_MAIN(TestMarkupNames)
#include "tst_markup_names.moc"
