"""`make bundle`: build `dist/svc/` (PyInstaller one-folder, see `svc.spec`) and `dist/svc.tar.gz`.

Steps: write the build metadata (`build_info.py`), run PyInstaller on `svc.spec`, add the
install and uninstall scripts, the desktop entry and the icon, check that QtWebEngine's helper
process, resources and locales landed, pack the folder. Prints the build time and sizes.
Run by path with the project's virtualenv: `.venv/bin/python packaging/bundle.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXECUTABLES = ("svc-app", "svc", "svc-mcp")
# QtWebEngine's pieces that PyInstaller's PyQt6 hooks must have collected (under _internal/)
QT = Path("PyQt6") / "Qt6"
WEBENGINE_FILES = (
    QT / "libexec" / "QtWebEngineProcess",
    QT / "resources" / "qtwebengine_resources.pak",
    QT / "resources" / "icudtl.dat",
    QT / "translations" / "qtwebengine_locales" / "en-US.pak",
)

# run as a script, this folder is sys.path[0] (it is not a package: `packaging` is a PyPI name)
from build_info import collect  # noqa: E402


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def check(bundle: Path) -> None:
    missing = [name for name in EXECUTABLES if not os.access(bundle / name, os.X_OK)]
    missing += [str(rel) for rel in WEBENGINE_FILES if not (bundle / "_internal" / rel).is_file()]
    if missing:
        raise SystemExit(f"bundle: missing from {bundle}: {', '.join(missing)}")


def add_install_files(bundle: Path) -> None:
    for script in ("install.sh", "uninstall.sh"):
        shutil.copy(HERE / script, bundle / script)
        (bundle / script).chmod(0o755)
    share = bundle / "share"
    share.mkdir(exist_ok=True)
    shutil.copy(HERE / "svc-app.desktop", share / "svc-app.desktop")
    shutil.copy(HERE / "icons" / "svc.svg", share / "svc.svg")


def pack(bundle: Path, archive: Path) -> None:
    with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
        tar.add(bundle, arcname=bundle.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="build dist/svc and dist/svc.tar.gz")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "bundle")
    parser.add_argument("--configuration", default="release")
    parser.add_argument("--no-archive", action="store_true", help="skip dist/svc.tar.gz")
    args = parser.parse_args(argv)
    started = time.monotonic()
    args.work.mkdir(parents=True, exist_ok=True)
    info = collect(ROOT, args.configuration)
    info_path = args.work / "svc-build.json"
    info_path.write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    print(f"bundle: build {json.dumps(info)}", flush=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level=WARN",
            f"--distpath={args.dist}",
            f"--workpath={args.work / 'pyinstaller'}",
            str(HERE / "svc.spec"),
        ],
        check=True,
        cwd=ROOT,
        env=os.environ | {"SVC_BUILD_INFO": str(info_path)},
    )
    bundle = args.dist / "svc"
    add_install_files(bundle)
    check(bundle)
    built = time.monotonic() - started
    print(f"bundle: {bundle} built in {built:.0f} s, {folder_size(bundle) / 2**20:.0f} MiB")
    if not args.no_archive:
        archive = args.dist / "svc.tar.gz"
        pack(bundle, archive)
        print(
            f"bundle: {archive} {archive.stat().st_size / 2**20:.0f} MiB, "
            f"{time.monotonic() - started:.0f} s in all"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
