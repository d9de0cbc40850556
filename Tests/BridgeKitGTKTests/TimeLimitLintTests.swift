#if WebKitGTK
import Foundation
import Testing

/// Every WebKitGTK test has a time limit, so that a hang fails within a minute and names its test
/// (instead of holding the whole run until scripts/test's step timeout).
@Suite("Time limits of the WebKitGTK tests")
struct TimeLimitLintTests {
    /// The `@Test` attributes (with their arguments) of a Swift source text.
    static func testAttributes(in source: String) -> [String] {
        let text = Array(source.unicodeScalars)
        let marker = Array("@Test".unicodeScalars)
        var attributes: [String] = []
        var index = 0
        while index + marker.count <= text.count {
            guard Array(text[index..<index + marker.count]) == marker else {
                index += 1
                continue
            }
            var end = index + marker.count
            if end < text.count, text[end] == "(" {
                var depth = 0
                var inString = false
                while end < text.count {
                    let scalar = text[end]
                    if inString {
                        if scalar == "\\" { end += 1 } else if scalar == "\"" { inString = false }
                    } else if scalar == "\"" {
                        inString = true
                    } else if scalar == "(" {
                        depth += 1
                    } else if scalar == ")" {
                        depth -= 1
                        if depth == 0 {
                            end += 1
                            break
                        }
                    }
                    end += 1
                }
            }
            var attribute = String.UnicodeScalarView()
            attribute.append(contentsOf: text[index..<min(end, text.count)])
            attributes.append(String(attribute))
            index = end
        }
        return attributes
    }

    @Test("the scanner finds attributes with and without a time limit", .timeLimit(.minutes(1)))
    func scannerWorks() {
        let sample = """
            @Test("a \\"quoted\\" (name)", .timeLimit(.minutes(1)))
            func a() {}
            @Test("b")
            func b() {}
            @Test func c() {}
            """
        let found = Self.testAttributes(in: sample)
        #expect(found.count == 3)
        #expect(found.filter { $0.contains(".timeLimit(") }.count == 1)
    }

    @Test("every @Test in Tests/BridgeKitGTKTests has .timeLimit", .timeLimit(.minutes(1)))
    func everyTestHasATimeLimit() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" && $0.lastPathComponent != "TimeLimitLintTests.swift" }
        #expect(files.count > 5, "the test sources were found")
        var count = 0
        for file in files {
            for attribute in Self.testAttributes(in: try String(contentsOf: file, encoding: .utf8)) {
                count += 1
                #expect(attribute.contains(".timeLimit("), "\(file.lastPathComponent): \(attribute) has no .timeLimit")
            }
        }
        #expect(count > 50, "the @Test attributes were found")
    }
}
#endif
