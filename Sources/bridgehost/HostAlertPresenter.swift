#if WebKitGTK
import BridgeKit
import BridgeKitGTK
import BridgeTasks

/// Answers the `Alert` task with the button `--alert-choice` names (a title, or else an index
/// from 0, so a button titled "5" is found by its title; default the last button), or, with
/// `--window` and no `--alert-choice`, with the button the person clicks in a GTK dialog
/// (``GTKAlertPresenter``), and logs what it showed.
struct HostAlertPresenter: AlertPresenter {
    let choice: String?
    let printer: TrafficPrinter
    /// The dialog that asks the person, when the run shows a window and names no choice.
    var dialog: GTKAlertPresenter? = nil

    func present(_ request: AlertRequest) async throws -> Int {
        let last = max(request.buttons.count - 1, 0)
        var index = last
        var note: String?
        if let dialog {
            index = try await dialog.present(request)
        } else if let choice {
            if let found = request.buttons.firstIndex(of: choice) {
                index = found
            } else if let number = Int(choice) {
                if request.buttons.indices.contains(number) {
                    index = number
                } else {
                    note = "no button \(number); chose the last"
                }
            } else {
                note = "no button titled \"\(choice)\"; chose the last"
            }
        }
        let chosen = request.buttons.indices.contains(index) ? request.buttons[index] : ""
        var fields: [String: JSONValue] = [
            "title": request.title.map(JSONValue.string) ?? .null,
            "message": request.message.map(JSONValue.string) ?? .null,
            "buttons": .array(request.buttons.map(JSONValue.string)),
            "chosen": .string(chosen), "index": .int(Int64(index)),
        ]
        if let note { fields["note"] = .string(note) }
        let buttons = request.buttons.map { $0 == chosen ? "[\($0)]" : $0 }.joined(separator: " ")
        printer.event(
            "alert", fields, human: "alert \"\(request.title ?? "")\" \(buttons)" + (note.map { " (\($0))" } ?? ""))
        return index
    }
}
#endif
