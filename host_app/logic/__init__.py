"""Qt-free logic of the host app: everything here is plain Python that unit tests cover without an
event loop. The Qt edge (`host_app.engine`, `host_app.ui`, `host_app.supervisor`) translates Qt
objects into these plain values and acts on the decisions taken here."""
