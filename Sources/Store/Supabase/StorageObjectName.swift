/// An object's name inside a bucket (`folder/file.png`), checked once for every route.
///
/// Names are kept to what survives every hop unchanged: path segments of letters, digits and
/// `-_.~!*'()@=+,` (no spaces, no percent-decoded `/`, no `.` or `..` segments), at most
/// `maxSegments` deep and `maxBytes` long. A name whose last segment is a SHA-256 hex
/// (optionally `.png`, `.jpg` or `.jpeg`) is content-addressed: it may only hold the bytes of
/// that hash, which is what lets downloads be cached as immutable.
public struct StorageObjectName: Sendable, Equatable, CustomStringConvertible {
    public static let maxSegments = 8
    public static let maxBytes = 512

    public let segments: [String]

    public var description: String { segments.joined(separator: "/") }

    /// The SHA-256 hex the name promises its bytes hash to, when it is content-addressed.
    public var contentHash: String? {
        guard let last = segments.last else { return nil }
        let parts = last.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let stem = parts.first, stem.utf8.count == 64,
              stem.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
              parts.count == 1 || ["png", "jpg", "jpeg"].contains(parts[1])
        else { return nil }
        return String(stem)
    }

    /// Nil when the segments do not make an acceptable name.
    public init?(segments: [String]) {
        guard (1...Self.maxSegments).contains(segments.count),
              segments.reduce(segments.count - 1, { $0 + $1.utf8.count }) <= Self.maxBytes,
              segments.allSatisfy(Self.isAcceptableSegment)
        else { return nil }
        self.segments = segments
    }

    /// `a/b.png` as one string (the bulk delete's `prefixes`).
    public init?(_ text: String) {
        self.init(segments: text.split(separator: "/", omittingEmptySubsequences: false).map(String.init))
    }

    static func isAcceptableSegment(_ segment: String) -> Bool {
        !segment.isEmpty && segment != "." && segment != ".." && segment.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "A")...UInt8(ascii: "Z"):
                true
            default:
                punctuation.contains(byte)
            }
        }
    }

    static let punctuation = Array("-_.~!*'()@=+,".utf8)
}
