#if WebKitGTK
import CWebKitGTK
import Foundation

/// The native halves of the bare reply-handler echo, the bare `evaluate_javascript` echo and the
/// peer designs (see ``PeerPage``), on one ``PeerWebView``. Every design decodes the same
/// ``BenchPayload`` with `JSONDecoder` and encodes it with `JSONEncoder` (BridgeKit's output
/// formatting, ``BareCodec/makeEncoder()``), as BridgeKit's typed task does; only `reply` skips the
/// codec (JSON text and back, the work of BridgeKit's `Echo` task).
///
/// Thread: main actor (the GTK thread); every handler runs there, as the designs' own handlers
/// run on the main thread (Capacitor's plugins hop to a queue and back; here they do not, which
/// only helps it).
@MainActor
final class PeerEngine {
    let view: PeerWebView
    private let decoder = JSONDecoder()
    private let encoder = BareCodec.makeEncoder()
    private var loaded = false
    /// DSBridge's reply cache: scripts not yet evaluated, and when it last flushed (seconds).
    private var dsbCache = ""
    private var dsbPending = false
    private var dsbLastFlush = 0.0

    /// The call modes of ``PeerPage``, with the words that name them in the tables.
    static let designs: [(mode: String, label: String)] = [
        ("wvjb", "WebViewJavascriptBridge"),
        ("dsbridge", "DSBridge (async)"),
        ("dsbridge-sync", "DSBridge (sync)"),
        ("capacitor", "Capacitor"),
        ("cordova", "Cordova"),
    ]

    /// Creates the view, registers every design's native half, loads ``PeerPage`` and waits for it.
    static func open() async throws -> PeerEngine {
        let engine = try PeerEngine()
        engine.view.loadHTML(PeerPage.html, baseURI: PeerPage.origin + "/")
        try await engine.view.waitUntil("the peer page") {
            await engine.view.evaluateReturningJSON("window.__peer && window.__peer.ready()") == "true"
        }
        return engine
    }

    private init() throws {
        view = try PeerWebView()
        registerBareEchoes()
        registerWVJB()
        registerDSBridge()
        registerCapacitorAndCordova()
    }

    func close() { view.close() }

    // MARK: bare echoes

    private func registerBareEchoes() {
        // The engine's limit: the posted JSON text answered as a string through the reply.
        view.register("peerreply", withReply: true) { value, reply in
            guard let reply, let text = jsc_value_to_string(value) else { return }
            defer { g_free(text) }
            if let answer = jsc_value_new_string(jsc_value_get_context(value), text) {
                webkit_script_message_reply_return_value(reply, answer)
                g_object_unref(UnsafeMutableRawPointer(answer))
            }
        }
        // The same with the typed task's codec work in between.
        view.register("peerreplytyped", withReply: true) { [decoder, encoder] value, reply in
            guard let reply, let text = Self.string(of: value),
                let payload = try? decoder.decode(BenchPayload.self, from: text),
                let out = try? encoder.encode(payload)
            else { return }
            let answer = String(decoding: out, as: UTF8.self).withCString {
                jsc_value_new_string(jsc_value_get_context(value), $0)
            }
            if let answer {
                webkit_script_message_reply_return_value(reply, answer)
                g_object_unref(UnsafeMutableRawPointer(answer))
            }
        }
        // The evaluate_javascript echo (one script per answer), typed.
        struct Call: Codable {
            let id: Int
            let data: BenchPayload
        }
        view.register("peereval", withReply: false) { [weak self, decoder, encoder] value, _ in
            guard let self, let json = Self.string(of: value), let call = try? decoder.decode(Call.self, from: json),
                let out = try? encoder.encode(call.data)
            else { return }
            self.view.evaluate("window.__peerEval(\(call.id), " + String(decoding: out, as: UTF8.self) + ")")
        }
    }

    /// The characters of a posted string (`jsc_value_to_string`), as UTF-8.
    private static func string(of value: UnsafeMutablePointer<JSCValue>) -> Data? {
        guard let text = jsc_value_to_string(value) else { return nil }
        defer { g_free(text) }
        return Data(bytes: text, count: strlen(text))
    }

