#if WebKitGTK
import BridgeKit
@testable import BridgeKitGTK
import BridgeTasks
import Testing

extension GTKWrapperTests {
    /// `GTKAlertPresenter`: the stock Alert task's dialog on Linux, in a real GTK under Xvfb. The
    /// tests answer the dialog as a person would (`gtk_dialog_response`, what a click emits).
    @MainActor
    @Suite("Alert presenter")
    struct AlertPresenter {
        /// Waits until `presenter` shows a dialog and returns it with its title.
        private func shownDialog(_ presenter: GTKAlertPresenter) async throws -> (GTKAlertDialog, String) {
            #expect(await eventuallyOnMain { presenter.dialog != nil }, "a dialog is shown")
            let dialog = try #require(presenter.dialog)
            return (dialog, GTKThread.perform { dialog.title })
        }

        @Test("the dialog shows the title, and the clicked button's index is the answer", .timeLimit(.minutes(1)))
        func chosenButton() async throws {
            let window = try GTKWindow(title: "alerts", width: 320, height: 240)
            window.present()
            let presenter = GTKAlertPresenter(presentingOn: window)
            let answer = Task {
                try await presenter.present(
                    AlertRequest(title: "Delete?", message: "It is gone for good.", buttons: ["Keep", "Delete_all"]))
            }
            let (dialog, title) = try await shownDialog(presenter)
            #expect(title == "Delete?")
            GTKThread.perform { dialog.respond(1) }
            #expect(try await answer.value == 1)
            #expect(await eventuallyOnMain { presenter.dialog == nil }, "the dialog is gone")
            window.close()
        }

        @Test("a dialog closed without a button fails the call cancelled", .timeLimit(.minutes(1)))
        func closedWithoutButton() async throws {
            let presenter = GTKAlertPresenter()
            let answer = Task { try await presenter.present(AlertRequest(title: "No window", buttons: ["OK"])) }
            let (dialog, _) = try await shownDialog(presenter)
            GTKThread.perform { dialog.respond(-4) }  // GTK_RESPONSE_DELETE_EVENT: the close button
            let error = await #expect(throws: BridgeError.self) { try await answer.value }
            #expect(error?.code == "cancelled")
        }

        @Test("a cancelled call destroys its dialog and throws CancellationError", .timeLimit(.minutes(1)))
        func cancelled() async throws {
            let presenter = GTKAlertPresenter()
            let answer = Task { try await presenter.present(AlertRequest(title: "Cancel me")) }
            let (dialog, _) = try await shownDialog(presenter)
            answer.cancel()
            await #expect(throws: CancellationError.self) { try await answer.value }
            #expect(await eventuallyOnMain { presenter.dialog == nil })
            // A late click on the destroyed dialog reaches nobody.
            GTKThread.perform { dialog.respond(0) }
        }

        @Test("alerts are shown one at a time, in the order they came", .timeLimit(.minutes(1)))
        func oneAtATime() async throws {
            let presenter = GTKAlertPresenter()
            let first = Task { try await presenter.present(AlertRequest(title: "first", buttons: ["A", "B"])) }
            let (firstDialog, firstTitle) = try await shownDialog(presenter)
            #expect(firstTitle == "first")
            let second = Task { try await presenter.present(AlertRequest(title: "second", buttons: ["C", "D", "E"])) }
            // The second waits for its turn: the dialog on screen stays the first.
            #expect(await eventuallyOnMain { presenter.waiting == 1 })
            #expect(presenter.dialog === firstDialog)
            GTKThread.perform { firstDialog.respond(0) }
            #expect(try await first.value == 0)
            #expect(await eventuallyOnMain { presenter.dialog != nil && presenter.dialog !== firstDialog })
            let (secondDialog, secondTitle) = try await shownDialog(presenter)
            #expect(secondTitle == "second")
            GTKThread.perform { secondDialog.respond(2) }
            #expect(try await second.value == 2)
        }
    }
}

/// Polls `condition` on the main actor until it holds or 10 s of wall-clock time passed.
@MainActor
private func eventuallyOnMain(_ condition: @MainActor () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(10)
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
#endif
