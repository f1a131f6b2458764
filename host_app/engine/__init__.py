"""The Qt runtime of the host: the sessions and the job runner (`runtime.Engine`), each session's
browser (`session_browser`, which implements the drivers' page protocols of `host_app.core` with
QtWebEngine through its parts: `session_pages`, `session_page`, `page_hooks`, `interceptor`,
`page_scripts`, `page_input`, `captures`, `traffic`, `route_hold`, `person`, `permissions`,
`session_assets`, `session_storage`, `session_log`; it sees the engine through
`browser_host.BrowserHost`), and the other Qt edges: `dialogs`, `downloads`,
`identity`, `memory`, `filters`, the page's devtools channel (`worker_cdp`) and the asset scheme
(`asset_scheme`, its network fetch `asset_fetch`, the shared cache `shared_assets`). What the
windows may read of it and ask of it is `window_port`, implemented over the engine and its
sessions' browsers by `window_adapter`, the one module that touches them for the windows.

Imports of the host: `engine/`, `core/`, `logic/`, `scripts/` and `qt`; never the windows (`ui/`)
or the app shell (tests/host/test_folders.py)."""
