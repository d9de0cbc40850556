import Foundation

/// Reads the body of a document notice (`js/webbridge-document.js`, docs/protocol.md, "Document
/// notice"): `{"v":1,"kind":"document","document":"<id>"}`.
package enum DocumentNoticeBody {
    private struct Notice: Decodable {
        let v: Int
        let kind: String
        let document: String?
    }

    /// The notice's document id, when `text` is a version 1 document notice naming a document
    /// id (``PageFunction/isDocumentID(_:)``); `nil` for anything else.
    package static func document(in text: String) -> String? {
        guard text.utf8.count <= 256,
            let notice = try? JSONDecoder().decode(Notice.self, from: Data(text.utf8)),
            notice.v == 1, notice.kind == "document", let id = notice.document, PageFunction.isDocumentID(id)
        else { return nil }
        return id
    }
}
