/// A configuration problem found at start-up. `message` is one line an operator can act on.
struct ConfigurationError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
    init(_ message: String) { self.message = message }
}
