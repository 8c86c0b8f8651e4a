/// The decoded `?a=1&b=2` part of a request target, in order, repeats kept.
public struct QueryParameters: Sendable, Equatable, Sequence {
    public struct Item: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public private(set) var items: [Item] = []

    public init() {}

    /// Parses a raw query: `&`-separated `name=value` pairs, percent-decoded with `+` as space.
    /// Pairs that do not decode are dropped rather than failing the request: a bad parameter the
    /// handler does not read should not matter, and one it does read will be reported missing.
    ///
    /// Split on the UTF-8 bytes: splitting Characters (grapheme breaking) was 9 % of an idle
    /// sync's instructions, whose cursor is long (bench/callgrind). `&` and `=` are ASCII, so
    /// their UTF-8 indices are valid String indices.
    public init(parsing raw: Substring?) {
        guard let raw, !raw.isEmpty else { return }
        for bytes in raw.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let pair = raw[bytes.startIndex..<bytes.endIndex]
            let name: Substring, value: Substring
            if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                name = pair[..<equals]
                value = pair[bytes.index(after: equals)...]
            } else {
                name = pair
                value = ""
            }
            guard let decodedName = PercentDecoding.decode(name, plusAsSpace: true),
                  let decodedValue = PercentDecoding.decode(value, plusAsSpace: true) else { continue }
            items.append(Item(name: decodedName, value: decodedValue))
        }
    }

    /// The first value for `name`.
    public subscript(name: String) -> String? { items.first { $0.name == name }?.value }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] { items.filter { $0.name == name }.map(\.value) }

    public func makeIterator() -> IndexingIterator<[Item]> { items.makeIterator() }
}
