// The table models and their proxy: roles, header tooltips, sorting and filtering, checked under
// QAbstractItemModelTester, fed with hand-written rows and with rows from every real test capture.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QtTest>

#include "core/capture/reader.h"
#include "ui/models/capture_rows.h"
#include "ui/models/capture_table_models.h"
#include "ui/models/table_filter_proxy.h"

using namespace oomscope::ui;

namespace {

constexpr qint64 MiB = 1024 * 1024;

// name;program id;parameters;donated;outputs;temp;total  ("-" for the bytes: no buffer assignment)
std::vector<ModuleRow> modulesFromText(const QString& text) {
  std::vector<ModuleRow> rows;
  for (const QString& line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
    const QStringList f = line.split(QLatin1Char(';'));
    ModuleRow row;
    row.name = f.at(0);
    row.programId = f.at(1).toULongLong();
    row.hasPlan = f.at(2) != QLatin1String("-");
    if (row.hasPlan) {
      row.parameters = f.at(2).toLongLong();
      row.donated = f.at(3).toLongLong();
      row.outputs = f.at(4).toLongLong();
      row.temp = f.at(5).toLongLong();
      row.totalAllocation = f.at(6).toLongLong();
    }
    rows.push_back(row);
  }
  return rows;
}

const QString kModules = QStringLiteral(
    "jit_train_step;42;1073741824;536870912;1073741824;2147483648;4294967296\n"
    "jit_loss_fn;17;100663296;0;100663296;319815680;521142272\n"
    "jit__normal;5;8;0;50331648;17920;50349576\n"
    "jit_convert(1);9;4;0;4;0;8\n"
    "jit_no_plan;3;-\n");

QString display(const QAbstractItemModel& m, int row, int col, int role = Qt::DisplayRole) {
  return m.index(row, col).data(role).toString();
}

QStringList column(const QAbstractItemModel& m, int col) {
  QStringList out;
  for (int r = 0; r < m.rowCount(); ++r) out << display(m, r, col);
  return out;
}

QStringList realCaptures() {
  QStringList files;
  const QDir dir(QStringLiteral(OOMSCOPE_TEST_DATA));
  for (const QString& name : dir.entryList({QStringLiteral("*.xplane.pb")}, QDir::Files, QDir::Name)) {
    if (!name.startsWith(QLatin1String("CORRUPT"))) files << dir.filePath(name);
  }
  return files;
}

}  // namespace

class TestModels : public QObject {
  Q_OBJECT

 private slots:
  void moduleRolesFromRows() {
    ModuleTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows(modulesFromText(kModules));
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.columnCount(), int(ModuleTableModel::ColumnCount));

    QCOMPARE(display(model, 0, ModuleTableModel::Name), QStringLiteral("jit_train_step"));
    QCOMPARE(display(model, 0, ModuleTableModel::ProgramId), QStringLiteral("42"));
    QCOMPARE(display(model, 0, ModuleTableModel::TotalAllocation), QStringLiteral("4.00 GiB"));
    QCOMPARE(display(model, 1, ModuleTableModel::Temp), QStringLiteral("305 MiB"));
    QCOMPARE(display(model, 3, ModuleTableModel::TotalAllocation), QStringLiteral("8 B"));
    // Sorting sees raw bytes; tooltips the exact figure.
    QCOMPARE(model.index(1, ModuleTableModel::Temp).data(RecordTableModel::SortRole).toLongLong(), 319815680);
    QCOMPARE(display(model, 1, ModuleTableModel::Temp, Qt::ToolTipRole), QStringLiteral("319,815,680 bytes"));
    QCOMPARE(model.index(0, ModuleTableModel::ProgramId).data(RecordTableModel::SortRole).toULongLong(), 42u);

    // A module without buffer assignment: a dash, sorted below real values, and a tooltip saying why.
    QCOMPARE(display(model, 4, ModuleTableModel::Temp), QStringLiteral("\u2014"));
    QCOMPARE(model.index(4, ModuleTableModel::Temp).data(RecordTableModel::SortRole).toLongLong(), -1);
    QVERIFY(display(model, 4, ModuleTableModel::Temp, Qt::ToolTipRole)
                .contains(QLatin1String("buffer assignment")));

