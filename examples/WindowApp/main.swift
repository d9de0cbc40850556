// A complete Linux window app with BridgeKit: a GTK window showing a page that calls native
// tasks, closed cleanly by its close button, by the page (App.close), or by Ctrl-C / SIGTERM.
// Build and run (needs a display, or `xvfb-run -a`):
//   swift build --traits WebKitGTK --scratch-path .build/gtk --product bridgekit-window-example
//   .build/gtk/debug/bridgekit-window-example
// docs/integration-linux.md walks through it.
import Foundation

#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import BridgeTasks

exit(GLibMainLoop.shared.runApp {
    try await WindowApp().run()
})
#else
FileHandle.standardError.write(Data("bridgekit-window-example: build with `--traits WebKitGTK`\n".utf8))
exit(2)
#endif
