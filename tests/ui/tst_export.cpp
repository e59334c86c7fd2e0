// Export, offscreen over the real reader: every kind of file written to a temporary folder and read back
// (CSV parses with one line per model row, PNG loads at the chart's size, SVG is XML with an <svg> root, the
// report's text and JSON equal what `oomscope-cli report` writes for the same file), Copy as tab-separated
// text, a failed write told with the path and the reason, and screenshots of the export menus.
#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QClipboard>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include "tests/ui/temp_config_home.h"
#include "ui/analysis/analysis_pages.h"
#include "ui/analysis/buffers_page.h"
#include "ui/analysis/plan_page.h"
#include "ui/analysis/table_page.h"
#include "ui/models/capture_table_models.h"
#include "ui/models/record_table_model.h"
#include "ui/models/table_filter_proxy.h"
#include "ui/shell/exporter.h"
#include "ui/shell/main_window.h"

using namespace oomscope::ui;

namespace {

const QString kData = QStringLiteral(OOMSCOPE_TEST_DATA);
const QString kGood = kData + QStringLiteral("/jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb");

// A small CSV reader (RFC 4180: quoted fields with doubled quotes, CRLF line ends).
QList<QStringList> parseCsv(const QString& text) {
  QList<QStringList> rows;
  QStringList row;
  QString field;
  bool quoted = false;
  for (int i = 0; i < text.size(); ++i) {
    const QChar c = text[i];
    if (quoted) {
      if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
        field += c;
        ++i;
      } else if (c == QLatin1Char('"')) {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == QLatin1Char('"')) {
      quoted = true;
    } else if (c == QLatin1Char(',')) {
      row << field;
      field.clear();
    } else if (c == QLatin1Char('\r')) {
    } else if (c == QLatin1Char('\n')) {
      row << field;
      rows << row;
      row.clear();
      field.clear();
    } else {
      field += c;
    }
  }
  return rows;
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray cli(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(OOMSCOPE_CLI), args);
  p.waitForFinished(60000);
  return p.readAllStandardOutput();
}

}  // namespace

