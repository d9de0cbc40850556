#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import BridgeTasks
import Foundation
import Synchronization

/// One run of bridgehost: a web view with the stock, mocked and control tasks, the page, the log.
@MainActor
struct HostRun {
    /// The origin the bundled demo page is loaded with.
    static let demoOrigin = "https://page.bridgekit.invalid"

    let options: HostOptions
    let printer: TrafficPrinter

    /// Runs the page until it calls `bridgehost.done` (or, with `--window`, until the window is
    /// closed), the page fails to load, or the time limit passes.
    /// - Returns: the process exit status.
    /// - Throws: a ``MockFile/LoadError``, a ``HostRunError`` or a ``GTKWebViewError`` when the
    ///   run cannot start.
    func run() async throws -> Int32 {
        let mocks = try options.mockFile.map { path throws(MockFile.LoadError) in try MockFile.load(path) }
        let source = try PageSource.resolve(options.page)
        var server: PageServer?
        let pageURL: URL?
        let pageOrigin: String
        switch source {
        case .demo:
            pageURL = nil
            pageOrigin = Self.demoOrigin
        case .remote(let url):
            pageURL = url
            pageOrigin = SecurityOrigin(url: url)?.description ?? url.absoluteString
        case .file(let file):
            let started = try PageServer(folder: file.deletingLastPathComponent()) { [printer] path, status in
                printer.event(
                    "http", ["path": .string(path), "status": .int(Int64(status))],
                    human: "http \(status) \(path) (not served from the page's folder)")
            }
            server = started
            guard let url = started.url(of: file) else { throw HostRunError.cannotServe(file.path) }
            pageURL = url
            pageOrigin = started.origin
        }

        let patterns = ([pageOrigin] + options.extraOrigins).map { OriginPattern($0) }
        let timeout = options.effectiveTimeout ?? 30
        let router = BridgeRouter(
            configuration: BridgeConfiguration(policy: .origins(patterns), defaultTimeout: .seconds(timeout)))
        let control = HostControl(doneEndsRun: !options.window)
        let errors = ErrorTally(control: control)
        router.setTrafficObserver { [printer] (record: TrafficRecord) in
            printer.record(record)
            errors.note(record)
            control.noteReply(record)
        }
        let history = HistoryTask()
        // Binary values (issue 26): the byte transport and the File tasks, in the developer's
        // folder (--files) or a folder of this run.
        let transfers = BinaryTransfers(router: router)
        let files: URL
        if let given = options.filesDirectory {
            files = URL(fileURLWithPath: given, isDirectory: true)
        } else {
            files = FileManager.default.temporaryDirectory.appendingPathComponent(
                "bridgehost-files-\(ProcessInfo.processInfo.processIdentifier)")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        }
        defer { if options.filesDirectory == nil { try? FileManager.default.removeItem(at: files) } }
        // With --window and no --alert-choice, the Alert task asks the person in a dialog on the
        // window (made below).
        let shownWindow = ShownWindow()
        let alertDialog =
            options.window && options.alertChoice == nil ? GTKAlertPresenter(window: { shownWindow.window }) : nil
        _ = try HostTasks.register(
            in: router, control: control, history: history,
            files: HostTasks.FileTasks(transfers: transfers, directory: files), mocks: mocks,
            alertChoice: options.alertChoice, alertDialog: alertDialog, printer: printer)
        let historyLog = Task { [printer] in
            for await notice in history.notices {
                printer.event(
                    "history", ["type": .string(notice.type.rawValue), "url": .string(notice.url.absoluteString)],
                    human: "history \(notice.type.rawValue) \(notice.url.absoluteString)")
            }
        }

        let webView = try GTKWebView(
            configuration: GTKWebViewConfiguration(
                applicationName: "bridgehost", applicationVersion: "1", developerExtrasEnabled: options.window))
        webView.suppressesErrorPages = !options.window
        try GTKConsoleOutput.install(on: webView) { [printer] body in
            printer.console(
                level: body.level, kind: body.kind, message: body.message, source: body.source, line: body.line)
        }
        let host = WebKitGTKBridgeHost(router: router, webView: webView)
        host.onMessage = { [printer] message in
            printer.message(inbound: message.direction == .inbound, json: message.json)
        }
        // Binary values' transfers, each logged once as it ends (a value no task read is not one).
        transfers.setTransferObserver { [printer] record in
            let outcome: String
            switch record.outcome {
            case .finished: outcome = "finished"
            case .failed(let code): outcome = code
            case .cancelled: outcome = "cancelled"
            }
            var fields: [String: JSONValue] = [
                "direction": .string(record.direction.rawValue), "bytes": .int(Int64(record.bytes)),
                "outcome": .string(outcome),
            ]
            if let id = record.callID { fields["id"] = .string(id) }
            let call = record.callID.map { " (call #\(TrafficPrinter.shortID($0)))" } ?? ""
            printer.event(
                "transfer", fields,
                human: "transfer \(record.direction.rawValue) \(record.bytes) bytes \(outcome)\(call)")
        }
        host.binaryTransfers = transfers
        try host.attach()

        let loadWatch = Task { [printer, tracker = host.page.tracker] in
            for await event in tracker.events() {
                guard case .loadFailed(let error) = event else { continue }
                printer.event(
                    "loadFailed",
                    [
                        "error": .string(error.description),
                        "url": error.url.map { .string($0.absoluteString) } ?? .null,
                    ],
                    human: "load failed: \(error.description)")
                control.end(.loadFailed(error.description))
            }
        }
        let loaded = LoadWaiter()
        host.page.onLoadEvent = { (event: GTKLoadEvent) in if event == .finished { loaded.finish() } }

        var window: GTKWindow?
        if options.window {
            let shown = try GTKWindow(title: "bridgehost: \(options.page ?? "demo")", width: 1024, height: 768)
            try shown.setContent(webView)
            shown.closesOnTerminationSignals()
            shown.onCloseRequest = { control.end(.windowClosed) }
            shown.present()
            window = shown
            shownWindow.window = shown
        }

        let shownURL = pageURL?.absoluteString ?? Self.demoOrigin + "/ (bundled demo)"
        var loadFields: [String: JSONValue] = [
            "page": .string(options.page ?? "demo"), "url": .string(shownURL), "origin": .string(pageOrigin),
        ]
        if let server { loadFields["folder"] = .string(server.root.path) }
        printer.event(
            "load", loadFields, human: "load \(shownURL)" + (server.map { " (serving \($0.root.path))" } ?? ""))
        if let pageURL {
            try webView.load(uri: pageURL.absoluteString)
        } else {
            try webView.loadHTML(DemoPage.source, baseURI: Self.demoOrigin + "/")
        }
        if let scriptFile = options.scriptFile {
            let script = try String(contentsOfFile: scriptFile, encoding: .utf8)
            Task {
                await loaded.wait()
                do {
                    try await webView.evaluateJavaScript(script)
                    printer.event("script", ["file": .string(scriptFile)], human: "script \(scriptFile) ran")
                } catch {
                    printer.event(
                        "script", ["file": .string(scriptFile), "error": .string("\(error)")],
                        human: "script \(scriptFile) failed: \(error)")
                }
            }
        }

        let end = await control.waitForEnd(timeout: options.effectiveTimeout)
        loadWatch.cancel()
        historyLog.cancel()
        await host.close()
        window?.close()
        server?.stop()
        history.finish()
        return summarize(end, done: control.done, unexpected: errors.unexpectedReplies, errors: errors.total)
    }

