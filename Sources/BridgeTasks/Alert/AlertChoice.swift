/// The Alert task's result: the button the person chose.
public struct AlertChoice: Encodable, Sendable, Hashable {
    /// The index of the chosen button in ``AlertRequest/buttons``.
    public var index: Int
    /// The label of the chosen button.
    public var button: String

    /// Creates a choice.
    public init(index: Int, button: String) {
        self.index = index
        self.button = button
    }
}
