/// Why the test database could not be provided. Tests that hit this must fail, not skip.
public struct TestSupportError: Error, CustomStringConvertible, Sendable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { "TestSupportError: \(message)" }
}