    /// Prints the summary and returns the exit status.
    /// - Parameter unexpectedReplies: the error replies no `bridgehost.expectError` announced,
    ///   as "task #id code" (a call the page cancelled itself is no error).
    private func summarize(
        _ end: HostControl.End, done: HostControl.Done?, unexpected unexpectedReplies: [String], errors: Int
    ) -> Int32 {
        let unexpected = unexpectedReplies.count
        printer.flush()
        let counts = printer.counts
        let endText: String
        switch end {
        case .done: endText = "done"
        case .timedOut: endText = "timedOut"
        case .loadFailed: endText = "loadFailed"
        case .windowClosed: endText = "windowClosed"
        }
        var fields: [String: JSONValue] = [
            "finished": .bool(done != nil), "pageOK": .bool(done?.ok ?? false), "end": .string(endText),
            "errors": .int(Int64(errors)), "unexpectedErrors": .int(Int64(unexpected)),
            "unexpectedReplies": .array(unexpectedReplies.map(JSONValue.string)),
            "pageCalls": .int(Int64(counts.pageCalls)), "nativeCalls": .int(Int64(counts.nativeCalls)),
            "consoleLines": .int(Int64(counts.consoleLines)), "pageErrors": .int(Int64(counts.pageErrors)),
        ]
        if let rate = done?.roundTripsPerSecond, rate.isFinite {
            fields["roundTripsPerSecond"] = .double(rate.rounded())
        }
        if let error = done?.error { fields["pageError"] = .string(error) }
        if let lines = done?.summary { fields["summary"] = .array(lines.map(JSONValue.string)) }

        var human: [String] = []
        let outcome: String
        switch end {
        case .loadFailed(let description): outcome = "the page failed to load: \(description)"
        case .timedOut where done == nil:
            outcome = "the page did not call bridgehost.done within \(Int(options.effectiveTimeout ?? 0)) s"
        case .windowClosed where done == nil: outcome = "the window was closed before the page called bridgehost.done"
        default:
            outcome =
                done?.ok == true ? "the page finished and reported ok" : "the page finished and reported a failure"
        }
        human.append("Summary: \(outcome)" + (done?.error.map { " (\($0))" } ?? ""))
        for line in done?.summary ?? [] { human.append("  page: \(line)") }
        human.append(
            "  calls: \(counts.pageCalls) from the page, \(counts.nativeCalls) from native; "
                + "error replies: \(errors) (\(errors - unexpected) announced with bridgehost.expectError)")
        if !unexpectedReplies.isEmpty {
            human.append("  not announced: " + unexpectedReplies.joined(separator: ", "))
        }
        human.append("  console: \(counts.consoleLines) lines; page errors: \(counts.pageErrors)")
        if let rate = done?.roundTripsPerSecond, rate.isFinite {
            human.append("  round trips per second: \(Int(rate.rounded()))")
        }
        if printer.style == .human {
            printer.plain(human)
        } else {
            printer.event("summary", fields)
        }

        if case .loadFailed = end { return 3 }
        guard options.strict else { return 0 }
        return done?.ok == true && unexpected == 0 && counts.pageErrors == 0 ? 0 : 1
    }
}

