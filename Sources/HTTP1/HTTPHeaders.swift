/// An ordered list of header fields. Names compare case-insensitively; a name may repeat
/// (the parser keeps every occurrence so callers can reject duplicates where that matters).
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(name: String, value: String) { self.name = name; self.value = value }
    }

    public private(set) var fields: [Field] = []

    public init() {}
    public init(_ pairs: [(String, String)]) { for (n, v) in pairs { add(name: n, value: v) } }
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    public var count: Int { fields.count }
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value for `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.equalNames($0.name, name) }?.value
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.equalNames($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { fields.contains { Self.equalNames($0.name, name) } }

    public mutating func add(name: String, value: String) { fields.append(Field(name: name, value: value)) }

    /// Replaces every occurrence of `name` with a single field.
    public mutating func set(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    public mutating func remove(name: String) { fields.removeAll { Self.equalNames($0.name, name) } }

    /// True when a comma-separated header (e.g. `Connection`) lists `token`, case-insensitively.
    public func containsToken(_ token: String, in name: String) -> Bool {
        values(for: name).contains { value in
            value.split(separator: ",").contains { $0.trimmingASCIIWhitespace().lowercasedASCII() == token.lowercasedASCII() }
        }
    }

    /// ASCII case-insensitive comparison without allocating: this runs for every header lookup.
    static func equalNames(_ a: String, _ b: String) -> Bool {
        var i = a.utf8.makeIterator(), j = b.utf8.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return true
            case let (x?, y?):
                if x == y { continue }
                // Bytes that differ only in bit 0x20 are the same letter in the other case.
                let lower = x | 0x20
                guard lower == (y | 0x20), lower >= 97, lower <= 122 else { return false }
            default: return false
            }
        }
    }
}

extension StringProtocol {
    /// ASCII-only lowercasing: header names and tokens are ASCII by grammar, and this avoids
    /// locale-dependent Unicode case mapping.
    public func lowercasedASCII() -> String {
        String(decoding: utf8.map { ($0 >= 65 && $0 <= 90) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    public func trimmingASCIIWhitespace() -> Substring {
        let s = Substring(self)
        var start = s.startIndex, end = s.endIndex
        while start < end, s[start] == " " || s[start] == "\t" { start = s.index(after: start) }
        while end > start, s[s.index(before: end)] == " " || s[s.index(before: end)] == "\t" { end = s.index(before: end) }
        return s[start..<end]
    }
}
