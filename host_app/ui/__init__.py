"""The desktop windows of `svc-app`: the browser window and its panels, the Logs, Info and
Settings windows, the tray, the terminal, and the windows' client of the agent's API. The app
shell (`host_app.app`) is the one module outside this folder that imports it; what the windows
use of the engine is listed in docs/architecture.md (tests/host/test_folders.py)."""