/// Where the page comes from.
enum PageSource: Equatable {
    /// The bundled demo page.
    case demo
    /// A local HTML file, served with its folder.
    case file(URL)
    /// An http(s) URL.
    case remote(URL)

    /// Reads the PAGE argument: nothing, an http(s) URL, a `file://` URL or a path.
    /// - Throws: ``HostRunError`` for another scheme or a file that cannot be read.
    static func resolve(_ page: String?) throws(HostRunError) -> PageSource {
        guard let page else { return .demo }
        if let url = URL(string: page), let scheme = url.scheme?.lowercased(), scheme.count > 1 {
            switch scheme {
            case "http", "https": return .remote(url)
            case "file": return try local(url.path)
            default: throw .unsupportedPage(page)
            }
        }
        return try local(page)
    }

    private static func local(_ path: String) throws(HostRunError) -> PageSource {
        let file = URL(fileURLWithPath: path).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else {
            throw .noSuchPage(path)
        }
        if isDirectory.boolValue {
            let index = file.appendingPathComponent("index.html")
            guard FileManager.default.isReadableFile(atPath: index.path) else { throw .noSuchPage(index.path) }
            return .file(index)
        }
        guard FileManager.default.isReadableFile(atPath: file.path) else { throw .noSuchPage(path) }
        return .file(file)
    }
}

/// Why a run cannot start.
enum HostRunError: Error, CustomStringConvertible, Equatable {
    case noSuchPage(String)
    case unsupportedPage(String)
    case cannotServe(String)

    var description: String {
        switch self {
        case .noSuchPage(let path): "cannot read the page \(path): no such file"
        case .unsupportedPage(let page): "cannot load \(page): give an .html file, a file:// URL or an http(s) URL"
        case .cannotServe(let path): "cannot serve \(path) from its folder"
        }
    }
}

/// The window of a `--window` run, once it is made (the Alert dialog's parent).
@MainActor
final class ShownWindow {
    weak var window: GTKWindow?
}
#endif
