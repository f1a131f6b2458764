#!/bin/sh
# Install this svc bundle for the current user, where it lies (nothing is copied):
#   the desktop entry  $XDG_DATA_HOME/applications/svc-app.desktop (Exec: this folder's svc-app)
#   the icon           $XDG_DATA_HOME/icons/hicolor/scalable/apps/svc.svg
#   the commands       svc, svc-mcp and svc-app as symbolic links in $SVC_BIN_DIR
# XDG_DATA_HOME defaults to ~/.local/share, SVC_BIN_DIR to ~/.local/bin. uninstall.sh removes
# exactly these, and only while they still belong to this bundle. Installing again (this bundle or
# another) replaces them; a command in SVC_BIN_DIR that is not a symbolic link is left alone.
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
data=${XDG_DATA_HOME:-$HOME/.local/share}
bin=${SVC_BIN_DIR:-$HOME/.local/bin}

for name in svc-app svc svc-mcp; do
    [ -x "$here/$name" ] || { echo "install.sh: $here/$name is missing" >&2; exit 1; }
done

mkdir -p "$data/applications" "$data/icons/hicolor/scalable/apps" "$bin"
entry="$data/applications/svc-app.desktop"
# Exec and TryExec point at this folder; X-Svc-Bundle tells uninstall.sh whose entry it is
sed -e "s|^Exec=svc-app\$|Exec=\"$here/svc-app\"|" \
    -e "/^Exec=/a TryExec=$here/svc-app" \
    -e "\$a X-Svc-Bundle=$here" \
    "$here/share/svc-app.desktop" > "$entry.tmp"
mv "$entry.tmp" "$entry"
cp "$here/share/svc.svg" "$data/icons/hicolor/scalable/apps/svc.svg"
echo "installed $entry"
echo "installed $data/icons/hicolor/scalable/apps/svc.svg"
for name in svc-app svc svc-mcp; do
    if [ -e "$bin/$name" ] && [ ! -L "$bin/$name" ]; then
        # a file of the user's own (a development install, say): never overwritten
        echo "install.sh: $bin/$name exists and is not a link; left alone" >&2
        continue
    fi
    ln -sfn "$here/$name" "$bin/$name"
    echo "installed $bin/$name -> $here/$name"
done
case ":$PATH:" in
    *":$bin:"*) ;;
    *) echo "note: $bin is not on PATH; add it to use svc and svc-mcp by name" ;;
esac
