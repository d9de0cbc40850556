import Foundation
import Testing

@testable import BridgeCookies

/// One named row of an RFC 6265 table test; the name is what the test report shows.
struct Row<Input: Sendable, Output: Sendable>: Sendable, CustomTestStringConvertible {
    var name: String
    var input: Input
    var expected: Output

    init(_ name: String, _ input: Input, _ expected: Output) {
        self.name = name
        self.input = input
        self.expected = expected
    }

    var testDescription: String { name }
}
