"""The Qt-free drivers of the host: what a bridge command means (`dispatch`), the operations on
a page (`operations`: navigation, readiness, captures, screenshots), the one action executor
(`actions`) over a selector's or a ref's target (`ref_target`), observations, their frames and
what is kept of each (`observations`, `frame_reads`, `kept`), the renderer's own progress
counters (`progress`), and the page scripts these send (`js`, `observe_js`: each a typed
`page_driver.Call` that names its script and reads its answer). They drive a page through the
protocols of `page_driver` (`PageDriver`, `ObsDriver` and their parts, `Session` the whole; one
method, `run`, for every script), which `host_app.engine.session_browser` implements with
QtWebEngine.

Imports of the host: only `core/`, `logic/` and `scripts/`; no Qt (tests/host/test_folders.py)."""
