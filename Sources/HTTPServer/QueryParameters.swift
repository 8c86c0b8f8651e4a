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
    /// Scans the contiguous UTF-8 bytes with integer offsets: splitting Characters (grapheme
    /// breaking) was 9 % of an idle sync's instructions, whose cursor is long, and splitting
    /// the `Substring.UTF8View` by its indices still cost ~11k instructions per idle sync
    /// (bench/callgrind). `&` and `=` are ASCII, so every piece is whole UTF-8.
    public init(parsing raw: Substring?) {
        guard let raw, !raw.isEmpty else { return }
        if let parsed = raw.utf8.withContiguousStorageIfAvailable({ Self.items(in: $0) }) {
            items = parsed
        } else {
            items = Array(raw.utf8).withUnsafeBufferPointer { Self.items(in: $0) }
        }
    }

    private static func items(in bytes: UnsafeBufferPointer<UInt8>) -> [Item] {
        var items: [Item] = []
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") { end += 1 }
            defer { start = end + 1 }
            guard end > start else { continue }
            var equals = start
            while equals < end, bytes[equals] != UInt8(ascii: "=") { equals += 1 }
            let name = UnsafeBufferPointer(rebasing: bytes[start..<equals])
            let value = equals < end ? UnsafeBufferPointer(rebasing: bytes[(equals + 1)..<end]) : UnsafeBufferPointer(rebasing: bytes[end..<end])
            guard let decodedName = PercentDecoding.decode(name, plusAsSpace: true),
                  let decodedValue = PercentDecoding.decode(value, plusAsSpace: true) else { continue }
            items.append(Item(name: decodedName, value: decodedValue))
        }
        return items
    }

    /// The first value for `name`.
    public subscript(name: String) -> String? { items.first { $0.name == name }?.value }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] { items.filter { $0.name == name }.map(\.value) }

    public func makeIterator() -> IndexingIterator<[Item]> { items.makeIterator() }
}
