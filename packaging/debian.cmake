# CPack DEB: one Debian package per install component. Included by packaging/CMakeLists.txt.
# Dependencies come from dpkg-shlibdeps (the Debian packages whose libraries the programs link), plus the few
# that are loaded at run time and so invisible to it. Nothing Debian ships is bundled.

set(components oomscope)

# The demo trainer, in its own package because it pulls in LibTorch. Packaging installs it (component
# "trainer") so that it never lands in the oomscope package; test-deb.sh checks that it does not.
if(TARGET oomscope-demo-trainer)
  install(TARGETS oomscope-demo-trainer RUNTIME DESTINATION bin COMPONENT trainer)
  list(APPEND components trainer)
endif()

# The Python agent: standard library only, so one "all" package for every Python 3 Debian ships. Installed in
# Debian's version-independent module folder, so `python3 -m oomscope_agent` works with the system Python.
set(OOMSCOPE_AGENT_DIR ${PROJECT_SOURCE_DIR}/app/python-agent/oomscope_agent)
if(EXISTS ${OOMSCOPE_AGENT_DIR}/__init__.py OR EXISTS ${OOMSCOPE_AGENT_DIR}/__main__.py)
  install(DIRECTORY ${OOMSCOPE_AGENT_DIR} DESTINATION lib/python3/dist-packages COMPONENT agent
          FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE PATTERN "tests" EXCLUDE)
  list(APPEND components agent)
endif()

# Debian wants a copyright file in /usr/share/doc/<package>/ of every package.
foreach(component ${components})
  set(package_name oomscope)
  if(component STREQUAL "trainer")
    set(package_name oomscope-trainer)
  elseif(component STREQUAL "agent")
    set(package_name python3-oomscope-agent)
  endif()
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION share/doc/${package_name} RENAME copyright
          COMPONENT ${component})
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME oomscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "oomscope")
# Each package's description below starts with its own summary line. CPackDeb prepends the summary to every
# package unless it is CPack's default text, so it is set to that (it appears nowhere).
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGE_CONTACT "oomscope developers <noreply@oomscope.invalid>")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL ${components})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)           # <name>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)         # libisal2, zlib1g, Qt, protobuf: from what the programs link
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)     # no shared libraries of our own
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# oomscope: GUI, CLI, desktop integration, demo capture. The Qt platform plugins (xcb, wayland, offscreen)
# are loaded at run time, so dpkg-shlibdeps cannot see them. The MIME database, the desktop menu cache and
# the icon cache are refreshed by the dpkg triggers of shared-mime-info, desktop-file-utils and
# hicolor-icon-theme: no maintainer scripts needed.
set(CPACK_DEBIAN_OOMSCOPE_PACKAGE_NAME oomscope)
set(CPACK_DEBIAN_OOMSCOPE_PACKAGE_DEPENDS "qt6-qpa-plugins")
set(CPACK_DEBIAN_OOMSCOPE_PACKAGE_RECOMMENDS
    "shared-mime-info, desktop-file-utils, hicolor-icon-theme, bash-completion")
set(CPACK_DEBIAN_OOMSCOPE_PACKAGE_SUGGESTS "python3-oomscope-agent, oomscope-trainer")
set(CPACK_DEBIAN_OOMSCOPE_DESCRIPTION "Desktop debugger for GPU out-of-memory failures in ML training
oomscope opens what a failed training run left behind (JAX/XLA profiler
captures, .xplane.pb) and explains what the memory peak was made of, what to
change and what the change costs. This package has the Qt desktop program
(oomscope), the headless command line (oomscope-cli) with its man pages and
bash completion, the desktop file, icon and MIME types, and a demo capture
in /usr/share/oomscope/demo.")

set(CPACK_DEBIAN_TRAINER_PACKAGE_NAME oomscope-trainer)
set(CPACK_DEBIAN_TRAINER_PACKAGE_DEPENDS "oomscope (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_TRAINER_DESCRIPTION "oomscope demo trainer (LibTorch)
oomscope-demo-trainer trains a small point-cloud model with LibTorch under a
memory budget, splitting and retrying batches on out-of-memory errors, and
writes traces that oomscope opens. Its LibTorch dependencies come from
Debian's packages.")

set(CPACK_DEBIAN_AGENT_PACKAGE_NAME python3-oomscope-agent)
set(CPACK_DEBIAN_AGENT_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_AGENT_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_AGENT_PACKAGE_DEPENDS "python3")
set(CPACK_DEBIAN_AGENT_PACKAGE_SUGGESTS "python3-prometheus-client")  # renders /metrics when installed
set(CPACK_DEBIAN_AGENT_PACKAGE_SECTION python)
# Running the agent as root writes __pycache__ folders that dpkg does not own; remove them before removal.
set(CPACK_DEBIAN_AGENT_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_SOURCE_DIR}/debian/python3-oomscope-agent/prerm)
set(CPACK_DEBIAN_AGENT_DESCRIPTION "oomscope stats agent for Python training scripts
python3 -m oomscope_agent runs an unchanged training script with an agent that
serves its memory statistics to oomscope over a local socket. Standard
library only; it uses the framework the trainer already imports.")

include(CPack)
