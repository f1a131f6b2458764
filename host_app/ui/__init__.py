"""The desktop windows of `svc-app`: the browser window and its panels, the Logs, Info and
Settings windows, the tray, the terminal, and the windows' client of the agent's API. The app
shell (`host_app.app`) is the one module outside this folder that imports it. The windows reach
the engine only through its window port (`host_app.engine.window_port`), which the shell hands
them, and change its state only through the port's operations (tests/host/test_folders.py)."""