    /// The JSON text of a posted value (`jsc_value_to_json`).
    private static func json(of value: UnsafeMutablePointer<JSCValue>) -> Data? {
        guard let text = jsc_value_to_json(value, 0) else { return nil }
        defer { g_free(text) }
        return Data(bytes: text, count: strlen(text))
    }

    // MARK: WebViewJavascriptBridge

    private struct WVJBMessage: Codable {
        let handlerName: String
        let data: BenchPayload
        let callbackId: String
    }

    private struct WVJBResponse: Codable {
        let responseId: String
        let responseData: BenchPayload
    }

    private func registerWVJB() {
        view.onNavigation = { [weak self] uri in
            guard uri.hasPrefix("https://__wvjb_queue_message__") else { return false }
            self?.view.evaluate("WebViewJavascriptBridge._fetchQueue();") { json in self?.wvjbFlush(json) }
            return true
        }
    }

    /// Handles the queue `_fetchQueue()` returned (its value's JSON text: a quoted JSON string).
    private func wvjbFlush(_ json: String?) {
        guard let json, let queueText = try? decoder.decode(String.self, from: Data(json.utf8)),
            let messages = try? decoder.decode([WVJBMessage].self, from: Data(queueText.utf8))
        else { return }
        for message in messages {
            guard
                let out = try? encoder.encode(WVJBResponse(responseId: message.callbackId, responseData: message.data))
            else {
                continue
            }
            view.evaluate("WebViewJavascriptBridge._handleMessageFromObjC('" + Self.wvjbEscaped(out) + "');")
        }
    }

