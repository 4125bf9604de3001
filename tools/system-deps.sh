#!/usr/bin/env bash
# The system libraries reportgen's PDF export needs (WeasyPrint: Pango, HarfBuzz) and the
# fonts its charts and pages are drawn with (Liberation Sans for the charts, DejaVu as the
# fallback). Installs the missing ones with
# apt-get when run as root (or with password-less sudo) on Debian/Ubuntu; otherwise says
# what to install. Safe to re-run: it does nothing when everything is there.
set -uo pipefail
need=()
have_lib() { ldconfig -p 2>/dev/null | grep -q "$1"; }
have_lib 'libpango-1.0.so' || need+=(libpango-1.0-0)
have_lib 'libpangoft2-1.0.so' || need+=(libpangoft2-1.0-0)
have_lib 'libharfbuzz.so' || need+=(libharfbuzz0b)
have_lib 'libharfbuzz-subset.so' || need+=(libharfbuzz-subset0)
if ! { command -v fc-list >/dev/null && fc-list 2>/dev/null | grep -q 'DejaVuSans'; }; then
    need+=(fontconfig fonts-dejavu-core)
fi
if ! { command -v fc-list >/dev/null && fc-list 2>/dev/null | grep -q 'LiberationSans-Regular'; }; then
    need+=(fonts-liberation)
fi
if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
echo "reportgen: installing system packages for the PDF export: ${need[*]}" >&2
if command -v apt-get >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq >/dev/null && \
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${need[@]}" >/dev/null && exit 0
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        sudo -n apt-get update -qq >/dev/null && \
            sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends "${need[@]}" >/dev/null && exit 0
    fi
fi
echo "reportgen: could not install them; install these packages yourself (Debian/Ubuntu" \
     "names): ${need[*]}. Without them only 'reportgen run --format html,ipynb' works." >&2
exit 0
