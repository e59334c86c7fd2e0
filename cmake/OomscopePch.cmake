# oomscope_pch(target KIND...): precompiled headers for a target whose files parse the same heavy headers.
# Parsing was most of the build (GCC's -ftime-report: 62 % of a Qt test file, 40 % of a CLI file that
# uses nlohmann-json), and each target has a dozen to fifty such files, so each target precompiles its set
# once (CONTRIBUTING.md, "CI time budget", has the figures). KIND names the sets, each the headers that the
# target's files include most:
#   std      the standard library (always added)
#   json     nlohmann/json.hpp
#   gtest    GoogleTest
#   qtcore   QtCore            qtwidgets  QtCore, QtGui, QtWidgets
#   qtcharts Qt Charts         qttest     QtTest, QSignalSpy, QAbstractItemModelTester
# The sources still include what they use: scripts/check-tidy.sh reads them without the precompiled
# header, and -DOOMSCOPE_PCH=OFF builds without any.
option(OOMSCOPE_PCH "Precompile the heavy headers (Qt, nlohmann-json, GoogleTest) once per target" ON)

set(OOMSCOPE_PCH_std <algorithm> <cstdint> <cstdio> <cstring> <cmath> <chrono> <filesystem> <fstream>
    <functional> <map> <memory> <optional> <span> <sstream> <stop_token> <string> <string_view> <thread>
    <unordered_map> <utility> <vector>)
set(OOMSCOPE_PCH_json <nlohmann/json.hpp>)
set(OOMSCOPE_PCH_gtest <gtest/gtest.h>)
set(OOMSCOPE_PCH_qtcore <QObject> <QString> <QStringList> <QFileInfo> <QDir> <QLocale> <QTimer> <QPointer>
    <QThreadPool> <QFutureWatcher>)
set(OOMSCOPE_PCH_qtwidgets ${OOMSCOPE_PCH_qtcore} <QAbstractTableModel> <QSortFilterProxyModel> <QColor>
    <QPainter> <QPainterPath> <QApplication> <QWidget> <QLabel> <QTableView> <QHeaderView> <QTabWidget>
    <QPushButton> <QComboBox> <QLineEdit> <QVBoxLayout> <QHBoxLayout> <QGridLayout> <QSplitter> <QMainWindow>
    <QMenu> <QAction> <QFileDialog> <QMessageBox> <QProgressBar> <QToolTip>)
set(OOMSCOPE_PCH_qtcharts <QChart> <QChartView> <QValueAxis> <QLineSeries> <QAreaSeries> <QScatterSeries>
    <QLegend>)
set(OOMSCOPE_PCH_qttest <QtTest> <QSignalSpy> <QAbstractItemModelTester> <QTemporaryDir>)

function(oomscope_pch target)
  if(NOT OOMSCOPE_PCH)
    return()
  endif()
  set(headers ${OOMSCOPE_PCH_std})
  foreach(kind IN LISTS ARGN)
    if(NOT DEFINED OOMSCOPE_PCH_${kind})
      message(FATAL_ERROR "oomscope_pch(${target}): no header set named '${kind}'")
    endif()
    list(APPEND headers ${OOMSCOPE_PCH_${kind}})
  endforeach()
  list(REMOVE_DUPLICATES headers)
  target_precompile_headers(${target} PRIVATE ${headers})
  # GCC 12 checks the standard library's string code inlined from a precompiled header as if it were ours,
  # and at -O2 reports its known false positives there (-Warray-bounds, -Wrestrict, -Wstringop-overflow,
  # -Wstringop-overread on `std::string + "..."`: GCC bug 105329 and its kin), which -Werror makes errors.
  # Those four are off for the targets that use a precompiled header, on GCC 12 only; AddressSanitizer
  # (dev-asan) still checks the bounds when the tests run.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-restrict -Wno-stringop-overflow
                           -Wno-stringop-overread)
  endif()
endfunction()