    const auto numeric =
        model.index(0, ModuleTableModel::Temp).data(Qt::TextAlignmentRole).value<Qt::Alignment>();
    QVERIFY(numeric & Qt::AlignRight);
    const auto text =
        model.index(0, ModuleTableModel::Name).data(Qt::TextAlignmentRole).value<Qt::Alignment>();
    QVERIFY(text & Qt::AlignLeft);
  }

  void headerTooltipsSayReadOrDerived() {
    ModuleTableModel modules;
    AllocatorTableModel allocators;
    for (const QAbstractItemModel* model :
         {static_cast<QAbstractItemModel*>(&modules), static_cast<QAbstractItemModel*>(&allocators)}) {
      for (int c = 0; c < model->columnCount(); ++c) {
        const QString tip = model->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString();
        QVERIFY2(
            tip.contains(QLatin1String("Read from the file")) || tip.contains(QLatin1String("Derived: ")),
            qPrintable(tip));
        QVERIFY(tip.contains(model->headerData(c, Qt::Horizontal).toString()));
      }
    }
    QVERIFY(modules.headerData(ModuleTableModel::Name, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("Read from the file")));
    QVERIFY(allocators.headerData(AllocatorTableModel::MaxInUse, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("Derived: maximum of the bytes_allocated")));
    QVERIFY(allocators.headerData(AllocatorTableModel::LifetimePeak, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("Read from the file")));
  }

  void resetAndRefill() {
    ModuleTableModel model;
    TableFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester modelTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.sort(ModuleTableModel::TotalAllocation, Qt::DescendingOrder);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);

    model.setRows(modulesFromText(kModules));
    QCOMPARE(proxy.rowCount(), 5);
    model.setRows({});
    QCOMPARE(proxy.rowCount(), 0);
    model.setRows(modulesFromText(QStringLiteral("a;1;1;0;1;1;3\nb;2;2;0;2;2;6\n")));
    QCOMPARE(proxy.rowCount(), 2);
    QCOMPARE(display(proxy, 0, ModuleTableModel::Name), QStringLiteral("b"));
    QCOMPARE(resets.count(), 3);
  }

  void proxySortsByRawValue() {
    ModuleTableModel model;
    model.setRows(modulesFromText(kModules));
    TableFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);

    // As text "8 B" > "4.00 GiB" > "497 MiB"; as bytes the GiB module is first.
    proxy.sort(ModuleTableModel::TotalAllocation, Qt::DescendingOrder);
    QCOMPARE(column(proxy, ModuleTableModel::Name),
             QStringList({QStringLiteral("jit_train_step"), QStringLiteral("jit_loss_fn"),
                          QStringLiteral("jit__normal"), QStringLiteral("jit_convert(1)"),
                          QStringLiteral("jit_no_plan")}));
    proxy.sort(ModuleTableModel::ProgramId, Qt::AscendingOrder);
    QCOMPARE(column(proxy, ModuleTableModel::ProgramId),
             QStringList({QStringLiteral("3"), QStringLiteral("5"), QStringLiteral("9"), QStringLiteral("17"),
                          QStringLiteral("42")}));
    proxy.sort(ModuleTableModel::Name, Qt::AscendingOrder);
    QCOMPARE(display(proxy, 0, ModuleTableModel::Name), QStringLiteral("jit__normal"));
  }

  void proxyFiltersNamesAndIds() {
    ModuleTableModel model;
    model.setRows(modulesFromText(kModules));
    TableFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);

    proxy.setFilterText(QStringLiteral("LOSS"));
    QCOMPARE(column(proxy, ModuleTableModel::Name), QStringList({QStringLiteral("jit_loss_fn")}));
    proxy.setFilterText(QStringLiteral("42"));
    QCOMPARE(column(proxy, ModuleTableModel::Name), QStringList({QStringLiteral("jit_train_step")}));
    // Literal text, not a pattern.
    proxy.setFilterText(QStringLiteral("convert(1"));
    QCOMPARE(proxy.rowCount(), 1);
    // Byte figures are not searched: "305" is only a Temp value.
    proxy.setFilterText(QStringLiteral("305"));
    QCOMPARE(proxy.rowCount(), 0);
    proxy.setFilterText(QStringLiteral("  "));
    QCOMPARE(proxy.rowCount(), 5);
  }

  void allocatorAndPlaneModels() {
    AllocatorTableModel allocators;
    QAbstractItemModelTester tester(&allocators, QAbstractItemModelTester::FailureReportingMode::QtTest);
    allocators.setRows(
        {{QStringLiteral("GPU_0_bfc"), 1234, 1200, 3 * 1024 * MiB, 3 * 1024 * MiB + 5, 4 * 1024 * MiB},
         {QStringLiteral("cpu"), 5, 5, 512, 512, 0}});
    QCOMPARE(display(allocators, 0, AllocatorTableModel::Allocations), QLocale().toString(1234));
    QCOMPARE(display(allocators, 0, AllocatorTableModel::MaxInUse), QStringLiteral("3.00 GiB"));
    QCOMPARE(display(allocators, 0, AllocatorTableModel::Capacity, Qt::ToolTipRole),
             QStringLiteral("4,294,967,296 bytes"));
    // Capacity 0 means the pool size was never reported.
    QCOMPARE(display(allocators, 1, AllocatorTableModel::Capacity), QStringLiteral("\u2014"));

    PlaneTableModel planes;
    QAbstractItemModelTester planeTester(&planes, QAbstractItemModelTester::FailureReportingMode::QtTest);
    planes.setRows({{QStringLiteral("/host:CPU"), 2, 1842}, {QStringLiteral("/device:GPU:0"), 1, 150}});
    QCOMPARE(planes.rowCount(), 2);
    QCOMPARE(planes.index(0, PlaneTableModel::Events).data(RecordTableModel::SortRole).toLongLong(), 1842);
  }

  void describeWithoutModulesOrAllocators() {
    CaptureSummary empty;
    const QString text = describeSummary(empty);
    QVERIFY(text.contains(QLatin1String("no XLA modules")));
    QVERIFY(text.contains(QLatin1String("No allocator events")));
  }

  void realCaptureRows() {
    const auto capture =
        oomscope::capture::read_capture(OOMSCOPE_TEST_DATA "/jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb");
    ModuleTableModel modules;
    AllocatorTableModel allocators;
    TableFilterProxy proxy;
    proxy.setSourceModel(&modules);
    QAbstractItemModelTester t1(&modules, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&allocators, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    modules.setRows(moduleRows(*capture));
    allocators.setRows(allocatorRows(*capture));
    QCOMPARE(modules.rowCount(), 9);
    QCOMPARE(allocators.rowCount(), 1);
    QCOMPARE(display(allocators, 0, AllocatorTableModel::Name), QStringLiteral("GPU_0_bfc"));
    // tests/data/README.md: 30 MemoryAllocation and 29 MemoryDeallocation events on GPU_0_bfc.
    QCOMPARE(
        allocators.index(0, AllocatorTableModel::Allocations).data(RecordTableModel::SortRole).toLongLong(),
        30);
    QCOMPARE(
        allocators.index(0, AllocatorTableModel::Deallocations).data(RecordTableModel::SortRole).toLongLong(),
        29);
    proxy.setFilterText(QStringLiteral("jit_loss_fn"));
    QCOMPARE(proxy.rowCount(), 1);

    const CaptureSummary summary = summarize(*capture);
    QCOMPARE(summary.moduleCount, 9);
    QCOMPARE(summary.allocatorCount, 1);
    QCOMPARE(summary.allocations, 30);
    QCOMPARE(summary.deallocations, 29);
    QCOMPARE(summary.planeCount, 12);
    QCOMPARE(summary.eventCount, 1992);
    QVERIFY(summary.largestModule);
    // The largest plan is the one with the biggest total of all modules' rows.
    qint64 biggest = 0;
    for (const auto& row : modules.rows()) biggest = std::max(biggest, row.totalAllocation);
    QCOMPARE(summary.largestModule->totalAllocation, biggest);
    const QString text = describeSummary(summary);
    QVERIFY2(text.contains(summary.largestModule->name) && text.contains(QLatin1String("GPU_0_bfc")),
             qPrintable(text));
  }

  void everyRealCaptureThroughTheSameModels() {
    // One set of models refilled capture after capture, as the window does.
    ModuleTableModel modules;
    AllocatorTableModel allocators;
    PlaneTableModel planes;
    TableFilterProxy proxy;
    proxy.setSourceModel(&modules);
    proxy.sort(ModuleTableModel::TotalAllocation, Qt::DescendingOrder);
    QAbstractItemModelTester t1(&modules, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&allocators, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(&planes, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t4(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QStringList files = realCaptures();
    QVERIFY(files.size() >= 6);
    for (const QString& file : files) {
      const auto capture = oomscope::capture::read_capture(file.toStdString());
      modules.setRows(moduleRows(*capture));
      allocators.setRows(allocatorRows(*capture));
      planes.setRows(planeRows(*capture));
      QCOMPARE(modules.rowCount(), int(capture->modules().size()));
      QCOMPARE(allocators.rowCount(), int(capture->allocators().size()));
      QCOMPARE(planes.rowCount(), int(capture->planes().size()));
      // Sorted by total allocation, descending, whatever the capture.
      for (int r = 1; r < proxy.rowCount(); ++r) {
        QVERIFY(
            proxy.index(r - 1, ModuleTableModel::TotalAllocation)
                .data(RecordTableModel::SortRole)
                .toLongLong() >=
            proxy.index(r, ModuleTableModel::TotalAllocation).data(RecordTableModel::SortRole).toLongLong());
      }
      QVERIFY(!describeSummary(summarize(*capture)).isEmpty());
    }
  }
};

QTEST_GUILESS_MAIN(TestModels)
#include "tst_models.moc"
