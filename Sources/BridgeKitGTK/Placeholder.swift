// WebKitGTK host (trait WebKitGTK).
