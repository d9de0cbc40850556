import Foundation

/// Reads the body of a document notice (`js/webbridge-document.js`, docs/protocol.md, "Document
/// notice"): `{"v":1,"kind":"document","document":"<id>","origin":"<origin>"}`.
package enum DocumentNoticeBody {
    private struct Notice: Decodable {
        let v: Int
        let kind: String
        let document: String?
        /// Not a string: no origin (the document is still named).
        let origin: String?

        private enum CodingKeys: String, CodingKey { case v, kind, document, origin }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            v = try container.decode(Int.self, forKey: .v)
            kind = try container.decode(String.self, forKey: .kind)
            document = try container.decodeIfPresent(String.self, forKey: .document)
            origin = try? container.decodeIfPresent(String.self, forKey: .origin)
        }
    }

    /// The longest notice read: an id, and an origin whose host is at most 253 characters.
    private static let maxBytes = 1024

    /// The notice's document id and the document's security origin (`self.origin` in the
    /// notice's world, which page scripts cannot reach; `nil` for an opaque origin, one that is
    /// not a serialized origin, or a notice without one), when `text` is a version 1 document
    /// notice naming a document id; `nil` for anything else.
    package static func notice(in text: String) -> (document: String, origin: SecurityOrigin?)? {
        guard text.utf8.count <= maxBytes,
            let notice = try? JSONDecoder().decode(Notice.self, from: Data(text.utf8)),
            notice.v == 1, notice.kind == "document", let id = notice.document, PageFunction.isDocumentID(id)
        else { return nil }
        return (id, notice.origin.flatMap(SecurityOrigin.init))
    }
}
