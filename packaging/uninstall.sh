#!/bin/sh
# Remove what install.sh put in place for this bundle, and nothing else: the desktop entry if it
# names this folder, with it the icon (unless changed since), the links in $SVC_BIN_DIR that point
# here. Whatever another bundle installed since stays. The bundle folder and the user's data stay.
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
data=${XDG_DATA_HOME:-$HOME/.local/share}
bin=${SVC_BIN_DIR:-$HOME/.local/bin}

entry="$data/applications/svc-app.desktop"
icon="$data/icons/hicolor/scalable/apps/svc.svg"
if [ -f "$entry" ] && grep -qxF "X-Svc-Bundle=$here" "$entry"; then
    rm -f "$entry"
    echo "removed $entry"
    if [ -f "$icon" ] && cmp -s "$icon" "$here/share/svc.svg"; then
        rm -f "$icon"
        echo "removed $icon"
    fi
fi
for name in svc-app svc svc-mcp; do
    link="$bin/$name"
    if [ -L "$link" ] && [ "$(readlink "$link")" = "$here/$name" ]; then
        rm -f "$link"
        echo "removed $link"
    fi
done