class TestExport : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    m_window = std::make_unique<MainWindow>();
    m_window->setMessagePresenter([this](QMessageBox::Icon, const QString& title, const QString& text) {
      m_messages << title + QLatin1Char('\n') + text;
    });
    m_window->resize(1400, 860);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    m_window->exporter()->setPathChooser([this](const QString&, const QString& suggested, const QString&) {
      m_suggested << suggested;
      return m_nextPath.isEmpty() ? m_out.filePath(suggested) : m_nextPath;
    });
    QSignalSpy finished(m_window.get(), &MainWindow::loadFinished);
    m_window->openFile(kGood);
    QVERIFY(finished.wait(20000));
    QTRY_VERIFY_WITH_TIMEOUT(m_window->analysis()->result(), 20000);
  }

  void cleanupTestCase() { m_window.reset(); }

  void tableAsCsvAllRowsAndShownRows() {
    TablePage* page = m_window->modulesPage();
    QTableView* view = page->view();
    auto* model = qobject_cast<ModuleTableModel*>(page->proxy()->sourceModel());
    QVERIFY(model);
    page->filterEdit()->setText(QStringLiteral("jit_loss"));
    const int shown = page->proxy()->rowCount();
    QVERIFY(shown > 0 && shown < model->rowCount());

    QVERIFY(m_window->exporter()->exportTable(view, QStringLiteral("Modules"), true));
    QCOMPARE(m_suggested.last(), QStringLiteral("jax0.8-te2.8-rocm-gfx950-fused-attn-modules.csv"));
    const QList<QStringList> all = parseCsv(QString::fromUtf8(readAll(m_out.filePath(m_suggested.last()))));
    QCOMPARE(all.size(), model->rowCount() + 1);
    QCOMPARE(all[0].value(0), QStringLiteral("Module"));
    QCOMPARE(all[0].value(ModuleTableModel::TotalAllocation), QStringLiteral("Total allocation (bytes)"));
    for (int r = 0; r < model->rowCount(); ++r) {
      QCOMPARE(all[r + 1].size(), model->columnCount());
      QCOMPARE(all[r + 1][0], model->rows()[std::size_t(r)].name);
      // Exact bytes, not the "3.72 GiB" on screen; an unknown value is an empty field.
      const auto& row = model->rows()[std::size_t(r)];
      QCOMPARE(all[r + 1][ModuleTableModel::TotalAllocation],
               row.hasPlan ? QString::number(row.totalAllocation) : QString());
    }

    m_nextPath = m_out.filePath(QStringLiteral("shown.csv"));
    QVERIFY(m_window->exporter()->exportTable(view, QStringLiteral("Modules"), false));
    m_nextPath.clear();
    const QList<QStringList> part =
        parseCsv(QString::fromUtf8(readAll(m_out.filePath(QStringLiteral("shown.csv")))));
    QCOMPARE(part.size(), shown + 1);
    for (int r = 1; r < part.size(); ++r) QVERIFY(part[r][0].contains(QLatin1String("jit_loss")));
    page->filterEdit()->clear();
  }

  void copyIsTabSeparated() {
    QTableView* view = m_window->allocatorsPage()->view();
    m_window->tabs()->setCurrentWidget(m_window->allocatorsPage());
    view->selectAll();
    view->setFocus();
    QApplication::clipboard()->clear();
    QTest::keySequence(view, QKeySequence::Copy);
    const QStringList lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), view->model()->rowCount());
    QCOMPARE(lines[0].split(QLatin1Char('\t')).size(), view->model()->columnCount());
    QCOMPARE(lines[0].split(QLatin1Char('\t'))[0], QStringLiteral("GPU_0_bfc"));
  }

  void chartAsPngAndSvg() {
    PlanPage* plan = m_window->analysis()->planPage();
    m_window->tabs()->setCurrentWidget(plan);
    QChartView* chart = plan->findChild<QChartView*>(QStringLiteral("planCurveView"));
    QVERIFY(chart);
    QTRY_VERIFY(chart->isVisible() && chart->width() > 100);

    m_nextPath = m_out.filePath(QStringLiteral("plan.png"));
    QVERIFY(
        m_window->exporter()->exportChart(chart, QStringLiteral("Plan curve"), Exporter::ChartFormat::Png));
    QImage image;
    QVERIFY(image.load(m_nextPath));
    QCOMPARE(image.size(), chart->size());

    m_nextPath = m_out.filePath(QStringLiteral("plan.svg"));
    QVERIFY(
        m_window->exporter()->exportChart(chart, QStringLiteral("Plan curve"), Exporter::ChartFormat::Svg));
    QXmlStreamReader xml(readAll(m_nextPath));
    while (!xml.atEnd() && !xml.isStartElement()) xml.readNext();
    QCOMPARE(xml.name().toString(), QStringLiteral("svg"));
    int elements = 0;
    while (!xml.atEnd()) {
      if (xml.readNext() == QXmlStreamReader::StartElement) ++elements;
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(elements > 20);  // the chart's lines and labels, not an empty document
    m_nextPath.clear();
  }

  void reportAsTextAndJsonEqualsTheCli() {
    QSignalSpy exported(m_window->exporter(), &Exporter::exported);
    m_nextPath = m_out.filePath(QStringLiteral("report.json"));
    m_window->exporter()->exportReport(Exporter::ReportFormat::Json);
    QVERIFY(exported.wait(30000));
    QCOMPARE(readAll(m_nextPath),
             cli({QStringLiteral("report"), kGood, QStringLiteral("--json"), QStringLiteral("-")}));

    m_nextPath = m_out.filePath(QStringLiteral("report.txt"));
    m_window->exporter()->exportReport(Exporter::ReportFormat::Text);
    QVERIFY(exported.wait(30000));
    QCOMPARE(readAll(m_nextPath), cli({QStringLiteral("report"), kGood}));
    m_nextPath.clear();
  }

  void aFailedWriteSaysWhereAndWhy() {
    m_messages.clear();
    m_nextPath = m_out.filePath(QStringLiteral("no/such/folder/modules.csv"));
    QSignalSpy failed(m_window->exporter(), &Exporter::failed);
    QVERIFY(
        !m_window->exporter()->exportTable(m_window->modulesPage()->view(), QStringLiteral("Modules"), true));
    m_nextPath.clear();
    QCOMPARE(failed.count(), 1);
    QCOMPARE(m_messages.size(), 1);
    QVERIFY2(m_messages[0].contains(m_out.filePath(QStringLiteral("no/such/folder/modules.csv"))),
             qPrintable(m_messages[0]));
    QVERIFY2(m_messages[0].contains(QLatin1String("No such file")), qPrintable(m_messages[0]));
    QVERIFY(!QFile::exists(m_out.filePath(QStringLiteral("no/such/folder/modules.csv"))));
  }

  void exportMenusOfferEveryTableAndChart() {
    auto* buffers = m_window->analysis()->buffersPage();
    m_window->tabs()->setCurrentWidget(buffers);
    QMenu* menu = m_window->findChild<QMenu*>(QStringLiteral("exportMenu"));
    QVERIFY(menu);
    m_window->exporter()->fillMenu(menu, buffers);
    QStringList texts;
    for (QAction* a : menu->actions())
      if (!a->isSeparator()) texts << a->text();
    QVERIFY2(texts.contains(QStringLiteral("Buffers Table: All Rows as CSV\u2026")),
             qPrintable(texts.join(u'|')));
    QVERIFY(texts.contains(QStringLiteral("Buffers Table: Shown Rows as CSV\u2026")));
    QVERIFY(texts.contains(QStringLiteral("Report as JSON\u2026")));
    menu->popup(m_window->mapToGlobal(QPoint(40, 40)));
    QTRY_VERIFY(menu->isVisible());
    save(menu, QStringLiteral("export-menu-buffers.png"));
    menu->hide();

    m_window->tabs()->setCurrentWidget(m_window->analysis()->planPage());
    m_window->exporter()->fillMenu(menu, m_window->analysis()->planPage());
    texts.clear();
    for (QAction* a : menu->actions())
      if (!a->isSeparator()) texts << a->text();
    QVERIFY2(texts.filter(QStringLiteral("Chart as SVG")).size() >= 2, qPrintable(texts.join(u'|')));
    menu->popup(m_window->mapToGlobal(QPoint(40, 40)));
    QTRY_VERIFY(menu->isVisible());
    save(menu, QStringLiteral("export-menu-plan.png"));
    menu->hide();
  }

 private:
  void save(QWidget* widget, const QString& name) {
    QCoreApplication::processEvents();
    const QString dir = QStringLiteral(OOMSCOPE_SCREENSHOT_DIR);
    QDir().mkpath(dir);
    QVERIFY(widget->grab().save(dir + QLatin1Char('/') + name));
  }

  TempConfigHome m_config{QStringLiteral("tst_export")};
  QTemporaryDir m_out;
  QString m_nextPath;
  QStringList m_suggested;
  QStringList m_messages;
  std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestExport)
#include "tst_export.moc"
