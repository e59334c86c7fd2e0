#!/usr/bin/env bash
# Installs oomscope like a user would and removes it again, on this machine (CI; root only):
# builds the release preset and its Debian packages, `apt-get install`s them, checks the installed programs,
# man pages, completion, desktop file, MIME types and file association, then `apt-get purge`s them and checks
# that every file the packages installed is gone. Packages are purged on failure too.
# Usage: packaging/test-deb.sh          (builds the release preset, as docs/install.md tells users to)
#        OOMSCOPE_DEB_PRESET=ci packaging/test-deb.sh
#                                       (.ci/run: packages the ci build that scripts/test.sh just built and
#                                        tested, the same install rules and stripped binaries, instead of
#                                        compiling the whole product a second time)
set -euo pipefail
cd "$(dirname "$0")/.."
START=$(date +%s)
PRESET="${OOMSCOPE_DEB_PRESET:-release}"
case "$PRESET" in release | ci) ;; *) printf '[test-deb] FAIL: OOMSCOPE_DEB_PRESET must be release or ci\n' >&2; exit 1 ;; esac
BUILD="$PWD/build/$PRESET"
log() { printf '[test-deb] %s\n' "$*"; }
fail() { printf '[test-deb] FAIL: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "run as root: it installs and purges packages on this machine"
packaging/install-deps.sh

log "configuring and building the $PRESET preset and its packages"
cmake --preset "$PRESET" >/dev/null
rm -f "$BUILD"/*.deb
cmake --build --preset "$PRESET" --target package >"$BUILD/package.log" 2>&1 || { tail -30 "$BUILD/package.log"; fail "package build"; }
BUILT=$(date +%s)

MAIN=$(ls "$BUILD"/oomscope_*.deb)
DEBS=("$MAIN")
PACKAGES=(oomscope)
for extra in python3-oomscope-agent oomscope-trainer; do
  for deb in "$BUILD/${extra}"_*.deb; do
    [ -e "$deb" ] && DEBS+=("$deb") && PACKAGES+=("$extra")
  done
done
log "built: ${DEBS[*]}"

for p in "${PACKAGES[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed; then
    fail "$p is already installed here; purge it first (apt-get purge -y $p) so that leftovers can be seen"
  fi
done

# What the packages declare: dependencies from dpkg-shlibdeps, nothing of the trainer in oomscope.
DEPENDS=$(dpkg-deb -f "$MAIN" Depends)
log "oomscope Depends: $DEPENDS"
for lib in libqt6widgets6 libprotobuf libc6 qt6-qpa-plugins; do
  grep -q "$lib" <<<"$DEPENDS" || fail "oomscope does not depend on $lib (dpkg-shlibdeps)"
done
if dpkg-deb -c "$MAIN" | grep -q -E 'oomscope-demo-trainer|dist-packages'; then
  fail "the oomscope package holds the trainer or the Python agent; they have packages of their own"
fi
if dpkg-deb -c "$MAIN" | grep -q -E 'libtorch|libQt6|libprotobuf'; then
  fail "the oomscope package bundles a library Debian ships"
fi

purge() { apt-get purge -y -q "${PACKAGES[@]}" >"$BUILD/purge.log" 2>&1; }
trap 'log "purging after a failure"; purge || true' EXIT

export DEBIAN_FRONTEND=noninteractive
log "apt-get install -y ${DEBS[*]}"
apt-get install -y -q "${DEBS[@]}" >"$BUILD/install.log" 2>&1 || { tail -30 "$BUILD/install.log"; fail "apt-get install"; }
FILES=$(mktemp)
for p in "${PACKAGES[@]}"; do dpkg -L "$p"; done | sort -u | while read -r f; do
  [ -f "$f" ] || [ -L "$f" ] && echo "$f"
done >"$FILES"
log "installed $(wc -l <"$FILES") files"

DEMO=/usr/share/oomscope/demo/jax0.8_te2.8_rocm_gfx950_fused_attn.xplane.pb
WORK=$(mktemp -d)
cd "$WORK"   # nothing below may depend on the source tree

log "oomscope-cli info on the installed demo capture"
/usr/bin/oomscope-cli info "$DEMO" >info.txt || fail "oomscope-cli info $DEMO"
grep -q "jit_" info.txt || fail "oomscope-cli info printed no module: $(head -5 info.txt)"
/usr/bin/oomscope-cli --version | head -1 | grep -q '^oomscope-cli [0-9]' || fail "oomscope-cli --version"
/usr/bin/oomscope --version >gui-version.txt || fail "oomscope --version (without a display)"
grep -q '^oomscope [0-9]' gui-version.txt && grep -q '^commit: ' gui-version.txt || fail "oomscope --version: $(cat gui-version.txt)"
/usr/bin/oomscope --help | grep -q 'Usage: /usr/bin/oomscope\|Usage: oomscope' || fail "oomscope --help"

log "man pages"
for page in oomscope oomscope-cli; do
  [ -f /usr/share/man/man1/$page.1.gz ] || fail "no man page for $page"
  zcat /usr/share/man/man1/$page.1.gz | grep -q '^\.SH NAME' || fail "man page of $page has no NAME section"
done
if command -v man >/dev/null; then
  MANWIDTH=100 man oomscope-cli 2>/dev/null | grep -q 'simulate split-and-retry' || fail "man oomscope-cli does not show the command list"
fi

log "bash completion"
COMPLETION=/usr/share/bash-completion/completions/oomscope-cli
[ -f "$COMPLETION" ] || fail "no bash completion installed"
words=$(bash -c 'compopt() { :; }; source "$1"; COMP_WORDS=(oomscope-cli ""); COMP_CWORD=1; _oomscope_cli; echo "${COMPREPLY[*]}"' _ "$COMPLETION")
for c in $(/usr/bin/oomscope-cli --help | awk '/^  [a-z]/ {print $1}'); do
  grep -qw -- "$c" <<<"$words" || fail "completion does not offer the command $c (it offers: $words)"
done

if [[ " ${PACKAGES[*]} " == *" python3-oomscope-agent "* ]]; then
  log "python3 -m oomscope_agent --help (system Python)"
  # With byte-code writing on (as for most users), so that purging must also remove the __pycache__ it leaves.
  env -u PYTHONDONTWRITEBYTECODE /usr/bin/python3 -m oomscope_agent --help >agent-help.txt \
    || fail "python3 -m oomscope_agent --help"
  [ -d /usr/lib/python3/dist-packages/oomscope_agent/__pycache__ ] \
    || fail "the agent ran, but wrote no __pycache__ (expected one, to test its removal)"
fi

if [[ " ${PACKAGES[*]} " == *" oomscope-trainer "* ]]; then
  log "oomscope-demo-trainer --help (LibTorch from Debian's packages)"
  /usr/bin/oomscope-demo-trainer --help >trainer-help.txt || fail "oomscope-demo-trainer --help"
fi

log "desktop file and MIME types"
desktop-file-validate /usr/share/applications/oomscope.desktop || fail "desktop-file-validate"
grep -q '^Exec=oomscope %F$' /usr/share/applications/oomscope.desktop || fail "desktop Exec line"
xmllint --noout /usr/share/mime/packages/oomscope.xml || fail "xmllint oomscope.xml"
# The system database, as rebuilt by shared-mime-info's trigger: every type, by name or by content.
python3 -c "import pickle; pickle.dump({'segments': [], 'device_traces': [], 'allocator_settings': {}}, open('snapshot.bin', 'wb'), protocol=4)"
cp "$DEMO" capture.xplane.pb
gzip -c "$DEMO" >capture.xplane.pb.gz
printf 'OOMSCOPE-LIVE-RECORDING 1\n' | gzip >session.oomlive
for pair in "capture.xplane.pb application/x-xplane-protobuf" "capture.xplane.pb.gz application/x-xplane-protobuf-gzip" \
            "snapshot.bin application/x-pytorch-memory-snapshot" "session.oomlive application/x-oomscope-recording"; do
  set -- $pair
  got=$(env -u XDG_DATA_HOME XDG_DATA_DIRS=/usr/local/share:/usr/share HOME="$WORK" mimetype -b "$1")
  [ "$got" = "$2" ] || fail "MIME type of $1 is $got, expected $2"
done
# The association of every type the desktop file lists, for root with no desktop session: the system
# defaults only (mimeinfo.cache, built by the desktop-file-utils trigger), not a user's mimeapps.list.
TYPES=$(sed -n 's/^MimeType=//p' /usr/share/applications/oomscope.desktop | tr ';' ' ')
[ -n "$TYPES" ] || fail "the desktop file lists no MIME type"
for type in $TYPES; do
  got=$(env -u XDG_CURRENT_DESKTOP -u DESKTOP_SESSION -u KDE_FULL_SESSION -u GNOME_DESKTOP_SESSION_ID \
        -u XDG_CONFIG_HOME -u XDG_DATA_HOME XDG_DATA_DIRS=/usr/local/share:/usr/share HOME="$WORK" \
        xdg-mime query default "$type")
  [ "$got" = "oomscope.desktop" ] || fail "xdg-mime query default $type gives '$got', expected oomscope.desktop"
  log "xdg-mime query default $type: $got"
done
INSTALLED=$(date +%s)

log "apt-get purge -y ${PACKAGES[*]}"
cd /
purge || { tail -20 "$BUILD/purge.log"; fail "apt-get purge"; }
trap - EXIT
left=0
while read -r f; do
  if [ -e "$f" ] || [ -L "$f" ]; then echo "left behind: $f" >&2; left=1; fi
done <"$FILES"
for dir in /usr/share/oomscope /usr/lib/python3/dist-packages/oomscope_agent; do
  [ ! -e "$dir" ] || { echo "left behind: $dir" >&2; left=1; }
done
grep -rq 'oomscope' /usr/share/applications/mimeinfo.cache 2>/dev/null && { echo "left behind: oomscope in mimeinfo.cache" >&2; left=1; }
rm -rf "$WORK" "$FILES"
[ "$left" -eq 0 ] || fail "purge left files behind"
END=$(date +%s)
log "OK: build+package $((BUILT - START)) s, install+checks $((INSTALLED - BUILT)) s, purge $((END - INSTALLED)) s, total $((END - START)) s"
