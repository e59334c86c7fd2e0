#pragma once
// The Qt tests (tests/ui/tst_*.cpp) are linked into one program, oomscope-ui-tests, instead of one program
// each: 31 links of the whole UI became one. This header is included before each test file's own text (as the
// last header of the target's precompiled set, or the compiler's -include; tests/CMakeLists.txt), so that the
// file's QTEST_MAIN / QTEST_GUILESS_MAIN registers its test class under the file's name ("tst_models")
// instead of defining main(). `oomscope-ui-tests NAME [QTest options]` then runs that class exactly as its
// own program did (ui_test_main.cpp); ctest runs each file as ui.NAME.

#include <QApplication>
#include <QCoreApplication>
#include <QtTest>

namespace oomscope::test {

using UiTestRun = int (*)(int argc, char** argv);
// Registers `run` under the stem of `file` (its __FILE__); a second test of one name is an error at start.
bool register_ui_test(const char* file, UiTestRun run);

}  // namespace oomscope::test

// What Qt's QTEST_MAIN and QTEST_GUILESS_MAIN (qtest.h, Qt 6.4) do in main(), in a registered function.
#undef QTEST_MAIN
#define QTEST_MAIN(TestObject)                                                        \
  static const bool oomscope_ui_test_registered =                                     \
      ::oomscope::test::register_ui_test(__FILE__, [](int argc, char** argv) -> int { \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();            \
        QApplication app(argc, argv);                                                 \
        app.setAttribute(Qt::AA_Use96Dpi, true);                                      \
        TestObject tc;                                                                \
        QTEST_SET_MAIN_SOURCE_PATH                                                    \
        return QTest::qExec(&tc, argc, argv);                                         \
      });
#undef QTEST_GUILESS_MAIN
#define QTEST_GUILESS_MAIN(TestObject)                                                \
  static const bool oomscope_ui_test_registered =                                     \
      ::oomscope::test::register_ui_test(__FILE__, [](int argc, char** argv) -> int { \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();            \
        QCoreApplication app(argc, argv);                                             \
        TestObject tc;                                                                \
        QTEST_SET_MAIN_SOURCE_PATH                                                    \
        return QTest::qExec(&tc, argc, argv);                                         \
      });