    /// WVJB's escaping of JSON text pasted into a '…' literal: backslash, both quotes, \n, \r, \f,
    /// U+2028 and U+2029.
    nonisolated static func wvjbEscaped(_ json: Data) -> String {
        var out = [UInt8]()
        out.reserveCapacity(json.count + json.count / 8)
        var index = json.startIndex
        while index < json.endIndex {
            let byte = json[index]
            switch byte {
            case UInt8(ascii: "\\"): out += [0x5C, 0x5C]
            case UInt8(ascii: "\""): out += [0x5C, 0x22]
            case UInt8(ascii: "'"): out += [0x5C, 0x27]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x0C: out += [0x5C, UInt8(ascii: "f")]
            case 0xE2
            where index + 2 < json.endIndex && json[index + 1] == 0x80
                && (json[index + 2] == 0xA8 || json[index + 2] == 0xA9):
                out += Array((json[index + 2] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
                index += 2
            default: out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: DSBridge

    private struct DSBCall: Codable {
        let data: BenchPayload
        let _dscbstub: String?
    }

    private struct DSBResult: Codable {
        let code: Int
        let data: BenchPayload
    }

    private func registerDSBridge() {
        view.onPrompt = { [weak self] message, defaultText in
            guard let self, message.hasPrefix("_dsbridge="),
                let call = try? self.decoder.decode(DSBCall.self, from: Data(defaultText.utf8)),
                let out = try? self.encoder.encode(DSBResult(code: 0, data: call.data))
            else { return nil }
            guard let stub = call._dscbstub else { return String(decoding: out, as: UTF8.self) }  // synchronous
            self.dsbQueue(
                "try {\(stub)(JSON.parse(decodeURIComponent(\"\(Self.percentEncoded(out))\")).data);delete window.\(stub); } catch(e){};"
            )
            return #"{"code":0}"#
        }
    }

    /// DSBridge's throttle: a result goes out at once when the last flush was 50 ms ago or more,
    /// otherwise it waits in the cache for a flush 50 ms later.
    private func dsbQueue(_ script: String) {
        dsbCache += script
        if Measure.now() - dsbLastFlush < 0.050 {
            guard !dsbPending else { return }
            dsbPending = true
            dsbFlush(after: .milliseconds(50))
        } else {
            dsbFlush(after: .zero)
        }
    }

    private func dsbFlush(after delay: Duration) {
        Task { @MainActor [weak self] in
            if delay > .zero { try? await Task.sleep(for: delay) }
            guard let self, !self.dsbCache.isEmpty else { return }
            self.view.evaluate(self.dsbCache)
            self.dsbCache = ""
            self.dsbPending = false
            self.dsbLastFlush = Measure.now()
        }
    }

    /// Percent-encodes JSON text for `decodeURIComponent("…")`: every byte but letters, digits and
    /// `-_.!~*'()` (what `encodeURIComponent` leaves) becomes `%XX`.
    nonisolated static func percentEncoded(_ json: Data) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(json.count * 2)
        for byte in json {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "~"),
                UInt8(ascii: "*"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Capacitor and Cordova

    private struct CapacitorCall: Codable {
        let type: String
        let callbackId: String
        let pluginId: String
        let methodName: String
        let options: BenchPayload
    }

    /// Cordova's `[callbackId, service, action, args]`.
    private struct CordovaCall: Decodable {
        let callbackId: String
        let service: String
        let action: String
        let payload: BenchPayload

        init(from decoder: any Decoder) throws {
            var array = try decoder.unkeyedContainer()
            callbackId = try array.decode(String.self)
            service = try array.decode(String.self)
            action = try array.decode(String.self)
            var args = try array.nestedUnkeyedContainer()
            payload = try args.decode(BenchPayload.self)
        }
    }

    private func registerCapacitorAndCordova() {
        view.register("bridge", withReply: false) { [weak self] value, _ in
            guard let self, let json = Self.json(of: value),
                let call = try? self.decoder.decode(CapacitorCall.self, from: json),
                let out = try? self.encoder.encode(call.options)
            else { return }
            // Capacitor pastes callbackId, pluginId and methodName between quotes unescaped.
            self.view.evaluate(
                "window.Capacitor.fromNative({callbackId:'\(call.callbackId)', pluginId:'\(call.pluginId)', "
                    + "methodName:'\(call.methodName)', save:false, success:true, data:"
                    + String(decoding: out, as: UTF8.self) + "})")
        }
        view.register("cordova", withReply: false) { [weak self] value, _ in
            guard let self, let json = Self.json(of: value),
                let call = try? self.decoder.decode(CordovaCall.self, from: json),
                call.callbackId.count <= 100,
                call.callbackId.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }),
                let out = try? self.encoder.encode(call.payload)
            else { return }
            self.view.evaluate(
                "cordova.require('cordova/exec').nativeCallback('\(call.callbackId)',1,"
                    + String(decoding: out, as: UTF8.self) + ",false,false)")
        }
    }

    // MARK: running

    /// Stores `payload` in the page under `key`.
    func setPayload(_ payload: BenchPayload, key: String) async throws {
        let json = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        _ = await view.evaluateReturningJSON("window.__peer.setPayload(\(Self.quoted(key)), \(json)), 0")
    }

    /// Forgets the payload `key` in the page.
    func dropPayload(key: String) async {
        _ = await view.evaluateReturningJSON("window.__peer.dropPayload(\(Self.quoted(key))), 0")
    }

    /// Runs `count` calls of payload `key` through `mode`, `width` at a time, after one call
    /// compared in full (without `verify`: exactly `count` calls, each checked by size).
    /// - Returns: seconds per call, measured in the page.
    func run(_ mode: String, key: String, count: Int, width: Int = 1, verify: Bool = true) async throws -> Double {
        _ = await view.evaluateReturningJSON(
            "window.__peer.start(\(Self.quoted(mode)), \(Self.quoted(key)), \(count), \(width), \(verify)), 0")
        struct Outcome: Decodable {
            let ms: Double?
            let error: String?
        }
        var outcome: Outcome?
        try await view.waitUntil("\(count) \(mode) calls of \(key)", pollEvery: .milliseconds(20)) {
            guard let json = await self.view.evaluateReturningJSON("window.__peer.result"), json != "null" else {
                return false
            }
            outcome = try? JSONDecoder().decode(Outcome.self, from: Data(json.utf8))
            return true
        }
        if let error = outcome?.error { throw PeerWebView.Failure.javaScript(error) }
        guard let ms = outcome?.ms else { throw PeerWebView.Failure.javaScript("no result") }
        return ms / 1000 / Double(max(count, 1))
    }

    /// The WebKitGTK version the process runs with, e.g. "2.50.6".
    nonisolated static var webKitVersion: String {
        "\(webkit_get_major_version()).\(webkit_get_minor_version()).\(webkit_get_micro_version())"
    }

    nonisolated static func quoted(_ text: String) -> String {
        (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
#endif
